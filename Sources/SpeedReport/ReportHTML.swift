import Foundation
import PayloadDecode
import StackSignature

/// `report --html`: the Speed panel as one self-contained page (CSS, SVG and a little JavaScript
/// inline, nothing fetched), so it opens from disk, travels as an email attachment and can be
/// served as it is. Tiles and the chart are drawn here as SVG; the icicle graphs are drawn in the
/// browser from the hang trees embedded as JSON, so that clicking a frame can zoom to it.
/// Every number is also text (the tiles, a table under the chart, the interval table), for screen
/// readers and print.
public enum ReportHTML {
    /// Frames narrower than this fraction of a graph are left out of the page: a fifth of a pixel
    /// at 1000 px, so what is left is visible once zoomed in 5×. Measured on 10,000 distinct
    /// stacks (bench/run): 1/2000 gives a 60 KB page, 1/5000 124 KB drawn in 0.4 s, 1/20000
    /// 427 KB drawn in 1.9 s, too close to the 2 s mark.
    static let flameMinimumFraction = 1.0 / 5000

    public static func render(_ report: SpeedReport) -> String {
        var page = HTMLText()
        let title = "\(report.appName) speed, build \(report.build)" + (report.previous.map { " vs \($0.build)" } ?? "")
        page.raw("<!doctype html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n")
        page.raw("<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">\n<title>")
        page.text(title)
        page.raw("</title>\n<style>\(style)</style>\n</head>\n<body>\n<main>\n<header>\n<h1>")
        page.text(title)
        page.raw("</h1>\n<p class=\"meta\">")
        let phones = report.current.phones.count == 1 ? "1 phone" : "\(report.current.phones.count) phones"
        page.text("\(report.coverage) · \(phones) · \(Format.tenths(report.current.foregroundHours)) foreground hours")
        page.raw("</p>\n")
        if let briefing = report.briefing {
            page.raw("<p class=\"briefing\" role=\"status\">")
            page.text(briefing)
            page.raw("</p>\n")
        }
        page.raw("</header>\n")
        tiles(report, into: &page)
        chart(report, into: &page)
        intervals(report, into: &page)
        byPhone(report, into: &page)
        rates(report, into: &page)
        organizer(report, into: &page)
        worstStacks(report, into: &page)
        page.raw("</main>\n<div class=\"tooltip\" id=\"tooltip\" role=\"tooltip\" hidden></div>\n")
        page.raw("<script type=\"application/json\" id=\"flame-data\">")
        page.raw(flameJSON(report))
        page.raw("</script>\n<script>\(script)</script>\n</body>\n</html>\n")
        return page.out
    }

    // MARK: Tiles

    static func tiles(_ report: SpeedReport, into page: inout HTMLText) {
        page.raw("<section class=\"tiles\" aria-label=\"The five numbers\">\n")
        for tile in PanelLines.tiles(report) {
            page.raw("<figure class=\"tile\(tile.isWorse ? " worse" : "")\" id=\"\(tile.id)\" data-delta=\"\(tile.delta ?? "")\">\n<figcaption>")
            page.text(tile.title)
            page.raw("</figcaption>\n<p class=\"value\"><span class=\"number\">")
            page.text(tile.value.map(tile.format) ?? "-")
            page.raw("</span> <span class=\"unit\">")
            page.text(tile.unit)
            page.raw("</span></p>\n<p class=\"delta\">")
            if let delta = tile.delta, let previous = report.previous {
                page.text("\(Format.signed(delta)) \(tile.unit) vs \(previous.build)" + (tile.isWorse ? ", worse" : ""))
            } else {
                page.text("no build to compare with")
            }
            page.raw("</p>\n")
            spark(tile, builds: report.history.map(\.build), into: &page)
            page.raw("<p class=\"sub\">")
            page.text(tile.sub)
            page.raw("</p>\n</figure>\n")
        }
        page.raw("</section>\n")
    }

    static func spark(_ tile: PanelLines.Tile, builds: [Int], into page: inout HTMLText) {
        let values = tile.spark.compactMap { $0 }
        let label = zip(builds, tile.spark).map { "build \($0): \($1.map(tile.format) ?? "no data")" }.joined(separator: ", ")
        page.raw("<svg class=\"spark\" viewBox=\"0 0 120 32\" role=\"img\" aria-label=\"\(HTMLText.escaped(label))\">")
        if let low = values.min(), let high = values.max() {
            let span = high - low
            var points: [String] = []
            for (index, value) in tile.spark.enumerated() {
                guard let value else { continue }
                let x = tile.spark.count == 1 ? 60 : 4 + Double(index) * 112 / Double(tile.spark.count - 1)
                let y = span == 0 ? 16 : 28 - (value - low) / span * 24
                points.append("\(number(x)),\(number(y))")
            }
            page.raw("<polyline points=\"\(points.joined(separator: " "))\"/>")
            if let last = points.last {
                let xy = last.split(separator: ",")
                page.raw("<circle cx=\"\(xy[0])\" cy=\"\(xy[1])\" r=\"2.5\"/>")
            }
        }
        page.raw("</svg>\n")
    }

    // MARK: Chart

    static let seriesColors = ["#1f6fb4", "#2a9d3c", "#c23b22"]

    static func chart(_ report: SpeedReport, into page: inout HTMLText) {
        let chart = PanelLines.p95Chart(report)
        let width = 640.0
        let height = 280.0
        let (left, right, top, bottom) = (56.0, 150.0, 16.0, 44.0)
        let values = chart.series.flatMap { $0.values.compactMap { $0 } }
        let ceiling = niceCeiling(values.max() ?? 100)
        let plotWidth = width - left - right
        let plotHeight = height - top - bottom
        func x(_ index: Int) -> Double {
            chart.builds.count == 1 ? left + plotWidth / 2 : left + Double(index) * plotWidth / Double(chart.builds.count - 1)
        }
        func y(_ value: Double) -> Double { top + plotHeight - value / ceiling * plotHeight }
        page.raw("<section aria-labelledby=\"chart-title\">\n<h2 id=\"chart-title\">p95 by build</h2>\n")
        // In a box of its own, which scrolls on a phone: drawn narrower, its 12-unit labels would be under 7 px.
        page.raw(
            "<div class=\"scroll\"><svg class=\"chart\" id=\"p95-chart\" viewBox=\"0 0 \(number(width)) \(number(height))\" role=\"img\" aria-labelledby=\"chart-title\">\n"
        )
        // Axes, gridlines and ticks: five steps of a round number of ms.
        for step in 0...4 {
            let value = ceiling * Double(step) / 4
            let gy = number(y(value))
            page.raw("<line class=\"grid\" x1=\"\(number(left))\" x2=\"\(number(width - right))\" y1=\"\(gy)\" y2=\"\(gy)\"/>")
            page.raw(
                "<text class=\"tick\" x=\"\(number(left - 8))\" y=\"\(gy)\" text-anchor=\"end\" dominant-baseline=\"middle\">\(Format.whole(value))</text>\n"
            )
        }
        page.raw(
            "<text class=\"axis-label\" x=\"14\" y=\"\(number(top + plotHeight / 2))\" transform=\"rotate(-90 14 \(number(top + plotHeight / 2)))\" text-anchor=\"middle\">p95 (ms)</text>\n"
        )
        page.raw("<line class=\"axis\" x1=\"\(number(left))\" x2=\"\(number(left))\" y1=\"\(number(top))\" y2=\"\(number(top + plotHeight))\"/>")
        page.raw(
            "<line class=\"axis\" x1=\"\(number(left))\" x2=\"\(number(width - right))\" y1=\"\(number(top + plotHeight))\" y2=\"\(number(top + plotHeight))\"/>\n"
        )
        for (index, build) in chart.builds.enumerated() {
            page.raw("<text class=\"tick\" x=\"\(number(x(index)))\" y=\"\(number(top + plotHeight + 18))\" text-anchor=\"middle\">\(build)</text>")
        }
        page.raw(
            "\n<text class=\"axis-label\" x=\"\(number(left + plotWidth / 2))\" y=\"\(number(height - 6))\" text-anchor=\"middle\">build</text>\n")
        for (seriesIndex, series) in chart.series.enumerated() {
            let color = seriesColors[seriesIndex % seriesColors.count]
            let points = series.values.enumerated().compactMap { index, value in value.map { "\(number(x(index))),\(number(y($0)))" } }
            page.raw("<g class=\"series\" data-series=\"\(HTMLText.escaped(series.title))\" stroke=\"\(color)\" fill=\"\(color)\">")
            if points.count > 1 { page.raw("<polyline fill=\"none\" points=\"\(points.joined(separator: " "))\"/>") }
            for (index, value) in series.values.enumerated() {
                guard let value else { continue }
                page.raw("<circle class=\"point\" cx=\"\(number(x(index)))\" cy=\"\(number(y(value)))\" r=\"4\" ")
                page.raw("data-build=\"\(chart.builds[index])\" data-value=\"\(Format.whole(value))\"><title>")
                page.text("\(series.title), build \(chart.builds[index]): \(Format.whole(value)) ms")
                page.raw("</title></circle>")
            }
            // The legend, right of the plot.
            let ly = top + 10 + Double(seriesIndex) * 22
            page.raw("<rect x=\"\(number(width - right + 16))\" y=\"\(number(ly - 6))\" width=\"14\" height=\"4\" stroke=\"none\"/>")
            page.raw("<text class=\"legend\" x=\"\(number(width - right + 36))\" y=\"\(number(ly))\" dominant-baseline=\"middle\" stroke=\"none\">")
            page.text(series.title)
            page.raw("</text></g>\n")
        }
        page.raw("</svg></div>\n")
        // The same numbers as a table: what a screen reader reads, and what prints exactly.
        page.raw("<table class=\"chart-data\">\n<caption>p95 in ms by build</caption>\n<thead><tr><th scope=\"col\">build</th>")
        for series in chart.series {
            page.raw("<th scope=\"col\">")
            page.text(series.title)
            page.raw("</th>")
        }
        page.raw("</tr></thead>\n<tbody>\n")
        for (index, build) in chart.builds.enumerated() {
            page.raw("<tr><th scope=\"row\">\(build)</th>")
            for series in chart.series { page.raw("<td>\(series.values[index].map(Format.whole) ?? "-")</td>") }
            page.raw("</tr>\n")
        }
        page.raw("</tbody>\n</table>\n</section>\n")
    }

    /// A round number at or above `value` for the top of the axis: 1, 2, 2.5 or 5 times a power of ten.
    static func niceCeiling(_ value: Double) -> Double {
        guard value > 0, value.isFinite else { return 100 }
        var magnitude = 1.0
        while magnitude * 10 <= value { magnitude *= 10 }
        while magnitude > value { magnitude /= 10 }
        for factor in [1.0, 2, 2.5, 5, 10] where factor * magnitude >= value * 1.05 { return factor * magnitude }
        return 10 * magnitude
    }

    // MARK: Tables

    static func intervals(_ report: SpeedReport, into page: inout HTMLText) {
        page.raw("<section aria-labelledby=\"intervals-title\">\n<h2 id=\"intervals-title\">Intervals</h2>\n")
        let lines = report.intervalLines
        if lines.isEmpty {
            page.raw("<p>No interval rows in this build.</p>\n")
        } else {
            page.raw("<table class=\"intervals\">\n<thead><tr><th scope=\"col\">interval</th><th scope=\"col\">n</th><th scope=\"col\">p50 (ms)</th>")
            page.raw("<th scope=\"col\">p95 (ms)</th><th scope=\"col\">budget p95</th><th scope=\"col\"></th>")
            if let previous = report.previous { page.raw("<th scope=\"col\">vs \(previous.build)</th>") }
            page.raw("<th scope=\"col\"></th></tr></thead>\n<tbody>\n")
            for line in lines {
                page.raw("<tr\(line.worse ? " class=\"worse\"" : "")><th scope=\"row\">")
                page.text(line.name)
                page.raw("</th><td>\(line.n)</td><td>\(line.p50.map(Format.whole) ?? "-")</td><td>\(line.p95.map(Format.whole) ?? "-")</td>")
                page.raw("<td>\(line.budget.map(Format.number) ?? "-")</td><td>\(line.over ? "<span class=\"badge over\">OVER</span>" : "")</td>")
                if report.previous != nil { page.raw("<td>\(line.deltaP95.map { "p95 " + Format.signed(String($0)) } ?? "-")</td>") }
                page.raw("<td>\(line.worse ? worseBadge(report, "interval:\(line.name)") : "")</td></tr>\n")
            }
            page.raw("</tbody>\n</table>\n")
        }
        worseList(report, into: &page)
        page.raw("</section>\n")
    }

