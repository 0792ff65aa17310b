import PayloadDecode
import StackSignature

/// The plain-text report, laid out as docs/report.md prints it.
public enum ReportText {
    public static func render(_ report: SpeedReport) -> String {
        var out = header(report) + "\n\n"
        let lines = report.intervalLines
        if lines.isEmpty {
            out += "no interval rows in this build\n"
        } else {
            out += intervalTable(lines, previous: report.previous?.build)
        }
        out += "\n" + rateLines(report)
        out += organizerLines(report)
        out += confidenceLines(report)
        out += "\nworst stacks (build \(report.build))\n"
        if report.worstStacks.isEmpty { out += "  no hangs or crashes\n" }
        for (rank, group) in report.worstStacks.enumerated() {
            out += "  \(rank + 1). \(stackHead(group))   \(group.signature.text)\n"
        }
        if !report.current.hasEnoughData {
            out +=
                "\nnote: build \(report.build) has too little data to compare (no interval with \(ReportRules.enoughSamples) samples, under \(Format.whole(ReportRules.enoughForegroundHours)) foreground hours)\n"
        } else if report.previous == nil {
            out += "\nnote: no earlier build with enough data to compare with\n"
        }
        return out
    }

    /// `hang 1.2 s x3` (the seed's), `hang 1.2 s x5 on 2 phones`, `crash 2.0 s x2, EXC_BAD_ACCESS (SIGSEGV)`:
    /// the line of a worst stack before its signature, without `top`'s `max`.
    static func stackHead(_ group: SignatureGroup) -> String {
        var head = "\(group.kind.rawValue) \(WorstStacksReport.seconds(group.weight)) s \(WorstStacksReport.countText(group))"
        if let cause = group.causeSummary { head += ", " + cause }
        return head
    }

    /// `2   EXC_BAD_ACCESS (SIGSEGV) x1; watchdog 0x8BADF00D, EXC_CRASH (SIGKILL) x1`: the count, then
    /// the three commonest reasons (and how many more), `unknown reason` for crashes whose rows
    /// carry none.
    static func crashCount(_ report: SpeedReport) -> String {
        var text = "\(report.current.crashes)"
        guard report.current.crashes > 0, !report.crashCauses.isEmpty else { return text }
        var parts = report.crashCauses.prefix(3).map { "\($0.cause.description) x\($0.count)" }
        if report.crashCauses.count > 3 { parts.append("\(report.crashCauses.count - 3) more reasons") }
        let unknown = report.current.crashes - report.crashCauses.reduce(0) { $0 + $1.count }
        if unknown > 0 { parts.append("unknown reason x\(unknown)") }
        text += "   " + parts.joined(separator: "; ")
        return text
    }

    /// `Yui speed, build 125 vs 124 (last 24 h, 3 phones, 11.2 foreground hours)`
    static func header(_ report: SpeedReport) -> String {
        let versus = report.previous.map { " vs \($0.build)" } ?? ""
        let phones = report.current.phones.count == 1 ? "1 phone" : "\(report.current.phones.count) phones"
        return
            "\(report.appName) speed, build \(report.build)\(versus) (\(report.coverage), \(phones), \(Format.tenths(report.current.foregroundHours)) foreground hours)"
    }

    static func intervalTable(_ lines: [SpeedReport.IntervalLine], previous: Int?) -> String {
        let nameWidth = max(20, (lines.map(\.name.count).max() ?? 0) + 2)
        let nWidth = max(4, lines.map { String($0.n).count }.max() ?? 0)
        var out = pad("interval", nameWidth) + pad("n", nWidth) + "   " + pad("p50", 7) + pad("p95", 6) + "budget p95"
        if let previous { out += "   vs \(previous)" }
        out += "\n"
        for line in lines {
            var text = pad(line.name, nameWidth) + padLeft(String(line.n), nWidth) + "   "
            text += pad(line.p50.map(Format.whole) ?? "-", 7) + pad(line.p95.map(Format.whole) ?? "-", 6)
            text += pad(line.budget.map(Format.number) ?? "-", 5) + pad(line.over ? "OVER" : "", 8)
            if previous != nil {
                let delta = line.deltaP95.map { "p95 " + Format.signed(String($0)) } ?? "-"
                text += line.worse ? pad(delta, 9) + (line.doubtful ? "WORSE?" : "WORSE") : delta
            }
            out += trimmed(text) + "\n"
        }
        return out
    }

