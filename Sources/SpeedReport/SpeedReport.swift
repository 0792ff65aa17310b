import PayloadDecode
import StackSignature

/// The daily speed report of one build against the previous build with enough data (docs/report.md): every figure the text, `--json`, `--briefing` and `--yl` outputs show.
public struct SpeedReport: Sendable {
    /// The reported build's figures over the window.
    public var current: BuildFigures
    /// The build it is compared with: the newest earlier build with enough data, or `nil`.
    public var previous: BuildFigures?
    /// The last builds with enough data, oldest first, ending with `current` (at most five): the
    /// panel's sparks and chart.
    public var history: [BuildFigures]
    /// `--days`.
    public var days: Int
    /// The window's first and last second (since 1970); `nil` when the build's figures are not from
    /// the window (`--build` of a build with no rows in it: all its rows, or its stored summary).
    public var window: ClosedRange<Int64>?
    /// What the figures cover, for the header: `last 24 h`, `last 7 days`, `all its rows`, `stored summary`.
    public var coverage: String
    public var budgets: ReportBudgets
    /// The build's heaviest hang and crash signatures over the window, heaviest first.
    public var worstStacks: [SignatureGroup]
    /// The build's hang stacks as trees for the page's icicle graphs (`report --html` only).
    public var flames: ReportFlames?
    /// The build's intervals by device model and OS over the same rows (`report --html` only).
    public var breakdown: ReportBreakdown?
    /// The build's crashes by reason over the same rows, most first; crashes whose rows carry no
    /// reason are in `current.crashes` only. Empty for a stored summary, which keeps no reasons.
    public var crashCauses: [(cause: CrashCause, count: Int)] = []
    /// What got worse, each with its confidence when the builds' phones are known.
    public let regressions: [Regression]
    /// `--min-confidence`: items below it stay in the report, marked, and are left out of the
    /// briefing. 0 (the default) keeps every item, as the seed's rule does.
    public let minConfidence: Double
    /// The briefing's one line, or `nil` on a good or unchanged day.
    public let briefing: String?
    /// The app's name in the title (`Yui speed, build 125 vs 124`) and the briefing (`report --app-name`).
    public let appName: String
    /// The app's bundle identifier, when its rows name one (`report --bundle-id`, JSON's `bundle_id`).
    public let bundleID: String?
    /// The seed's app: its report reads as the design's example.
    public static let defaultAppName = "Yui"

    public init(
        current: BuildFigures, previous: BuildFigures?, history: [BuildFigures], days: Int, window: ClosedRange<Int64>?,
        coverage: String, budgets: ReportBudgets, worstStacks: [SignatureGroup], appName: String = SpeedReport.defaultAppName,
        bundleID: String? = nil, phones: (current: RegressionConfidence.Phones, previous: RegressionConfidence.Phones)? = nil,
        minConfidence: Double = 0
    ) {
        self.appName = appName
        self.bundleID = bundleID
        self.current = current
        self.previous = previous
        self.history = history
        self.days = days
        self.window = window
        self.coverage = coverage
        self.budgets = budgets
        self.worstStacks = worstStacks
        var found = previous.map { BuildComparison.regressions(current: current, previous: $0, budgets: budgets) } ?? []
        if let phones {
            let confidences = RegressionConfidence.confidences(
                of: found, current: phones.current, previous: phones.previous, budgets: budgets)
            for index in found.indices { found[index].confidence = confidences[index] }
        }
        regressions = found
        self.minConfidence = minConfidence
        briefing = BuildComparison.briefing(
            build: current.build, regressions: found.filter { $0.isConfident(minConfidence) }, appName: appName)
    }

    public var build: Int { current.build }

    /// One line of the interval table.
    public struct IntervalLine: Sendable, Equatable {
        public var name: String
        public var n: Int
        /// `nil` when the interval has fewer than 20 samples: the report prints `-`.
        public var p50: Double?
        public var p95: Double?
        public var budget: Double?
        public var over: Bool
        /// p95 minus the previous build's, both as printed (whole ms), so the column adds up with
        /// the numbers beside it; `nil` when either build has fewer than 20 samples.
        public var deltaP95: Int?
        public var worse: Bool
        /// Worse, but below `--min-confidence`.
        public var doubtful = false
    }

    /// The interval table: every interval with rows in this build or the previous one, budgeted
    /// intervals first in the budgets' order.
    public var intervalLines: [IntervalLine] {
        BuildComparison.intervalNames(current, previous, budgets).map { name in
            let figures = current.intervals[name] ?? IntervalFigures()
            let enough = figures.n >= ReportRules.enoughSamples
            let p95 = enough ? figures.p95 : nil
            let budget = budgets.budget(interval: name)
            var delta: Int?
            if let p95, let old = previous?.intervals[name], old.n >= ReportRules.enoughSamples, let oldP95 = old.p95 {
                let (new, old) = (p95.rounded(.toNearestOrAwayFromZero), oldP95.rounded(.toNearestOrAwayFromZero))
                // A forged row file can carry a p95 of 1e38 ms; such a delta is left out, not trapped on.
                if abs(new) < 1e15, abs(old) < 1e15 { delta = Int(new) - Int(old) }
            }
            return IntervalLine(
                name: name, n: figures.n, p50: enough ? figures.p50 : nil, p95: p95, budget: budget,
                over: p95.map { p95 in budget.map { p95 > $0 } ?? false } ?? false, deltaP95: delta,
                worse: isWorse("interval:\(name)"), doubtful: isDoubtful(["interval:\(name)"]))
        }
    }

    /// Crash signatures this build has and the previous one did not (named ones only).
    public var newCrashSignatures: [String] {
        regressions.filter { $0.what == "crash" }.compactMap { regression in
            current.crashSignatures.first { regression.text == "has a new crash (\($0))" }
        }
    }

    func isWorse(_ what: String) -> Bool { regressions.contains { $0.what == what } }

    /// The items of `whats` that are worse but below `--min-confidence`: the text marks them `WORSE?`.
    func isDoubtful(_ whats: [String]) -> Bool {
        let items = regressions.filter { whats.contains($0.what) }
        return !items.isEmpty && !items.contains { $0.isConfident(minConfidence) }
    }
}

/// The hang stacks of the reported build in the window, for `report --html`: all of them, and per
/// signature (the worst stacks each open the graph of their own stacks).
public struct ReportFlames: Sendable {
    public var all: FlameTree
    public var bySignature: [String: FlameTree]

    public init(all: FlameTree, bySignature: [String: FlameTree]) {
        self.all = all
        self.bySignature = bySignature
    }
}