    /// The reported build's p95 per device model and per OS, for the intervals the tiles show (the
    /// seed's, or MetricKit's launch and resume): who sees the slow numbers. A cell under 20 samples
    /// prints `-`, as the interval table does; its `n` is in the cell's title.
    static func byPhone(_ report: SpeedReport, into page: inout HTMLText) {
        guard let breakdown = report.breakdown, !breakdown.intervals.isEmpty else { return }
        let names =
            PanelLines.hasSignposts(report)
            ? ["keystroke_render", "send_bubble", "arrive_drawn", "thread_open", "launch"] : ["launch_mk", "resume_mk"]
        let shown = names.filter { name in breakdown.intervals.keys.contains { $0.interval == name } }
        guard !shown.isEmpty else { return }
        page.raw("<section aria-labelledby=\"phones-title\">\n<h2 id=\"phones-title\">")
        page.text("p95 by device and OS (build \(report.build))")
        page.raw("</h2>\n")
        for by in [ReportBreakdown.By.device, .os] {
            page.raw("<table class=\"intervals by-\(by.rawValue)\">\n<thead><tr><th scope=\"col\">\(by == .device ? "device" : "OS")</th>")
            for name in shown {
                page.raw("<th scope=\"col\">")
                page.text(name)
                page.raw("</th>")
            }
            page.raw("</tr></thead>\n<tbody>\n")
            for value in breakdown.values(by: by) {
                page.raw("<tr><th scope=\"row\">")
                page.text(by == .os ? "iOS \(value)" : value)
                page.raw("</th>")
                for name in shown {
                    let figures = breakdown.intervals[ReportBreakdown.Key(by: by, value: value, interval: name)]
                    let n = figures?.n ?? 0
                    let p95 = n >= ReportRules.enoughSamples ? figures?.p95.map(Format.whole) : nil
                    page.raw("<td title=\"n \(n)\">\(p95 ?? "-")</td>")
                }
                page.raw("</tr>\n")
            }
            page.raw("</tbody>\n</table>\n")
        }
        page.raw("</section>\n")
    }

