import Foundation
import PayloadDecode

/// One thing that got worse from the previous build to this one (docs/report.md, "Worse").
public struct Regression: Sendable, Equatable {
    /// What got worse: `interval:arrive_drawn`, `hangs`, `long_hangs`, `hitches`, `memory_peak`,
    /// `memory_steady` or `crash`.
    public var what: String
    /// The briefing's clause, e.g. `is slower where agent messages land (arrive p95 172 ms, was
    /// 128, budget 150)`.
    public var text: String
    /// How much worse, to pick the worst one or two for the briefing: a new crash ranks first, then
    /// the ratio of the new figure to the old.
    public var severity: Double
    /// A new crash's signature.
    public var signature: String?
    /// The share of resamples by phone in which the rule still fires (`RegressionConfidence`);
    /// `nil` when neither build's phones are known (both from stored summaries).
    public var confidence: Double?

    public init(what: String, text: String, severity: Double, signature: String? = nil, confidence: Double? = nil) {
        self.what = what
        self.text = text
        self.severity = severity
        self.signature = signature
        self.confidence = confidence
    }
}

/// The rules of docs/report.md, "Worse", one function per rule so each threshold is tested on both sides.
public enum WorseRules {
    /// An interval's p95: up by 10% or more and by at least 8 ms, or it crossed its budget.
    public static func interval(new: Double, old: Double, budget: Double?) -> Bool {
        let rose =
            new >= old * (1 + ReportRules.intervalRiseFraction) - ReportRules.tolerance
            && new - old >= ReportRules.intervalRiseMilliseconds - ReportRules.tolerance
        return rose || crossed(new: new, old: old, limit: budget)
    }

    /// Hangs: up by at least 0.5 s per foreground hour.
    public static func hangs(new: Double, old: Double) -> Bool {
        new - old >= ReportRules.hangRiseSecondsPerHour - ReportRules.tolerance
    }

    /// A long hang (1 s or more) where the previous build had none.
    public static func longHangAppeared(new: Int, old: Int) -> Bool { new > 0 && old == 0 }

    /// Scroll hitches: up by at least 2 ms/s, or they crossed the budget (5 ms/s).
    public static func hitches(new: Double, old: Double, budget: Double) -> Bool {
        new - old >= ReportRules.hitchRiseMillisecondsPerSecond - ReportRules.tolerance
            || crossed(new: new, old: old, limit: budget)
    }

    /// Memory peak: up by 10% or more and by at least 20 MB.
    public static func memoryPeak(new: Double, old: Double) -> Bool {
        new >= old * (1 + ReportRules.memoryRiseFraction) - ReportRules.tolerance
            && new - old >= ReportRules.memoryRiseMegabytes - ReportRules.tolerance
    }

    /// Steady memory crossed its budget.
    public static func memorySteady(new: Double, old: Double, budget: Double) -> Bool {
        crossed(new: new, old: old, limit: budget)
    }

    /// Terminations of one reason (ours, not the seed's): they appeared, or their rate per foreground
    /// hour rose by half and by at least one in ten hours. Normal exits and the background's memory
    /// pressure exits (the system reclaiming a suspended app's memory) are never worse.
    public static func exits(name: String, new: Double, old: Double, newCount: Int, oldCount: Int) -> Bool {
        guard let (reason, background) = ExitReason.of(rowName: name), reason.isUnwanted(background: background) else { return false }
        if newCount > 0 && oldCount == 0 { return true }
        return new >= old * (1 + ReportRules.exitRiseFraction) - ReportRules.tolerance
            && new - old >= ReportRules.exitRisePerHour - ReportRules.tolerance
    }

    /// Crash signatures the previous build did not have. A signature with an unnamed app frame
    /// (`YuiApp+0x4f10`) is left out: offsets move from build to build, so it would look new
    /// every time (docs/report.md, "New crashes").
    public static func newCrashes(new: [String], old: [String]) -> [String] {
        let known = Set(old)
        return new.filter { !known.contains($0) && !$0.contains("+0x") }.sorted()
    }

    /// Past the limit now and not before: a figure that stays over its budget is reported by
    /// `OVER`, not again as worse every day.
    static func crossed(new: Double, old: Double, limit: Double?) -> Bool {
        guard let limit else { return false }
        return new > limit && old <= limit
    }
}

