import Foundation

/// An `errno` value a system call left behind, kept as the number (its text is looked up when
/// shown).
public struct SystemErrno: Error, Sendable, Hashable {
    public var code: Int32

    /// The C library's text for the number, as `strerror` gives it.
    public var text: String { String(cString: strerror(code)) }

    /// The calling thread's current `errno`.
    static var current: SystemErrno { SystemErrno(code: errno) }
}

// The one place this module makes raw system calls that report failure through `errno`: each
// call's failure is captured right away (before anything else can overwrite `errno`), and a call
// interrupted by a signal is made again.
enum SystemCall {
    /// Makes `call` (which returns -1 and sets `errno` on failure) until it is not interrupted by
    /// a signal (`EINTR`) when `retryOnInterrupt`; the value, or the `errno` it failed with.
    static func valueOrErrno<Value: FixedWidthInteger>(
        retryOnInterrupt: Bool = true, _ call: () -> Value
    ) -> Result<Value, SystemErrno> {
        while true {
            let value = call()
            if value != -1 { return .success(value) }
            let failure = SystemErrno.current
            if retryOnInterrupt, failure.code == EINTR { continue }
            return .failure(failure)
        }
    }

    /// As `valueOrErrno` for a call that returns nil on failure (`opendir`, `mmap` with
    /// `MAP_FAILED` turned into nil by the caller's closure).
    static func nonNilValueOrErrno<Value>(retryOnInterrupt: Bool = true, _ call: () -> Value?) -> Result<Value, SystemErrno> {
        while true {
            if let value = call() { return .success(value) }
            let failure = SystemErrno.current
            if retryOnInterrupt, failure.code == EINTR { continue }
            return .failure(failure)
        }
    }

    /// Opens `path` read-only (close-on-exec); a failure is `<path>: cannot open: <reason>`.
    static func openForReading(_ path: String) throws(SymbolizeError) -> Int32 {
        try valueOrErrno { open(path, O_RDONLY | O_CLOEXEC) }.orThrow(path: path, action: "cannot open")
    }

    /// `stat` of `path`, or the `errno` it failed with.
    static func status(of path: String) -> Result<stat, SystemErrno> {
        var status = stat()
        return valueOrErrno { stat(path, &status) }.map { _ in status }
    }
}

extension Result where Failure == SystemErrno {
    /// The value, or a `SymbolizeError.systemCall` naming the path and what was tried.
    func orThrow(path: String, action: String) throws(SymbolizeError) -> Success {
        switch self {
        case .success(let value): return value
        case .failure(let failure): throw .systemCall(path: path, action: action, errno: failure)
        }
    }

    /// The value, or nil with a `SymbolizeError.systemCall` added to `problems` (for scans that
    /// report a problem per file and go on).
    func value(orAppendingTo problems: inout [SymbolizeError], path: String, action: String) -> Success? {
        switch self {
        case .success(let value): return value
        case .failure(let failure):
            problems.append(.systemCall(path: path, action: action, errno: failure))
            return nil
        }
    }
}
