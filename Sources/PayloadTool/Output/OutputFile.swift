import Foundation
import SystemIO

/// An output file written under a temporary name in the same folder and renamed into place when
/// complete, so a reader never sees half a file and a failed or interrupted run leaves nothing
/// behind (the temporary file is registered with `TemporaryFiles`).
///
/// Only regular files are written. A device, a FIFO, a socket or a folder given as `--output` is
/// refused before anything runs: renaming over `/dev/null` would replace the machine's device. A
/// symbolic link is written through: the link stays and its target gets the new contents. An
/// existing file keeps its mode and owner; a file without write permission is refused.
final class AtomicOutputFile {
    struct OpenError: Error, CustomStringConvertible {
        var description: String
        /// The path names something that is not a file to write (a usage error, exit 64).
        var isUsage: Bool
    }

    /// The path as given, for messages.
    let path: String
    /// The file that is replaced: `path`, or the file a symbolic link at `path` leads to.
    let targetPath: String
    let temporaryPath: String
    private var descriptor: Int32
    private let mode: mode_t
    private let owner: (uid: uid_t, gid: gid_t)?

    init(path: String) throws(OpenError) {
        self.path = path
        var target = path
        var linkInfo = stat()
        if lstat(path, &linkInfo) == 0, (linkInfo.st_mode & S_IFMT) == S_IFLNK {
            let resolved: UnsafeMutablePointer<CChar>
            switch SystemCall.nonNilValueOrErrno(retryOnInterrupt: false, { realpath(path, nil) }) {
            case .success(let value): resolved = value
            case .failure(let failure):
                throw OpenError(
                    description: "\(path): a symbolic link to nothing (\(failure.text)); --output writes through a link only to an existing file",
                    isUsage: true)
            }
            target = String(cString: resolved)
            free(resolved)
        }
        targetPath = target
        var info = stat()
        if stat(target, &info) == 0 {
            guard (info.st_mode & S_IFMT) == S_IFREG else {
                throw OpenError(
                    description: "\(path): not a regular file (\(Self.kind(info.st_mode))); --output writes regular files only", isUsage: true)
            }
            // `access` alone would let root replace a read-only file.
            guard info.st_mode & 0o222 != 0, access(target, W_OK) == 0 else {
                throw OpenError(description: "\(path): cannot write: the file is read-only", isUsage: false)
            }
            mode = info.st_mode & 0o7777
            owner = (info.st_uid, info.st_gid)
        } else {
            let mask = umask(0)
            umask(mask)
            mode = 0o666 & ~mask
            owner = nil
        }
        let url = URL(fileURLWithPath: target)
        let folder = url.deletingLastPathComponent().path
        temporaryPath = folder + "/." + url.lastPathComponent + ".tmp-\(getpid())"
        unlink(temporaryPath)  // left by an earlier run of the same process id that was killed
        // Registered before it exists: registering installs the signal handlers, and a signal
        // between creating the file and registering it would end the run by its default action
        // and leave the file behind.
        TemporaryFiles.register(temporaryPath)
        do {
            // The message names the path the user gave, not the temporary file.
            descriptor = try FileIO.createNew(temporaryPath, mode: 0o600)
        } catch {
            TemporaryFiles.unregister(temporaryPath)
            throw OpenError(description: "\(path): cannot create the output file: \(error.reason)", isUsage: false)
        }
    }

    private static func kind(_ mode: mode_t) -> String {
        switch mode & S_IFMT {
        case S_IFCHR: return "a character device"
        case S_IFBLK: return "a block device"
        case S_IFIFO: return "a FIFO"
        case S_IFSOCK: return "a socket"
        case S_IFDIR: return "a folder"
        default: return "not a regular file"
        }
    }

    /// Writes all of `bytes`; returns a message on failure.
    func write(_ bytes: [UInt8]) -> String? {
        bytes.withUnsafeBytes { raw -> String? in
            do throws(FileError) {
                try FileIO.writeAll(descriptor, raw, path: path)
                return nil
            } catch {
                return error.description
            }
        }
    }

    /// Gives the file its mode (and, for a file that existed, its owner), flushes it to disk and
    /// renames it into place; returns a message on failure.
    func commit() -> String? {
        func failed(_ action: String, _ call: () -> Int32, unless harmless: Int32? = nil) -> String? {
            guard case .failure(let failure) = SystemCall.valueOrErrno(retryOnInterrupt: false, call), failure.code != harmless
            else { return nil }
            return FileError(path: path, action: action, errno: failure).description
        }
        // Another user's file keeps its owner only when we may give it (EPERM: we may not, and
        // that is no reason to fail); a file system without fsync (EINVAL) has nothing to flush.
        if let owner, let message = failed("cannot keep the file's owner", { fchown(descriptor, owner.uid, owner.gid) }, unless: EPERM) {
            return message
        }
        if let message = failed("cannot set the file's mode", { fchmod(descriptor, mode) }) { return message }
        if let message = failed("cannot write", { fsync(descriptor) }, unless: EINVAL) { return message }
        let closing = descriptor
        descriptor = -1
        if let message = failed("cannot write", { close(closing) }) { return message }
        if let message = failed("cannot rename the finished output into place", { rename(temporaryPath, targetPath) }) {
            return message
        }
        TemporaryFiles.unregister(temporaryPath)
        return nil
    }

    /// Removes the temporary file (after a failure).
    func discard() {
        if descriptor >= 0 {
            close(descriptor)
            descriptor = -1
        }
        unlink(temporaryPath)
        TemporaryFiles.unregister(temporaryPath)
    }

    deinit {
        if descriptor >= 0 { discard() }
    }
}
