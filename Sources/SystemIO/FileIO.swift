import Foundation

/// A file operation that failed: the path, what was tried, and why. Shown as
/// `<path>: <action>: <reason>`, the form every message about a file takes (docs/rows.md, "Hostile input").
public struct FileError: Error, Sendable, Hashable, CustomStringConvertible {
    public var path: String
    /// What was tried, e.g. `cannot open`, `cannot write`.
    public var action: String
    public var errno: SystemErrno

    public init(path: String, action: String, errno: SystemErrno) {
        self.path = path
        self.action = action
        self.errno = errno
    }

    /// The C library's words for the failure.
    public var reason: String { errno.text }

    public var description: String { "\(path): \(action): \(reason)" }
}

extension Result where Failure == SystemErrno {
    /// The value, or a `FileError` naming the path and what was tried.
    @inlinable
    public func get(path: String, action: String) throws(FileError) -> Success {
        switch self {
        case .success(let value): return value
        case .failure(let failure): throw FileError(path: path, action: action, errno: failure)
        }
    }
}

/// Reading and writing through file descriptors, each failure a `FileError` that names the file.
public enum FileIO {
    /// Opens `path` read-only (close-on-exec).
    public static func openForReading(_ path: String) throws(FileError) -> Int32 {
        try SystemCall.valueOrErrno { open(path, O_RDONLY | O_CLOEXEC) }.get(path: path, action: "cannot open")
    }

    /// The first `count` bytes of the regular file at `path` (fewer when it is shorter), or nil
    /// when it is not a regular file or cannot be read: what tells a file's content before it is
    /// read or replaced. Never blocks on a FIFO, never traps on a folder (Foundation's
    /// `FileHandle.readData` does).
    public static func head(of path: String, count: Int) -> [UInt8]? {
        guard case .success(let status) = status(of: path, retryOnInterrupt: false), status.kind == .regular,
            let descriptor = try? openForReading(path)
        else { return nil }
        defer { _ = close(descriptor) }
        var bytes = [UInt8](repeating: 0, count: count)
        var filled = 0
        while filled < count {
            let got = bytes.withUnsafeMutableBytes { read(descriptor, into: $0.baseAddress! + filled, count: count - filled) }
            guard case .success(let n) = got else { return nil }
            if n == 0 { break }
            filled += n
        }
        return Array(bytes[0..<filled])
    }

    /// Creates `path`, which must not exist, for writing (close-on-exec).
    public static func createNew(_ path: String, mode: mode_t, action: String = "cannot create") throws(FileError) -> Int32 {
        try SystemCall.valueOrErrno { open(path, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, mode) }.get(path: path, action: action)
    }

    /// Reads up to `count` bytes into `buffer`: the number read (0 at the end), or the `errno`.
    public static func read(_ descriptor: Int32, into buffer: UnsafeMutableRawPointer, count: Int) -> Result<Int, SystemErrno> {
        SystemCall.valueOrErrno { Foundation.read(descriptor, buffer, count) }
    }

    /// Reads up to `count` bytes from `offset` of the file (`pread`: the descriptor's own position
    /// is left alone, so threads may share it), made again when interrupted: the number read (0 at
    /// the end), or the `errno`. Inlined: a symbol index reads its pages through it.
    @inlinable
    public static func read(_ descriptor: Int32, into buffer: UnsafeMutableRawPointer, count: Int, at offset: Int) -> Result<Int, SystemErrno> {
        SystemCall.valueOrErrno { pread(descriptor, buffer, count, off_t(offset)) }
    }

    /// One `write` of up to all of `bytes`: the number written (it may be fewer), or the `errno`.
    public static func write(_ descriptor: Int32, _ bytes: UnsafeRawBufferPointer, retryOnInterrupt: Bool = true) -> Result<Int, SystemErrno> {
        SystemCall.valueOrErrno(retryOnInterrupt: retryOnInterrupt) { Foundation.write(descriptor, bytes.baseAddress, bytes.count) }
    }

    /// Writes all of `bytes` to `descriptor` (the file at `path`, for the message). A write that
    /// takes nothing is a failure too, reported as EIO (its own `errno` is 0, "Success").
    public static func writeAll(_ descriptor: Int32, _ bytes: UnsafeRawBufferPointer, path: String) throws(FileError) {
        var offset = 0
        while offset < bytes.count {
            let written = try write(descriptor, UnsafeRawBufferPointer(rebasing: bytes[offset...])).get(path: path, action: "cannot write")
            // A write that takes nothing would be asked again forever; it says no error of its own.
            guard written > 0 else { throw FileError(path: path, action: "cannot write", errno: SystemErrno(code: EIO)) }
            offset += written
        }
    }

    /// Closes `descriptor`: nil, or the `errno` (a file system may report a failed write only
    /// here). Never made again when interrupted: Linux has let go of the descriptor by then, and a
    /// second close could close a file another thread has just opened under the same number.
    @discardableResult
    public static func close(_ descriptor: Int32) -> SystemErrno? {
        SystemCall.failure(retryOnInterrupt: false) { Foundation.close(descriptor) }
    }

    /// Gives the open file these permission bits (`fchmod`): nil, or the `errno`.
    public static func setMode(_ descriptor: Int32, _ mode: mode_t, retryOnInterrupt: Bool = true) -> SystemErrno? {
        SystemCall.failure(retryOnInterrupt: retryOnInterrupt) { fchmod(descriptor, mode) }
    }

    /// Gives the open file this owner and group (`fchown`): nil, or the `errno` (`EPERM` when
    /// this user may not give it away).
    public static func setOwner(_ descriptor: Int32, _ owner: uid_t, group: gid_t, retryOnInterrupt: Bool = true) -> SystemErrno? {
        SystemCall.failure(retryOnInterrupt: retryOnInterrupt) { fchown(descriptor, owner, group) }
    }

    /// Waits until the file's written contents are on the disk (`fsync`): nil, or the `errno`
    /// (`EINVAL` from a file system that has nothing to flush).
    public static func flushToDisk(_ descriptor: Int32, retryOnInterrupt: Bool = true) -> SystemErrno? {
        SystemCall.failure(retryOnInterrupt: retryOnInterrupt) { fsync(descriptor) }
    }

    /// Waits at most `milliseconds` for `descriptor` (a socket) to have something to read (one
    /// `poll`): whether it has, or the `errno`. Not made again when interrupted: the caller's
    /// loop counts its deadline down and asks again.
    public static func waitForInput(_ descriptor: Int32, milliseconds: Int32) -> Result<Bool, SystemErrno> {
        var watched = pollfd(fd: descriptor, events: Int16(POLLIN), revents: 0)
        return SystemCall.valueOrErrno(retryOnInterrupt: false) { poll(&watched, 1, milliseconds) }.map { $0 > 0 }
    }
}