/// Applies `WorseRules` to two builds' figures and words each finding for the briefing.
enum BuildComparison {
    static func regressions(
        current: BuildFigures, previous: BuildFigures, budgets: ReportBudgets
    ) -> [Regression] {
        guard current.hasEnoughData, previous.hasEnoughData else { return [] }
        var found: [Regression] = []
        for name in intervalNames(current, previous, budgets) {
            guard let new = current.intervals[name], let old = previous.intervals[name],
                new.n >= ReportRules.enoughSamples, old.n >= ReportRules.enoughSamples,
                let newP95 = new.p95, let oldP95 = old.p95
            else { continue }
            let budget = budgets.budget(interval: name)
            guard WorseRules.interval(new: newP95, old: oldP95, budget: budget) else { continue }
            let words = IntervalWords.of(name)
            var numbers = "\(words.short) p95 \(Format.whole(newP95)) ms, was \(Format.whole(oldP95))"
            if let budget { numbers += ", budget \(Format.whole(budget))" }
            found.append(
                Regression(what: "interval:\(name)", text: "is slower \(words.place) (\(numbers))", severity: ratio(newP95, oldP95)))
        }
        if current.hasEnoughForRates, previous.hasEnoughForRates {
            if let new = current.hangRate, let old = previous.hangRate, WorseRules.hangs(new: new, old: old) {
                found.append(
                    Regression(
                        what: "hangs", text: "hangs more (\(Format.tenths(new)) s/h, was \(Format.tenths(old)))",
                        severity: ratio(new, old)))
            }
            if WorseRules.longHangAppeared(new: current.longHangs, old: previous.longHangs) {
                let count = current.longHangs == 1 ? "a long hang" : "\(current.longHangs) long hangs"
                found.append(
                    Regression(what: "long_hangs", text: "has \(count) (1 s or more), where build \(previous.build) had none", severity: 2))
            }
            if let new = current.hitchRatio, let old = previous.hitchRatio,
                WorseRules.hitches(new: new, old: old, budget: budgets.hitchMillisecondsPerSecond)
            {
                found.append(
                    Regression(
                        what: "hitches",
                        text:
                            "scrolls less smoothly (hitches \(Format.tenths(new)) ms/s, was \(Format.tenths(old)), good under \(Format.number(budgets.hitchMillisecondsPerSecond)))",
                        severity: ratio(new, old)))
            }
            found += exitRegressions(current: current, previous: previous)
            if let new = current.memoryPeak, let old = previous.memoryPeak, WorseRules.memoryPeak(new: new, old: old) {
                found.append(
                    Regression(
                        what: "memory_peak", text: "uses more memory (peak \(Format.whole(new)) MB, was \(Format.whole(old)))",
                        severity: ratio(new, old)))
            }
            if let new = current.steadyMemory, let old = previous.steadyMemory,
                WorseRules.memorySteady(new: new, old: old, budget: budgets.memoryMegabytes)
            {
                found.append(
                    Regression(
                        what: "memory_steady",
                        text:
                            "uses more memory (steady \(Format.whole(new)) MB, was \(Format.whole(old)), budget \(Format.whole(budgets.memoryMegabytes)))",
                        severity: ratio(new, old)))
            }
        }
        for signature in WorseRules.newCrashes(new: current.crashSignatures, old: previous.crashSignatures) {
            found.append(
                Regression(what: "crash", text: "has a new crash (\(signature))", severity: .infinity, signature: signature))
        }
        return found
    }

    /// Each exit reason that got worse, in `ExitReason`'s order, foreground first.
    static func exitRegressions(current: BuildFigures, previous: BuildFigures) -> [Regression] {
        guard current.exits != nil || previous.exits != nil else { return [] }
        var found: [Regression] = []
        for background in [false, true] {
            for reason in ExitReason.allCases {
                let name = reason.rowName(background: background)
                let newCount = current.exits?[name] ?? 0
                let oldCount = previous.exits?[name] ?? 0
                guard let new = current.exitRate(name), let old = previous.exitRate(name),
                    WorseRules.exits(name: name, new: new, old: old, newCount: newCount, oldCount: oldCount)
                else { continue }
                let state = background ? "in the background" : "in the foreground"
                let text =
                    oldCount == 0
                    ? "was ended by \(reason.words) \(state) (\(newCount == 1 ? "once" : "\(newCount) times")), where build \(previous.build) never was"
                    : "is ended by \(reason.words) \(state) more often (\(Format.hundredths(new)) per hour, was \(Format.hundredths(old)))"
                found.append(Regression(what: "exit:\(name)", text: text, severity: oldCount == 0 ? 2 : ratio(new, old)))
            }
        }
        return found
    }

