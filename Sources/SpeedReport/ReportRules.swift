import Foundation

/// The thresholds of the report (docs/report.md, "Worse", kept in docs/report.md). Budgets, which a
/// team changes, are in `ReportBudgets`; these are the rules that say what "worse" means.
public enum ReportRules {
    /// An interval needs this many samples for its numbers to be printed and compared.
    public static let enoughSamples = 20
    /// Rates (hangs, hitches, memory) need this many foreground hours in both builds.
    public static let enoughForegroundHours = 2.0
    /// An interval's p95 is worse when it rose by this fraction…
    public static let intervalRiseFraction = 0.10
    /// …and by at least this many ms (one frame at 120 Hz).
    public static let intervalRiseMilliseconds = 8.0
    /// Hangs are worse when they rose by this many s/h.
    public static let hangRiseSecondsPerHour = 0.5
    /// A hang this long or longer is a long hang.
    public static let longHangSeconds = 1.0
    /// The first bucket of a hang histogram that holds only hangs over 1 s: (1000, 2000] ms.
    static let longHangBucket = 15
    /// Scroll hitches are worse when they rose by this many ms/s.
    public static let hitchRiseMillisecondsPerSecond = 2.0
    /// Memory peak is worse when it rose by this fraction and by at least this many MB.
    public static let memoryRiseFraction = 0.10
    public static let memoryRiseMegabytes = 20.0
    /// Terminations (ours, not the seed's; docs/report.md, "Terminations"): an exit reason other than
    /// a normal exit or a memory-pressure exit in the background is worse when it appears, or when
    /// its rate per foreground hour rose by this fraction…
    public static let exitRiseFraction = 0.5
    /// …and by at least this many per foreground hour (one in ten hours).
    public static let exitRisePerHour = 0.1
    /// Comparisons allow for floating-point noise: 110 is 10% above 100 even if 100 × 1.1 is not
    /// exactly 110 in binary.
    static let tolerance = 1e-9
}

/// The budgets a report measures against (docs/design.md, "Budgets"). `--budgets FILE` replaces them.
public struct ReportBudgets: Sendable, Equatable {
    /// p95 budget in ms per interval, in the order the report lists them.
    public var intervals: [(name: String, p95: Double)]
    /// Scroll hitches: good under this many ms/s.
    public var hitchMillisecondsPerSecond: Double
    /// Steady memory, MB.
    public var memoryMegabytes: Double

    public static let seed = ReportBudgets(
        intervals: [
            ("keystroke_render", 33), ("send_bubble", 50), ("arrive_drawn", 150), ("swipe", 420),
            ("fullscreen_open", 100), ("thread_open", 300), ("thread_open_cold", 800), ("launch", 1000),
            ("resume", 200), ("launch_mk", 1000), ("resume_mk", 200),
        ],
        hitchMillisecondsPerSecond: 5, memoryMegabytes: 300)

    public func budget(interval name: String) -> Double? {
        intervals.first { $0.name == name }?.p95
    }

    /// Where an interval goes in the table: budgeted intervals in budget order, then the others by name.
    func order(_ name: String) -> (Int, String) {
        (intervals.firstIndex { $0.name == name } ?? intervals.count, name)
    }

    public static func == (lhs: ReportBudgets, rhs: ReportBudgets) -> Bool {
        lhs.intervals.map(\.name) == rhs.intervals.map(\.name) && lhs.intervals.map(\.p95) == rhs.intervals.map(\.p95)
            && lhs.hitchMillisecondsPerSecond == rhs.hitchMillisecondsPerSecond && lhs.memoryMegabytes == rhs.memoryMegabytes
    }
}

extension ReportBudgets {
    /// A problem with a budgets file, in words that name the key.
    public struct FileError: Error, CustomStringConvertible {
        public let description: String
    }

    /// Reads `--budgets FILE` on top of `base`:
    /// `{"intervals": {"keystroke_render": 33, "my_interval": 120}, "hitch_ms_per_s": 5, "memory_mb": 300}`.
    /// Every key is optional; an interval's budget replaces the default, a new interval is added
    /// after them, and `null` removes one.
    public init(json bytes: [UInt8], base: ReportBudgets = .seed) throws(FileError) {
        self = base
        let document: Any
        do {
            document = try JSONSerialization.jsonObject(with: Data(bytes))
        } catch {
            throw FileError(description: "not valid JSON")
        }
        guard let object = document as? [String: Any] else { throw FileError(description: "not a JSON object") }
        for key in object.keys where !["intervals", "hitch_ms_per_s", "memory_mb"].contains(key) {
            throw FileError(description: "key \(key): unknown (intervals, hitch_ms_per_s and memory_mb are read)")
        }
        func budget(_ value: Any, _ key: String) throws(FileError) -> Double {
            // `true` comes back as an NSNumber too; its class name is the only way to tell on Linux.
            guard let number = value as? NSNumber, !String(describing: type(of: value)).contains("Boolean"),
                number.doubleValue.isFinite,
                number.doubleValue > 0
            else { throw FileError(description: "key \(key): not a positive number") }
            return number.doubleValue
        }
        if let intervals = object["intervals"] {
            guard let intervals = intervals as? [String: Any] else { throw FileError(description: "key intervals: not an object") }
            for name in intervals.keys.sorted() {
                let value = intervals[name]!
                let index = self.intervals.firstIndex { $0.name == name }
                if value is NSNull {
                    if let index { self.intervals.remove(at: index) }
                    continue
                }
                let p95 = try budget(value, "intervals.\(name)")
                if let index { self.intervals[index].p95 = p95 } else { self.intervals.append((name, p95)) }
            }
        }
        if let value = object["hitch_ms_per_s"] { hitchMillisecondsPerSecond = try budget(value, "hitch_ms_per_s") }
        if let value = object["memory_mb"] { memoryMegabytes = try budget(value, "memory_mb") }
    }
}
