import Foundation

/// An `errno` value a system call left behind, kept as the number (its text is looked up when
/// shown).
public struct SystemErrno: Error, Sendable, Hashable {
    public var code: Int32

    public init(code: Int32) { self.code = code }

    /// The C library's text for the number, as `strerror` gives it.
    public var text: String { String(cString: strerror(code)) }

    /// The calling thread's current `errno`.
    public static var current: SystemErrno { SystemErrno(code: errno) }
}

/// The one way this package makes raw system calls that report failure through `errno`: each
/// call's failure is captured right away (before anything else can overwrite `errno`), and a call
/// interrupted by a signal is made again.
public enum SystemCall {
    /// Makes `call` (which returns -1 and sets `errno` on failure) until it is not interrupted by
    /// a signal (`EINTR`) when `retryOnInterrupt`; the value, or the `errno` it failed with.
    @inlinable
    public static func valueOrErrno<Value: FixedWidthInteger>(
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

    /// As `valueOrErrno` for a call that returns nil on failure (`opendir`, `realpath`, `mmap` with
    /// `MAP_FAILED` turned into nil by the caller's closure).
    public static func nonNilValueOrErrno<Value>(retryOnInterrupt: Bool = true, _ call: () -> Value?) -> Result<Value, SystemErrno> {
        while true {
            if let value = call() { return .success(value) }
            let failure = SystemErrno.current
            if retryOnInterrupt, failure.code == EINTR { continue }
            return .failure(failure)
        }
    }

    /// As `valueOrErrno` for a call whose value says nothing but success: nil, or the `errno`.
    static func failure(retryOnInterrupt: Bool, _ call: () -> Int32) -> SystemErrno? {
        guard case .failure(let failure) = valueOrErrno(retryOnInterrupt: retryOnInterrupt, call) else { return nil }
        return failure
    }
}