    static func rateLines(_ report: SpeedReport) -> String {
        let current = report.current
        let previous = report.previous
        func versus(_ old: Double?, _ format: (Double) -> String) -> String {
            guard let previous, let old else { return "" }
            return " (\(previous.build): \(format(old)))"
        }
        func worse(_ whats: String...) -> String {
            guard whats.contains(where: report.isWorse) else { return "" }
            return report.isDoubtful(whats) ? "  WORSE?" : "  WORSE"
        }
        var out = ""
        let hangs = current.hangRate.map { "\(Format.tenths($0)) s/h" + versus(previous?.hangRate, Format.tenths) } ?? "-"
        out += pad("hangs", 15) + pad(hangs, 22) + "long hangs \(current.longHangs)" + worse("hangs", "long_hangs") + "\n"
        let hitches = current.hitchRatio.map { "\(Format.tenths($0)) ms/s" + versus(previous?.hitchRatio, Format.tenths) } ?? "-"
        out += trimmed(pad("scroll hitches", 15) + hitches + worse("hitches")) + "\n"
        let peak = current.memoryPeak.map { "\(Format.whole($0)) MB" + versus(previous?.memoryPeak, Format.whole) } ?? "-"
        out += pad("memory peak", 15) + pad(peak, 22)
        out += "steady " + (current.steadyMemory.map { "\(Format.whole($0)) MB" } ?? "-") + "   "
        out += "30-min growth " + (current.growth.map { "\(Format.whole($0)) MB" } ?? "-") + "   "
        out += "warnings \(Format.number(current.memoryWarnings))" + worse("memory_peak", "memory_steady") + "\n"
        out += pad("cpu idle", 15) + (current.cpuPercent.map { "\(Format.tenths($0))%" } ?? "-") + "\n"
        var crashes = pad("crashes", 15) + crashCount(report)
        let new = report.newCrashSignatures
        if !new.isEmpty { crashes += (report.isDoubtful(["crash"]) ? "  WORSE?, new: " : "  WORSE, new: ") + new.joined(separator: "; ") }
        out += crashes + "\n"
        return out
    }

    /// Disk writes and terminations, where either build's rows have them (an app whose payloads
    /// carry `diskIOMetrics` or `applicationExitMetrics`; the seed's rows have neither, so its report
    /// stays as it was). Terminations: every reason either build saw, per foreground hour.
    static func organizerLines(_ report: SpeedReport) -> String {
        let current = report.current
        let previous = report.previous
        var out = ""
        if current.diskWritesPerDay != nil || previous?.diskWritesPerDay != nil {
            var line = pad("disk writes", 15) + (current.diskWritesPerDay.map { "\(Format.tenths($0)) MB a day" } ?? "-")
            if let previous, let old = previous.diskWritesPerDay { line += " (\(previous.build): \(Format.tenths(old)))" }
            out += line + "\n"
        }
        let names = OrganizerFigures.exitNames(report)
        guard !names.isEmpty else { return out }
        out += "terminations   per foreground hour" + (previous.map { " (build \($0.build))" } ?? "") + "\n"
        for name in names {
            guard let (reason, background) = ExitReason.of(rowName: name) else { continue }
            var line = "  " + pad("\(background ? "background" : "foreground") \(reason.words)", 34)
            line += current.countedExitRate(name).map(Format.hundredths) ?? "-"
            if let previous { line += " (" + (previous.countedExitRate(name).map(Format.hundredths) ?? "-") + ")" }
            line += "   x\(current.exits?[name] ?? 0)"
            if report.isWorse("exit:\(name)") { line += report.isDoubtful(["exit:\(name)"]) ? "  WORSE?" : "  WORSE" }
            out += line + "\n"
        }
        return out
    }

    /// With `--min-confidence` above 0, how sure each WORSE is; nothing otherwise, so the report
    /// stays the seed's.
    static func confidenceLines(_ report: SpeedReport) -> String {
        guard report.minConfidence > 0, !report.regressions.isEmpty else { return "" }
        var out = "\nconfidence (share of \(RegressionConfidence.resamples) resamples by phone where WORSE holds; "
        out += "--min-confidence \(ConfidenceWords.number(report.minConfidence)))\n"
        for regression in report.regressions {
            var line = "  " + pad(ConfidenceWords.label(regression), 30) + (regression.confidence.map(ConfidenceWords.number) ?? "unknown")
            if !regression.isConfident(report.minConfidence) { line += "  WORSE?: not in the briefing" }
            out += line + "\n"
        }
        return out
    }

    static func pad(_ text: String, _ width: Int) -> String {
        // A value wider than its column still keeps one space before the next.
        text.count >= width ? text + " " : text + String(repeating: " ", count: width - text.count)
    }

    static func padLeft(_ text: String, _ width: Int) -> String {
        text.count >= width ? text : String(repeating: " ", count: width - text.count) + text
    }

    static func trimmed(_ text: String) -> String {
        var text = Substring(text)
        while text.last == " " { text = text.dropLast() }
        return String(text)
    }
}