    /// The worst one or two, in one sentence; `nil` when nothing got worse.
    /// The seed's app says `Speed: build 125 …`, as the design's example; another names itself
    /// (`Acme speed: build 125 …`), since a briefing may sit beside other apps' in one feed.
    static func briefing(build: Int, regressions: [Regression], appName: String = SpeedReport.defaultAppName) -> String? {
        guard !regressions.isEmpty else { return nil }
        let worst = regressions.enumerated().sorted { lhs, rhs in
            lhs.element.severity != rhs.element.severity ? lhs.element.severity > rhs.element.severity : lhs.offset < rhs.offset
        }.prefix(2).map(\.element.text)
        let lead = appName == SpeedReport.defaultAppName ? "Speed" : "\(appName) speed"
        return "\(lead): build \(build) \(worst.joined(separator: " and "))."
    }

    /// Intervals of either build, budgeted ones first in budget order.
    static func intervalNames(_ current: BuildFigures, _ previous: BuildFigures?, _ budgets: ReportBudgets) -> [String] {
        Set(current.intervals.keys).union(previous?.intervals.keys ?? [:].keys).sorted { budgets.order($0) < budgets.order($1) }
    }

    private static func ratio(_ new: Double, _ old: Double) -> Double {
        old > 0 ? new / old : 1_000_000
    }
}

/// How the briefing names an interval: where the person feels it, and a short label.
struct IntervalWords {
    var place: String
    var short: String

    static func of(_ name: String) -> IntervalWords {
        switch name {
        case "keystroke_render": IntervalWords(place: "when typing", short: "keystroke")
        case "send_bubble": IntervalWords(place: "when sending a message", short: "send")
        case "arrive_drawn": IntervalWords(place: "where agent messages land", short: "arrive")
        case "swipe": IntervalWords(place: "when swiping between threads", short: "swipe")
        case "fullscreen_open": IntervalWords(place: "when opening full screen", short: "full screen")
        case "thread_open": IntervalWords(place: "when opening a thread", short: "thread open")
        case "thread_open_cold": IntervalWords(place: "when opening the first thread after launch", short: "cold thread open")
        case "launch": IntervalWords(place: "at launch", short: "launch")
        case "resume": IntervalWords(place: "when coming back from the background", short: "resume")
        case "launch_mk": IntervalWords(place: "at launch (MetricKit)", short: "launch")
        case "resume_mk": IntervalWords(place: "when coming back from the background (MetricKit)", short: "resume")
        default: IntervalWords(place: "in \(name)", short: name)
        }
    }
}

/// Number formats shared by every output.
enum Format {
    /// Rounded half away from zero to a whole number: `171.6` → `172`.
    static func whole(_ value: Double) -> String {
        guard value.isFinite else { return "-" }
        let rounded = value.rounded(.toNearestOrAwayFromZero)
        return abs(rounded) < 1e15 ? String(Int64(rounded)) : String(format: "%.0f", rounded)
    }

    /// One decimal: `0.8`, `11.2`.
    static func tenths(_ value: Double) -> String {
        guard value.isFinite else { return "-" }
        let tenths = (value * 10).rounded(.toNearestOrAwayFromZero)
        guard abs(tenths) < 1e15 else { return String(format: "%.1f", value) }
        let whole = Int64(tenths) / 10
        let fraction = abs(Int64(tenths) % 10)
        let sign = tenths < 0 && whole == 0 ? "-" : ""
        return "\(sign)\(whole).\(fraction)"
    }

    /// Two decimals: rates of rare events, `0.12`.
    static func hundredths(_ value: Double) -> String {
        guard value.isFinite, abs(value) < 1e13 else { return "-" }
        return String(format: "%.2f", value)
    }

    /// A whole number without decimals, else one decimal: budgets as written (`5`, `7.5`).
    static func number(_ value: Double) -> String {
        value == value.rounded() ? whole(value) : tenths(value)
    }

    /// A signed delta: `+44`, `-6`, `+0`.
    static func signed(_ text: String) -> String {
        text.hasPrefix("-") ? text : "+\(text)"
    }
}