    static func rates(_ report: SpeedReport, into page: inout HTMLText) {
        page.raw("<section aria-labelledby=\"rates-title\">\n<h2 id=\"rates-title\">Hangs, hitches, memory, CPU, crashes</h2>\n<pre class=\"rates\">")
        page.text(ReportText.rateLines(report))
        page.raw("</pre>\n</section>\n")
    }

    // MARK: Worst stacks and icicles

    static func worstStacks(_ report: SpeedReport, into page: inout HTMLText) {
        page.raw("<section aria-labelledby=\"stacks-title\">\n<h2 id=\"stacks-title\">Worst stacks (build \(report.build))</h2>\n")
        page.raw(
            "<p class=\"hint\">Each opens an icicle graph of its hang stacks, outermost frame on top, widths in hang time. Click a frame to zoom to it; click the top frame to zoom out.</p>\n"
        )
        if report.worstStacks.isEmpty { page.raw("<p>No hangs or crashes.</p>\n") }
        page.raw("<ol class=\"stacks\">\n")
        for (rank, group) in report.worstStacks.enumerated() {
            page.raw("<li><details class=\"stack\" data-graph=\"\(rank + 1)\"><summary><span class=\"weight\">")
            let phones = group.phones.count == 1 ? "1 phone" : "\(group.phones.count) phones"
            page.text("\(group.kind.rawValue) \(WorstStacksReport.seconds(group.weight)) s ×\(group.count) on \(phones)")
            page.raw("</span> ")
            if let cause = group.causeSummary {
                page.raw("<span class=\"cause\">")
                page.text(cause)
                page.raw("</span> ")
            }
            page.raw("<code>")
            page.text(group.signature.text)
            page.raw("</code>")
            // Where the heaviest occurrence was: its innermost app frame with a file.
            if let frame = group.heaviestFrames.first(where: { $0.isApp && $0.file != nil }), let file = frame.file {
                page.raw(" <span class=\"where\">")
                page.text("\(frame.name) at \((file as NSString).lastPathComponent)\(frame.line.map { ":\($0)" } ?? "")")
                page.raw("</span>")
            }
            page.raw("</summary>")
            if group.kind == .hang {
                page.raw("<div class=\"flame\" data-graph=\"\(rank + 1)\"></div>")
            } else {
                page.raw("<p>A crash: its stack is one, not a sum of hang time.</p>")
            }
            page.raw("</details></li>\n")
        }
        page.raw("</ol>\n")
        if let flames = report.flames, flames.all.totalSeconds > 0 {
            page.raw("<details class=\"stack\" data-graph=\"0\" open><summary>")
            // MetricKit sends a stack for some hangs only: say so, or the graph's total reads as the hang rate's.
            page.text(
                "All diagnosed hang stacks of build \(report.build): \(WorstStacksReport.seconds(flames.all.totalSeconds)) s (MetricKit sends a stack with some hangs only)"
            )
            page.raw("</summary><div class=\"flame\" data-graph=\"0\"></div></details>\n")
        }
        page.raw("</section>\n")
    }

