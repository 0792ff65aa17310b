import Foundation
import PayloadDecode
import StackSignature

/// `report --json`: everything the text shows, with stable snake_case keys, every key always
/// present (`null` when unknown), sorted. The briefing reads it (docs/report.md, "Worse").
public enum ReportJSON {
    public static func render(_ report: SpeedReport) -> String {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.prettyPrinted, .sortedKeys, .withoutEscapingSlashes]
        // Plain values cannot fail to encode; an empty object keeps the output valid JSON if they ever did.
        let data = (try? encoder.encode(Document(report))) ?? Data("{}".utf8)
        return String(decoding: data, as: UTF8.self) + "\n"
    }

    /// Numbers as the text prints them are for people; JSON carries them rounded to a thousandth,
    /// so the briefing can compare without floating-point noise.
    static func rounded(_ value: Double?) -> Double? {
        guard let value, value.isFinite else { return nil }
        return (value * 1000).rounded(.toNearestOrAwayFromZero) / 1000
    }

    private struct Document: Encodable {
        let report: SpeedReport
        init(_ report: SpeedReport) { self.report = report }

        enum Keys: String, CodingKey {
            case app, bundle_id, build, previous, days, window_start, window_end, phones, foreground_hours, enough_data
            case intervals, hangs, hitches, memory, cpu, crashes, worst_stacks, worse, min_confidence, briefing, history
            case terminations, disk_writes
        }

        func encode(to encoder: any Encoder) throws {
            var container = encoder.container(keyedBy: Keys.self)
            let current = report.current
            let previous = report.previous
            try container.encode(report.appName, forKey: .app)
            try container.encode(report.bundleID, forKey: .bundle_id)
            try container.encode(report.build, forKey: .build)
            try container.encode(previous?.build, forKey: .previous)
            try container.encode(report.days, forKey: .days)
            try container.encode(report.window.flatMap { Timestamp.iso8601($0.lowerBound) }, forKey: .window_start)
            try container.encode(report.window.flatMap { Timestamp.iso8601($0.upperBound) }, forKey: .window_end)
            try container.encode(current.phones.count, forKey: .phones)
            try container.encode(rounded(current.foregroundHours), forKey: .foreground_hours)
            try container.encode(current.hasEnoughData, forKey: .enough_data)
            try container.encode(report.intervalLines.map(Interval.init), forKey: .intervals)
            try container.encode(
                Figure(
                    value: current.hangRate, previous: previous?.hangRate, budget: nil, unit: "s/h",
                    worse: report.isWorse("hangs") || report.isWorse("long_hangs"), long: current.longHangs),
                forKey: .hangs)
            try container.encode(
                Figure(
                    value: current.hitchRatio, previous: previous?.hitchRatio, budget: report.budgets.hitchMillisecondsPerSecond,
                    unit: "ms/s", worse: report.isWorse("hitches"), long: nil),
                forKey: .hitches)
            try container.encode(Memory(report: report), forKey: .memory)
            try container.encode(
                Figure(value: current.cpuPercent, previous: previous?.cpuPercent, budget: nil, unit: "%", worse: false, long: nil), forKey: .cpu)
            try container.encode(
                Crashes(
                    count: current.crashes, previous: previous?.crashes, new_signatures: report.newCrashSignatures,
                    causes: report.crashCauses.map { JSONCrashCause($0.cause, count: $0.count) }), forKey: .crashes)
            try container.encode(report.worstStacks.map(Stack.init), forKey: .worst_stacks)
            try container.encode(OrganizerFigures.exitNames(report).map { Termination(report: report, name: $0) }, forKey: .terminations)
            try container.encode(
                Figure(
                    value: current.diskWritesPerDay, previous: previous?.diskWritesPerDay, budget: nil, unit: "MB/day", worse: false,
                    long: nil), forKey: .disk_writes)
            try container.encode(
                report.regressions.map { Worse(what: $0.what, text: $0.text, confidence: rounded($0.confidence)) }, forKey: .worse)
            try container.encode(report.minConfidence, forKey: .min_confidence)
            try container.encode(report.briefing, forKey: .briefing)
            try container.encode(report.history.map { History(figures: $0, budgets: report.budgets) }, forKey: .history)
        }
    }

    private struct Interval: Encodable {
        let line: SpeedReport.IntervalLine
        enum Keys: String, CodingKey { case name, n, p50, p95, budget, over, delta_p95, worse }
        func encode(to encoder: any Encoder) throws {
            var container = encoder.container(keyedBy: Keys.self)
            try container.encode(line.name, forKey: .name)
            try container.encode(line.n, forKey: .n)
            try container.encode(rounded(line.p50), forKey: .p50)
            try container.encode(rounded(line.p95), forKey: .p95)
            try container.encode(line.budget, forKey: .budget)
            try container.encode(line.over, forKey: .over)
            try container.encode(line.deltaP95, forKey: .delta_p95)
            try container.encode(line.worse, forKey: .worse)
        }
    }

    private struct Figure: Encodable {
        let value: Double?
        let previous: Double?
        let budget: Double?
        let unit: String
        let worse: Bool
        /// Hangs only: how many lasted 1 s or more.
        let long: Int?
        struct Key: CodingKey {
            var stringValue: String
            var intValue: Int? { nil }
            init(_ string: String) { stringValue = string }
            init?(stringValue: String) { self.stringValue = stringValue }
            init?(intValue: Int) { nil }
        }
        func encode(to encoder: any Encoder) throws {
            var container = encoder.container(keyedBy: Key.self)
            try container.encode(rounded(value), forKey: Key("value"))
            try container.encode(rounded(previous), forKey: Key("previous"))
            try container.encode(budget, forKey: Key("budget"))
            try container.encode(unit, forKey: Key("unit"))
            try container.encode(worse, forKey: Key("worse"))
            try container.encodeIfPresent(long, forKey: Key("long"))
        }
    }

    private struct Memory: Encodable {
        let report: SpeedReport
        enum Keys: String, CodingKey { case peak, previous_peak, steady, previous_steady, growth_30min, warnings, budget, unit, worse }
        func encode(to encoder: any Encoder) throws {
            var container = encoder.container(keyedBy: Keys.self)
            try container.encode(rounded(report.current.memoryPeak), forKey: .peak)
            try container.encode(rounded(report.previous?.memoryPeak), forKey: .previous_peak)
            try container.encode(rounded(report.current.steadyMemory), forKey: .steady)
            try container.encode(rounded(report.previous?.steadyMemory), forKey: .previous_steady)
            try container.encode(rounded(report.current.growth), forKey: .growth_30min)
            try container.encode(rounded(report.current.memoryWarnings), forKey: .warnings)
            try container.encode(report.budgets.memoryMegabytes, forKey: .budget)
            try container.encode("MB", forKey: .unit)
            try container.encode(report.isWorse("memory_peak") || report.isWorse("memory_steady"), forKey: .worse)
        }
    }

    private struct Crashes: Encodable {
        let count: Int
        let previous: Int?
        let new_signatures: [String]
        /// By reason, most first; crashes whose rows carry none are not in it.
        let causes: [JSONCrashCause]
        enum Keys: String, CodingKey { case count, previous, new_signatures, causes }
        func encode(to encoder: any Encoder) throws {
            var container = encoder.container(keyedBy: Keys.self)
            try container.encode(count, forKey: .count)
            try container.encode(causes, forKey: .causes)
            try container.encode(previous, forKey: .previous)
            try container.encode(new_signatures, forKey: .new_signatures)
        }
    }

    private struct Stack: Encodable {
        let group: SignatureGroup
        enum Keys: String, CodingKey { case kind, seconds, count, phones, causes, max, signature, system }
        func encode(to encoder: any Encoder) throws {
            var container = encoder.container(keyedBy: Keys.self)
            try container.encode(group.kind.rawValue, forKey: .kind)
            try container.encode(rounded(group.weight), forKey: .seconds)
            try container.encode(group.count, forKey: .count)
            try container.encode(group.phones.count, forKey: .phones)
            try container.encode(group.rankedCauses.map { JSONCrashCause($0.cause, count: $0.count) }, forKey: .causes)
            try container.encode(rounded(group.max), forKey: .max)
            try container.encode(group.signature.text, forKey: .signature)
            try container.encode(group.signature.isSystem, forKey: .system)
        }
    }

    /// One exit reason of either build: counts and rates per foreground hour.
    private struct Termination: Encodable {
        let report: SpeedReport
        let name: String
        enum Keys: String, CodingKey { case name, state, reason, count, per_hour, previous_count, previous_per_hour, worse }
        func encode(to encoder: any Encoder) throws {
            var container = encoder.container(keyedBy: Keys.self)
            let (reason, background) = ExitReason.of(rowName: name) ?? (.normal, false)
            try container.encode(name, forKey: .name)
            try container.encode(background ? "background" : "foreground", forKey: .state)
            try container.encode(reason.rawValue, forKey: .reason)
            try container.encode(report.current.exits.map { $0[name] ?? 0 }, forKey: .count)
            try container.encode(rounded(report.current.countedExitRate(name)), forKey: .per_hour)
            try container.encode(report.previous?.exits.map { $0[name] ?? 0 }, forKey: .previous_count)
            let previous = report.previous?.countedExitRate(name)
            try container.encode(rounded(previous), forKey: .previous_per_hour)
            try container.encode(report.isWorse("exit:\(name)"), forKey: .worse)
        }
    }

    private struct Worse: Encodable {
        let what: String
        let text: String
        /// The share of resamples by phone in which the rule still fires; `null` when unknown.
        let confidence: Double?
        enum Keys: String, CodingKey { case what, text, confidence }
        func encode(to encoder: any Encoder) throws {
            var container = encoder.container(keyedBy: Keys.self)
            try container.encode(what, forKey: .what)
            try container.encode(text, forKey: .text)
            try container.encode(confidence, forKey: .confidence)
        }
    }

    private struct History: Encodable {
        let figures: BuildFigures
        let budgets: ReportBudgets
        enum Keys: String, CodingKey { case build, p95, hangs, hitches, memory_peak }
        func encode(to encoder: any Encoder) throws {
            var container = encoder.container(keyedBy: Keys.self)
            try container.encode(figures.build, forKey: .build)
            var p95: [String: Double?] = [:]
            for (name, interval) in figures.intervals {
                p95[name] = interval.n >= ReportRules.enoughSamples ? rounded(interval.p95) : nil
            }
            try container.encode(p95, forKey: .p95)
            try container.encode(rounded(figures.hangRate), forKey: .hangs)
            try container.encode(rounded(figures.hitchRatio), forKey: .hitches)
            try container.encode(rounded(figures.memoryPeak), forKey: .memory_peak)
        }
    }
}
