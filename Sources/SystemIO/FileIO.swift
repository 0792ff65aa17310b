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

    /// Creates `path`, which must not exist, for writing (close-on-exec).
    public static func createNew(_ path: String, mode: mode_t, action: String = "cannot create") throws(FileError) -> Int32 {
        try SystemCall.valueOrErrno { open(path, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, mode) }.get(path: path, action: action)
    }

    /// Reads up to `count` bytes into `buffer`: the number read (0 at the end), or the `errno`.
    public static func read(_ descriptor: Int32, into buffer: UnsafeMutableRawPointer, count: Int) -> Result<Int, SystemErrno> {
        SystemCall.valueOrErrno { Foundation.read(descriptor, buffer, count) }
    }

    /// Writes all of `bytes` to `descriptor` (the file at `path`, for the message). A write that
    /// takes nothing is a failure too, reported as EIO (its own `errno` is 0, "Success").
    public static func writeAll(_ descriptor: Int32, _ bytes: UnsafeRawBufferPointer, path: String) throws(FileError) {
        var offset = 0
        while offset < bytes.count {
            let written = try SystemCall.valueOrErrno { Foundation.write(descriptor, bytes.baseAddress! + offset, bytes.count - offset) }
                .get(path: path, action: "cannot write")
            // A write that takes nothing would be asked again forever; it says no error of its own.
            guard written > 0 else { throw FileError(path: path, action: "cannot write", errno: SystemErrno(code: EIO)) }
            offset += written
        }
    }
}
