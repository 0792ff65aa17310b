import Foundation
import SystemIO

// System calls as this module reports them: a failure is a `SymbolizeError.systemCall` naming the
// path (the calls themselves go through SystemIO's `SystemCall`).
extension SystemCall {
    /// Opens `path` read-only (close-on-exec); a failure is `<path>: cannot open: <reason>`.
    static func openForReading(_ path: String) throws(SymbolizeError) -> Int32 {
        try valueOrErrno { open(path, O_RDONLY | O_CLOEXEC) }.orThrow(path: path, action: "cannot open")
    }

    /// `madvise(MADV_DONTNEED)` over the whole pages of a read-only file mapping: they leave this
    /// process's resident set and fault back from the page cache when read again. A failure only
    /// means the pages stay, so it is not reported.
    static func dropResidentPages(_ mapping: UnsafeRawBufferPointer) {
        guard let base = mapping.baseAddress, mapping.count > 0 else { return }
        let page = UInt(sysconf(Int32(_SC_PAGESIZE)))
        let start = UInt(bitPattern: base) & ~(page - 1)
        let end = UInt(bitPattern: base) + UInt(mapping.count)
        _ = madvise(UnsafeMutableRawPointer(bitPattern: start), Int(end - start), MADV_DONTNEED)
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
