import StackSignature

/// `report --yl`: the Speed panel's lines of docs/report.md, "--yl". Each line keeps its id (`speed-keys`,
/// …), so the war room patches the numbers in place when a new build's data comes in.
public enum PanelLines {
    public static func render(_ report: SpeedReport) -> String {
        var lines = tiles(report).map { tile in
            stat(
                tile.id, tile.value.map { tile.format($0) + tile.unit } ?? "-", tile.title, delta: tile.delta,
                spark: tile.spark.map { $0.map(tile.format) ?? "-" }, sub: tile.sub)
        }
        let chart = p95Chart(report)
        lines.append(
            "chart@speed-p95 line \"p95 by build\" x=\(chart.builds.map(String.init).joined(separator: "|")) "
                + chart.series.enumerated().map { index, series in
                    "y\(index == 0 ? "" : String(index + 1))=\(series.values.map { $0.map(Format.whole) ?? "-" }.joined(separator: "|"))"
                }.joined(separator: " ")
                + " names=\(chart.series.map { $0.title.contains(" ") ? quoted($0.title) : $0.title }.joined(separator: "|")) unit=ms")
        lines.append(worstCard(report))
        return lines.map { $0 + "\n" }.joined()
    }

    /// One of the panel's five tiles: the number people feel, its delta against the previous build
    /// and a spark over the last five builds. Good is down for all five.
    public struct Tile: Sendable {
        public var id: String
        public var title: String
        public var value: Double?
        public var unit: String
        /// The difference of the printed figures, `nil` without a build to compare with.
        public var delta: String?
        /// Oldest first, ending with this build; `nil` where a build has no figure.
        public var spark: [Double?]
        public var sub: String
        public var format: @Sendable (Double) -> String

        /// The delta went the bad way (up).
        public var isWorse: Bool { delta.flatMap(Double.init).map { $0 > 0 } ?? false }
    }

    /// Whether the app sends the phone's signpost intervals (the seed's typing, send, messages
    /// landing, ...): rows of intervals other than MetricKit's `launch_mk` and `resume_mk` in the
    /// reported build or the ones drawn with it. A MetricKit-only app has none, and its tiles and
    /// chart are MetricKit's own figures instead (docs/report.md, "Tiles").
    public static func hasSignposts(_ report: SpeedReport) -> Bool {
        ([report.current] + report.history).contains { figures in
            figures.intervals.contains { !$0.key.hasSuffix("_mk") && $0.value.n > 0 }
        }
    }

    public static func tiles(_ report: SpeedReport) -> [Tile] {
        let build = report.build
        let history = report.history
        var tiles: [Tile] = []
        if hasSignposts(report) {
            for (id, name, title) in [("speed-keys", "keystroke_render", "Typing, p95"), ("speed-arrive", "arrive_drawn", "Messages land, p95")] {
                let line = report.intervalLines.first { $0.name == name }
                var sub = "build \(build)"
                if let budget = report.budgets.budget(interval: name) { sub += " · budget \(Format.number(budget))" }
                tiles.append(
                    Tile(
                        id: id, title: title, value: line?.p95, unit: "ms", delta: line?.deltaP95.map(String.init),
                        spark: history.map { intervalP95($0, name) }, sub: sub, format: Format.whole))
            }
        } else {
            // MetricKit's launch and resume histograms. A day of one app's launches is often under
            // the table's 20 samples, so the tile shows the p95 of what there is, with its count;
            // the delta, as in the table, only with 20 in both builds.
            for (id, name, title, what) in [
                ("speed-launch", "launch_mk", "Launch, p95", "launches"), ("speed-resume", "resume_mk", "Resume, p95", "resumes"),
            ] {
                let interval = report.current.intervals[name]
                var sub = "build \(build) · \(interval?.n ?? 0) \(what)"
                if let budget = report.budgets.budget(interval: name) { sub += " · budget \(Format.number(budget))" }
                let delta = report.intervalLines.first { $0.name == name }?.deltaP95.map(String.init)
                tiles.append(
                    Tile(
                        id: id, title: title, value: interval.flatMap { $0.n > 0 ? $0.p95 : nil }, unit: "ms", delta: delta,
                        spark: history.map { anyP95($0, name) }, sub: sub, format: Format.whole))
            }
        }
        tiles.append(
            Tile(
                id: "speed-hitch", title: "Scroll hitches", value: report.current.hitchRatio, unit: "ms/s",
                delta: delta(report.current.hitchRatio, report.previous?.hitchRatio, Format.tenths),
                spark: history.map(\.hitchRatio), sub: "under \(Format.number(report.budgets.hitchMillisecondsPerSecond)) is smooth",
                format: Format.tenths))
        tiles.append(
            Tile(
                id: "speed-hangs", title: "Hangs", value: report.current.hangRate, unit: "s/h",
                delta: delta(report.current.hangRate, report.previous?.hangRate, Format.tenths),
                spark: history.map(\.hangRate), sub: "per foreground hour", format: Format.tenths))
        tiles.append(
            Tile(
                id: "speed-mem", title: "Memory peak", value: report.current.memoryPeak, unit: "MB",
                delta: delta(report.current.memoryPeak, report.previous?.memoryPeak, Format.whole),
                spark: history.map(\.memoryPeak), sub: "budget \(Format.number(report.budgets.memoryMegabytes))",
                format: Format.whole))
        // Organizer's Terminations pane, for an app whose payloads carry exit counts (the seed's
        // rows have none, so its panel keeps its five tiles).
        if ([report.current] + history).contains(where: { $0.exits != nil }) {
            let rate = OrganizerFigures.unwantedExitRate(report.current)
            tiles.append(
                Tile(
                    id: "speed-exits", title: "Terminations", value: rate, unit: "/h",
                    delta: delta(rate, report.previous.flatMap(OrganizerFigures.unwantedExitRate), Format.hundredths),
                    spark: history.map(OrganizerFigures.unwantedExitRate), sub: "build \(build) · not normal, per foreground hour",
                    format: Format.hundredths))
        }
        return tiles
    }

