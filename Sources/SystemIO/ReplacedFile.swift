import Foundation

/// What a caller does with the temporary files of `ReplacedFile`: the executable registers them so
/// SIGINT, SIGTERM, SIGHUP and SIGQUIT remove them (`TemporaryFiles` of PayloadTool); a library's
/// own tests need nothing.
public struct TemporaryFileTracking: Sendable {
    /// Called before the temporary file is created.
    public var register: @Sendable (String) -> Void
    /// Called once it is renamed into place or removed.
    public var unregister: @Sendable (String) -> Void

    public init(register: @escaping @Sendable (String) -> Void, unregister: @escaping @Sendable (String) -> Void) {
        self.register = register
        self.unregister = unregister
    }

    public static let none = TemporaryFileTracking(register: { _ in }, unregister: { _ in })
}

/// A file that is only ever replaced whole: the new contents go to `.NAME.tmp-PID` beside it, are
/// flushed, get the old file's mode (and owner, when we may give it), and are renamed over it, so a
/// reader sees the old file or the new one, never half of one.
///
/// A symbolic link is written through: the temporary file lives beside the link's final target and
/// is renamed over the target, so the link stays a link (a rename beside the link would replace it
/// with a plain file). A file with no write permission for anyone is refused, also as root, whom
/// `access(2)` and `rename(2)` let through: a 0444 file says "do not change me", as `cp` reads it.
///
/// The caller serialises writers (`FileLock` on `lockPath`); this type only makes one write safe.
public struct ReplacedFile: Sendable {
    /// Why the file cannot be written, without the path (the caller's message names it).
    public struct Failure: Error, Sendable, CustomStringConvertible {
        public var reason: String
        public var description: String { reason }
    }

    /// The path as given, for messages.
    public let path: String
    /// The file that is replaced: `path`, or the file a symbolic link at `path` leads to.
    public let targetPath: String
    /// The target's folder, where the lock and the temporary file live.
    public let folder: String
    /// `.NAME.tmp-PID` in the target's folder: the process id tells a dead run's leftover from a
    /// live run's file.
    public let temporaryPath: String

    /// `TARGET.lock`: the lock of everyone who replaces the target, beside it (through any link).
    public var lockPath: String { targetPath + ".lock" }

    private var temporaryPrefix: String { "." + (targetPath as NSString).lastPathComponent + ".tmp-" }

    /// Resolves a symbolic link and checks the target can be replaced: a regular file with a write
    /// permission (or no file yet).
    public init(path: String) throws(Failure) {
        self.path = path
        var target = path
        if case .success(let link) = FileIO.linkStatus(of: path, retryOnInterrupt: false), link.kind == .symbolicLink {
            switch FileIO.resolvedPath(path) {
            case .success(let resolved): target = resolved
            case .failure(let failure):
                throw Failure(reason: "a symbolic link to nothing (\(failure.text)); it is written through only to an existing file")
            }
        }
        targetPath = target
        let name = (target as NSString).lastPathComponent
        let parent = (target as NSString).deletingLastPathComponent
        folder = parent.isEmpty ? "." : parent
        temporaryPath = (folder as NSString).appendingPathComponent(".\(name).tmp-\(Processes.currentID)")
        if case .success(let info) = FileIO.status(of: target) {
            guard info.kind == .regular else { throw Failure(reason: "not a regular file (\(info.kind))") }
            // `access` alone would let root replace a read-only file.
            guard info.permissions & 0o222 != 0, FileIO.isWritable(target) else { throw Failure(reason: "the file is read-only") }
        }
    }

    /// The target's permission bits, or `nil` when there is no file yet.
    public var existingMode: mode_t? {
        guard case .success(let info) = FileIO.status(of: targetPath) else { return nil }
        return info.permissions
    }

    /// Removes `.NAME.tmp-PID` files of processes that no longer exist (a run killed by SIGKILL, or
    /// by a crash, leaves its temporary file). Call it holding the lock: no live writer of the
    /// target then has a temporary file of its own, but a live process of another kind that uses
    /// the same names (`rows --output` to this path) keeps its file.
    public func removeStaleTemporaryFiles() {
        guard let names = try? FileManager.default.contentsOfDirectory(atPath: folder) else { return }
        let prefix = temporaryPrefix
        for name in names where name.hasPrefix(prefix) {
            let digits = name.dropFirst(prefix.count)
            guard !digits.isEmpty, digits.allSatisfy(\.isASCII), let pid = Int32(digits), pid > 0 else { continue }
            if pid != Processes.currentID, Processes.isRunning(pid) { continue }
            FileIO.remove((folder as NSString).appendingPathComponent(name))
        }
    }

    /// Writes `bytes` to the temporary file, flushes it, gives it the target's mode and owner and
    /// renames it over the target. On failure the temporary file is removed and the target is
    /// left as it was.
    public func replace(with bytes: [UInt8], tracking: TemporaryFileTracking = .none) throws(Failure) {
        var existing: FileStatus?
        if case .success(let info) = FileIO.status(of: targetPath) { existing = info }
        FileIO.remove(temporaryPath)  // left by an earlier run of the same process id that was killed
        tracking.register(temporaryPath)
        let descriptor: Int32
        do {
            // A new file gets 0666 less the umask, as any file the user creates; an existing one is
            // private until its own mode is given below.
            descriptor = try FileIO.createNew(temporaryPath, mode: existing == nil ? 0o666 : 0o600)
        } catch {
            tracking.unregister(temporaryPath)
            throw Failure(reason: "cannot create \(temporaryPath): \(error.reason)")
        }
        var isOpen = true
        func fail(_ action: String, _ failure: SystemErrno) -> Failure {
            if isOpen { FileIO.close(descriptor) }
            isOpen = false
            FileIO.remove(temporaryPath)
            tracking.unregister(temporaryPath)
            return Failure(reason: "\(action): \(failure.text)")
        }
        func check(_ action: String, _ failure: SystemErrno?, unless harmless: Int32? = nil) throws(Failure) {
            if let failure, failure.code != harmless { throw fail(action, failure) }
        }
        let written = bytes.withUnsafeBytes { raw -> SystemErrno? in
            do throws(FileError) {
                try FileIO.writeAll(descriptor, raw, path: temporaryPath)
                return nil
            } catch {
                return error.errno
            }
        }
        if let written { throw fail("cannot write \(temporaryPath)", written) }
        if let existing {
            // Another user's file keeps its owner only when we may give it (EPERM: we may not, and
            // that is no reason to fail); then its mode, which a chown may have cleared bits of.
            try check("cannot keep the file's owner", FileIO.setOwner(descriptor, existing.owner, group: existing.group), unless: EPERM)
            try check("cannot set the file's mode", FileIO.setMode(descriptor, existing.permissions))
        }
        // A file system without fsync (EINVAL) has nothing to flush.
        try check("cannot write \(temporaryPath)", FileIO.flushToDisk(descriptor), unless: EINVAL)
        isOpen = false
        try check("cannot write \(temporaryPath)", FileIO.close(descriptor))
        try check("cannot rename \(temporaryPath) into place", FileIO.rename(temporaryPath, to: targetPath))
        tracking.unregister(temporaryPath)
        // The rename itself reaches the disk with the folder's entry; failing that loses nothing now.
        if case .success(let folderDescriptor) = SystemCall.valueOrErrno({ Foundation.open(folder, O_RDONLY | O_DIRECTORY | O_CLOEXEC) }) {
            _ = FileIO.flushToDisk(folderDescriptor, retryOnInterrupt: false)
            FileIO.close(folderDescriptor)
        }
    }
}
