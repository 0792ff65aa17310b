import Foundation
import SystemIO

// System calls as this module reports them: a failure is a `SymbolizeError.systemCall` naming the
// path (the calls themselves are made by SystemIO).
extension SystemCall {
    /// Opens `path` read-only (close-on-exec); a failure is `<path>: cannot open: <reason>`.
    static func openForReading(_ path: String) throws(SymbolizeError) -> Int32 {
        do throws(FileError) {
            return try FileIO.openForReading(path)
        } catch {
            throw .systemCall(path: error.path, action: error.action, errno: error.errno)
        }
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
