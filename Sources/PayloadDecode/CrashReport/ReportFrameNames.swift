import Synchronization

/// The names crash reports already give their frames, by image UUID and offset, gathered as the
/// reports are read: a row keeps no names (the table holds numbers and frames only), so
/// `symbolicate` and `top` find here what the report said of a frame no debug file of ours
/// answers (docs/crash-reports.md, "The report's own names"). One image's code at one offset is
/// one function whichever report names it, so the first name met is kept.
public final class ReportFrameNames: Sendable {
    public struct Key: Hashable, Sendable {
        public var uuid: String
        public var offset: UInt64

        public init(uuid: String, offset: UInt64) {
            self.uuid = uuid
            self.offset = offset
        }
    }

    /// At most this many frames are kept: a run over a million reports stays within a few hundred
    /// megabytes; frames past it are named by debug files only.
    public static let capacity = 1 << 20

    private let names = Mutex<[Key: [AppleCrashReport.ReportName]]>([:])

    public init() {}

    /// Keeps the names of every frame of `report` (threads and the last exception backtrace).
    public func add(_ report: AppleCrashReport) {
        names.withLock { names in
            for frame in report.threads.flatMap(\.frames) + report.lastExceptionBacktrace where !frame.names.isEmpty {
                guard names.count < Self.capacity, let index = frame.imageIndex, let uuid = report.images[index].uuid else { continue }
                let key = Key(uuid: uuid, offset: frame.imageOffset)
                if names[key] == nil { names[key] = frame.names }
            }
        }
    }

    /// The report's names for a frame, innermost first; `nil` when no report named it.
    public func names(uuid: String?, offset: UInt64) -> [AppleCrashReport.ReportName]? {
        guard let uuid else { return nil }
        return names.withLock { $0[Key(uuid: uuid, offset: offset)] }
    }

    public var isEmpty: Bool { names.withLock { $0.isEmpty } }
}
