import StackSignature

/// `report --yl`: the Speed panel's lines of seed section 8. Each line keeps its id (`speed-keys`,
/// …), so the war room patches the numbers in place when a new build's data comes in.
public enum PanelLines {
    public static func render(_ report: SpeedReport) -> String {
        var lines: [String] = []
        let build = report.build
        let history = report.history
        func interval(_ name: String) -> (SpeedReport.IntervalLine?, [String]) {
            let line = report.intervalLines.first { $0.name == name }
            let spark = history.map { figures in
                let interval = figures.intervals[name]
                guard let interval, interval.n >= ReportRules.enoughSamples, let p95 = interval.p95 else { return "-" }
                return Format.whole(p95)
            }
            return (line, spark)
        }
        for (id, name, title) in [("speed-keys", "keystroke_render", "Typing, p95"), ("speed-arrive", "arrive_drawn", "Messages land, p95")] {
            let (line, spark) = interval(name)
            let value = line?.p95.map { Format.whole($0) + "ms" } ?? "-"
            var sub = "build \(build)"
            if let budget = report.budgets.budget(interval: name) { sub += " · budget \(Format.number(budget))" }
            lines.append(stat(id, value, title, delta: line?.deltaP95.map(String.init), spark: spark, sub: sub))
        }
        let hitch = report.current.hitchRatio
        lines.append(
            stat(
                "speed-hitch", hitch.map { Format.tenths($0) + "ms/s" } ?? "-", "Scroll hitches",
                delta: delta(hitch, report.previous?.hitchRatio, Format.tenths),
                spark: history.map { $0.hitchRatio.map(Format.tenths) ?? "-" },
                sub: "under \(Format.number(report.budgets.hitchMillisecondsPerSecond)) is smooth"))
        let hangs = report.current.hangRate
        lines.append(
            stat(
                "speed-hangs", hangs.map { Format.tenths($0) + "s/h" } ?? "-", "Hangs",
                delta: delta(hangs, report.previous?.hangRate, Format.tenths),
                spark: history.map { $0.hangRate.map(Format.tenths) ?? "-" }, sub: "per foreground hour"))
        let peak = report.current.memoryPeak
        lines.append(
            stat(
                "speed-mem", peak.map { Format.whole($0) + "MB" } ?? "-", "Memory peak",
                delta: delta(peak, report.previous?.memoryPeak, Format.whole),
                spark: history.map { $0.memoryPeak.map(Format.whole) ?? "-" },
                sub: "budget \(Format.number(report.budgets.memoryMegabytes))"))
        let series = ["keystroke_render", "send_bubble", "arrive_drawn"].map { interval($0).1.joined(separator: "|") }
        lines.append(
            "chart@speed-p95 line \"p95 by build\" x=\(history.map { String($0.build) }.joined(separator: "|")) "
                + "y=\(series[0]) y2=\(series[1]) y3=\(series[2]) names=Typing|Send|\"Messages land\" unit=ms")
        lines.append(worstCard(report))
        return lines.map { $0 + "\n" }.joined()
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
        let text = format(difference)
        return text == "-0.0" ? "0.0" : text
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
        let thread = worst.kind == .hang ? "main thread" : "crashed thread"
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
