import Foundation

/// An output file written under a temporary name in the same folder and renamed into place when
/// complete, so a reader never sees half a file and a failed run leaves nothing behind.
final class AtomicOutputFile {
    struct OpenError: Error, CustomStringConvertible {
        var description: String
    }

    let path: String
    let temporaryPath: String
    private var descriptor: Int32

    init(path: String) throws(OpenError) {
        self.path = path
        let url = URL(fileURLWithPath: path)
        let folder = url.deletingLastPathComponent().path
        temporaryPath = folder + "/." + url.lastPathComponent + ".tmp-\(getpid())"
        descriptor = open(temporaryPath, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0o644)
        guard descriptor >= 0 else {
            throw OpenError(description: "\(path): cannot create the output file: \(String(cString: strerror(errno)))")
        }
    }

    /// Writes all of `bytes`; returns a message on failure.
    func write(_ bytes: [UInt8]) -> String? {
        bytes.withUnsafeBytes { raw -> String? in
            var offset = 0
            while offset < raw.count {
                let written = Foundation.write(descriptor, raw.baseAddress! + offset, raw.count - offset)
                if written < 0 {
                    if errno == EINTR { continue }
                    return "\(path): cannot write: \(String(cString: strerror(errno)))"
                }
                offset += written
            }
            return nil
        }
    }

    /// Flushes to disk and renames into place; returns a message on failure.
    func commit() -> String? {
        if fsync(descriptor) != 0 && errno != EINVAL {
            return "\(path): cannot write: \(String(cString: strerror(errno)))"
        }
        let closed = close(descriptor)
        descriptor = -1
        if closed != 0 { return "\(path): cannot write: \(String(cString: strerror(errno)))" }
        if rename(temporaryPath, path) != 0 {
            return "\(path): cannot rename the finished output into place: \(String(cString: strerror(errno)))"
        }
        return nil
    }

    /// Removes the temporary file (after a failure).
    func discard() {
        if descriptor >= 0 {
            close(descriptor)
            descriptor = -1
        }
        unlink(temporaryPath)
    }

    deinit {
        if descriptor >= 0 { discard() }
    }
}
