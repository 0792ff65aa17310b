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
        if case .success(let link) = FileIO.linkStatus(of: path, retryOnInterrupt: false), link.kind == .symbolicLink {
            switch FileIO.resolvedPath(path) {
            case .success(let resolved): target = resolved
            case .failure(let failure):
                throw OpenError(
                    description: "\(path): a symbolic link to nothing (\(failure.text)); --output writes through a link only to an existing file",
                    isUsage: true)
            }
        }
        targetPath = target
        if case .success(let info) = FileIO.status(of: target, retryOnInterrupt: false) {
            guard info.kind == .regular else {
                throw OpenError(description: "\(path): not a regular file (\(info.kind)); --output writes regular files only", isUsage: true)
            }
            // `access` alone would let root replace a read-only file.
            guard info.permissions & 0o222 != 0, FileIO.isWritable(target) else {
                throw OpenError(description: "\(path): cannot write: the file is read-only", isUsage: false)
            }
            mode = info.permissions
            owner = (info.owner, info.group)
        } else {
            mode = 0o666 & ~Processes.fileCreationMask
            owner = nil
        }
        let url = URL(fileURLWithPath: target)
        let folder = url.deletingLastPathComponent().path
        temporaryPath = folder + "/." + url.lastPathComponent + ".tmp-\(Processes.currentID)"
        FileIO.remove(temporaryPath)  // left by an earlier run of the same process id that was killed
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
        // One try each, and the message names the path the user gave.
        func failed(_ action: String, _ failure: SystemErrno?, unless harmless: Int32? = nil) -> String? {
            guard let failure, failure.code != harmless else { return nil }
            return FileError(path: path, action: action, errno: failure).description
        }
        // Another user's file keeps its owner only when we may give it (EPERM: we may not, and
        // that is no reason to fail); a file system without fsync (EINVAL) has nothing to flush.
        if let owner,
            let message = failed(
                "cannot keep the file's owner", FileIO.setOwner(descriptor, owner.uid, group: owner.gid, retryOnInterrupt: false), unless: EPERM)
        {
            return message
        }
        if let message = failed("cannot set the file's mode", FileIO.setMode(descriptor, mode, retryOnInterrupt: false)) { return message }
        if let message = failed("cannot write", FileIO.flushToDisk(descriptor, retryOnInterrupt: false), unless: EINVAL) { return message }
        let closing = descriptor
        descriptor = -1
        if let message = failed("cannot write", FileIO.close(closing)) { return message }
        if let message = failed("cannot rename the finished output into place", FileIO.rename(temporaryPath, to: targetPath, retryOnInterrupt: false))
        {
            return message
        }
        TemporaryFiles.unregister(temporaryPath)
        return nil
    }

    /// Removes the temporary file (after a failure).
    func discard() {
        if descriptor >= 0 {
            FileIO.close(descriptor)
            descriptor = -1
        }
        FileIO.remove(temporaryPath)
        TemporaryFiles.unregister(temporaryPath)
    }

    deinit {
        if descriptor >= 0 { discard() }
    }
}