    /// `{"graphs": {"0": NODE, "1": NODE, ...}, "names": [...]}` where a node is
    /// `[name index, location index or -1, milliseconds, child, child, ...]`; locations are in the
    /// same list, marked by a leading `@`. Each string is listed once, so a page of many stacks
    /// stays small.
    static func flameJSON(_ report: SpeedReport) -> String {
        var names: [String] = []
        var nameIndex: [String: Int] = [:]
        func intern(_ text: String) -> Int {
            if let index = nameIndex[text] { return index }
            names.append(text)
            nameIndex[text] = names.count - 1
            return names.count - 1
        }
        var graphs: [(Int, FlameTree)] = []
        if let flames = report.flames {
            graphs.append((0, flames.all))
            for (rank, group) in report.worstStacks.enumerated() where group.kind == .hang {
                if let tree = flames.bySignature[group.signature.text] { graphs.append((rank + 1, tree)) }
            }
        }
        var out = "{\"graphs\":{"
        for (position, (key, full)) in graphs.enumerated() {
            let tree = full.pruned(below: flameMinimumFraction)
            if position > 0 { out += "," }
            out += "\"\(key)\":"
            // Iterative writing: a stack 130 frames deep must not recurse 130 deep here either.
            var pending: [(node: Int, closing: Bool)] = [(0, false)]
            while let (index, closing) = pending.popLast() {
                if closing {
                    out += "]"
                    continue
                }
                let node = tree.nodes[index]
                if out.last != ":" && out.last != "[" { out += "," }
                let location = node.location.map { intern("@" + $0) } ?? -1
                out += "[\(intern(node.name)),\(location),\(Int((node.seconds * 1000).rounded()))"
                pending.append((index, true))
                for child in node.children.reversed() { pending.append((child, false)) }
            }
        }
        out += "},\"names\":["
        out += names.map { jsonString($0) }.joined(separator: ",")
        out += "]}"
        // No `<` at all in the block, so no name can end it (`</script>`) or open a comment (`<!--`);
        // `<` occurs only inside strings, where JSON reads `\u003c` back as `<`.
        return out.replacingOccurrences(of: "<", with: "\\u003c")
    }

    static func jsonString(_ text: String) -> String {
        var out = ""
        InputText.appendJSONString(text, to: &out)
        return out
    }

    /// Coordinates with at most one decimal.
    static func number(_ value: Double) -> String {
        let tenths = (value * 10).rounded()
        return tenths.truncatingRemainder(dividingBy: 10) == 0 ? String(Int(tenths / 10)) : String(tenths / 10)
    }
}

/// Builds a page: `raw` for markup written here, `text` for anything that came from the inputs.
struct HTMLText {
    var out = ""

    mutating func raw(_ markup: String) { out += markup }
    mutating func text(_ text: String) { out += Self.escaped(text) }

    static func escaped(_ text: String) -> String {
        var out = ""
        out.reserveCapacity(text.utf8.count)
        for character in text {
            switch character {
            case "&": out += "&amp;"
            case "<": out += "&lt;"
            case ">": out += "&gt;"
            case "\"": out += "&quot;"
            case "'": out += "&#39;"
            default: out.append(character)
            }
        }
        return out
    }
}