    /// The chart of three intervals' p95 over the last five builds (docs/report.md, "--yl"): thread open and
    /// launch live in the report, since on one axis with typing they would flatten it.
    public struct Chart: Sendable {
        public var builds: [Int]
        public var series: [(title: String, interval: String, values: [Double?])]
    }

    public static func p95Chart(_ report: SpeedReport) -> Chart {
        guard hasSignposts(report) else {
            // A MetricKit-only app: its launch and resume p95, whatever their sample count, as the tiles.
            return Chart(
                builds: report.history.map(\.build),
                series: [("Launch", "launch_mk"), ("Resume", "resume_mk")].map { title, name in
                    (title, name, report.history.map { anyP95($0, name) })
                })
        }
        return Chart(
            builds: report.history.map(\.build),
            series: [("Typing", "keystroke_render"), ("Send", "send_bubble"), ("Messages land", "arrive_drawn")].map { title, name in
                (title, name, report.history.map { intervalP95($0, name) })
            })
    }

    /// A build's p95 of an interval, as printed (whole ms), when it has any sample.
    static func anyP95(_ figures: BuildFigures, _ name: String) -> Double? {
        guard let interval = figures.intervals[name], interval.n > 0, let p95 = interval.p95 else { return nil }
        return Double(Format.whole(p95))
    }

    /// A build's p95 of an interval, as printed (whole ms), when it has 20 samples.
    static func intervalP95(_ figures: BuildFigures, _ name: String) -> Double? {
        guard let interval = figures.intervals[name], interval.n >= ReportRules.enoughSamples, let p95 = interval.p95 else { return nil }
        return Double(Format.whole(p95))
    }

    /// `stat@speed-keys 22ms "Typing, p95" delta=-6 spark=31|29|28|28|22 good=down sub="…"`;
    /// no `delta=` when there is no build to compare with.
    static func stat(_ id: String, _ value: String, _ title: String, delta: String?, spark: [String], sub: String) -> String {
        var line = "stat@\(id) \(value) \(quoted(title))"
        if let delta { line += " delta=\(delta)" }
        line += " spark=\(spark.joined(separator: "|")) good=down sub=\(quoted(sub))"
        return line
    }

    /// The difference of the two figures as printed, so the tile's delta matches its numbers.
    static func delta(_ new: Double?, _ old: Double?, _ format: (Double) -> String) -> String? {
        guard let new, let old, let printedNew = Double(format(new)), let printedOld = Double(format(old)) else { return nil }
        let difference = printedNew - printedOld
        // -0.0 prints as "-0.0": a difference of zero is written as zero.
        return format(difference == 0 ? 0 : difference)
    }

    /// `card@speed-worst "Worst hang: 1.2 s, 3 times" "A <- B <- C" sub="build 125 · main thread"`
    static func worstCard(_ report: SpeedReport) -> String {
        let worst = report.worstStacks.first { $0.kind == .hang } ?? report.worstStacks.first
        guard let worst else {
            return "card@speed-worst \"No hangs or crashes\" \"\" sub=\(quoted("build \(report.build)"))"
        }
        let times = worst.count == 1 ? "once" : worst.count == 2 ? "twice" : "\(worst.count) times"
        let title =
            worst.kind == .hang
            ? "Worst hang: \(WorstStacksReport.seconds(worst.weight)) s, \(times)" : "Worst crash: \(times)"
        let thread = worst.kind == .hang ? "main thread" : worst.causeSummary ?? "crashed thread"
        return "card@speed-worst \(quoted(title)) \(quoted(worst.signature.text)) sub=\(quoted("build \(report.build) · \(thread)"))"
    }

    /// A quoted value: `"` and `\` escaped, control characters as spaces, so a function name can
    /// never end the value or the line.
    static func quoted(_ text: String) -> String {
        var out = "\""
        for character in text {
            switch character {
            case "\"": out += "\\\""
            case "\\": out += "\\\\"
            default: out.append(character.isNewline || character.asciiValue.map { $0 < 0x20 || $0 == 0x7F } == true ? " " : character)
            }
        }
        return out + "\""
    }
}
