import Foundation
import SpeedReport
import TestSupport
import Testing

/// `report --html`, rendered in headless Chromium and clicked as a person would
/// (scripts/browser-check drives it over the DevTools protocol).
@Suite struct ReportPageInABrowser {
    struct PageCheck: Decodable {
        struct Tile: Decodable {
            var number: String
            var unit: String
            var delta: String
            var worse: Bool
            var spark_points: Int
        }
        struct Point: Decodable {
            var series: String
            var build: Int
            var value: Int
            var visible: Bool
        }
        struct Zoom: Decodable {
            var name: String
            var index: String
            var width_before: Double
            var width_after: Double
            var x_after: Double
            var zoomed: String?
            var tooltip: String?
        }
        var title: String
        var tiles: [String: Tile]
        var chart_points: [Point]
        var chart_builds: [Int]
        var worse_rows: [String]
        /// `nil` on a page without hang stacks: no graph to tap.
        var zoom: Zoom?
        struct Layout: Decodable {
            struct Text: Decodable {
                var size: Double
                var text: String
            }
            var viewport_width: Int
            var content_width: Int
            var sideways_scroll: Bool
            var smallest_text: Double?
            var under_11px: [Text]
        }
        var console_errors: [String]
        var graphs_drawn: Int
        var layout: Layout
    }

    static func check(_ page: String, options: [String] = []) throws -> PageCheck {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        process.arguments = ["python3", Repository.root.appendingPathComponent("scripts/browser-check").path, page] + options
        let output = Pipe()
        let errors = Pipe()
        process.standardOutput = output
        process.standardError = errors
        try process.run()
        let data = output.fileHandleForReading.readDataToEndOfFile()
        let messages = String(decoding: errors.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        process.waitUntilExit()
        try #require(process.terminationStatus == 0, "browser-check failed: \(messages)")
        return try JSONDecoder().decode(PageCheck.self, from: data)
    }

    @Test func theSamplesPageShowsTheReportsNumbersAndZoomsOnClick() throws {
        let sample = try ReportSample()
        defer { sample.remove() }
        let page = sample.folder.appendingPathComponent("report.html").path
        let run = sample.run(["--html", page, "--yl"])
        #expect(run.status == 0, "stderr: \(run.stderr)")
        let html = try String(contentsOfFile: page, encoding: .utf8)
        // Self-contained: nothing to fetch (the one URL is the SVG namespace the script names).
        for reference in ["<link", "src=\"http", "href=\"http", "url(http", "@import", "<img"] {
            #expect(!html.contains(reference), "the page refers to \(reference)")
        }

        let shown = try Self.check(page)
        #expect(shown.console_errors.isEmpty, "console: \(shown.console_errors)")
        #expect(shown.title == "Yui speed, build 125 vs 124")
        // The tiles carry the report's numbers (the --yl lines of the same run), and only the
        // tile whose delta went the bad way is red.
        let expected: [String: (String, String, Bool)] = [
            "speed-keys": ("22", "-6", false), "speed-arrive": ("172", "+44", true), "speed-hitch": ("3.1", "-1.4", false),
            "speed-hangs": ("0.8", "-1.1", false), "speed-mem": ("212", "-26", false),
        ]
        for (id, (number, delta, worse)) in expected {
            let tile = try #require(shown.tiles[id], "no tile \(id)")
            #expect(tile.number == number, "\(id)")
            #expect(tile.delta.hasPrefix(delta + " "), "\(id): \(tile.delta)")
            #expect(tile.worse == worse, "\(id)")
            #expect(tile.spark_points == 5, "\(id)")
            #expect(run.stdout.contains("stat@\(id) \(number)\(tile.unit) "), "\(id) differs from --yl")
        }
        // One point per build and interval, with the chart line's numbers.
        #expect(shown.chart_builds == [121, 122, 123, 124, 125])
        #expect(shown.chart_points.count == 15)
        let hidden = shown.chart_points.filter { !$0.visible }
        #expect(hidden.isEmpty)
        let typing = shown.chart_points.filter { $0.series == "Typing" }.map(\.value)
        let send = shown.chart_points.filter { $0.series == "Send" }.map(\.value)
        let arrive = shown.chart_points.filter { $0.series == "Messages land" }.map(\.value)
        #expect(typing == [31, 29, 28, 28, 22])
        #expect(send == [58, 52, 47, 38, 41])
        #expect(arrive == [131, 126, 130, 128, 172])
        #expect(shown.worse_rows == ["arrive_drawn"])
        // A real click on a narrow frame zooms to it: it then spans the graph's whole width.
        #expect(shown.graphs_drawn == 2)
        let zoom = try #require(shown.zoom, "no graph to tap")
        #expect(zoom.width_before < 900)
        #expect(zoom.width_after >= 999)
        #expect(zoom.x_after == 0)
        #expect(zoom.zoomed == zoom.index)
        // The tooltip names the function, its file:line and its seconds.
        let tooltip = try #require(zoom.tooltip)
        #expect(tooltip.hasPrefix(zoom.name + "\n"))
        #expect(tooltip.contains(".swift:"))
        #expect(tooltip.contains(" s ("))
    }

    /// Names come from debug files (a C++ template, an operator) and go into markup, attributes and
    /// the embedded JSON: they must stay text. The page renders, the frame carries the name exactly,
    /// and no script from a name runs.
    @Test func namesFromDebugFilesStayText() throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("yui-page-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        var figures = BuildFigures(build: 7)
        figures.rows = 1
        let hostile = "operator</script><script>alert(1)</script><b>&amp;\u{2028}\"'"
        var tree = FlameTree(rootName: "build 7")
        tree.add([(name: "main", location: nil), (name: hostile, location: "/src/a<b>.cpp:3")], seconds: 2)
        var report = SpeedReport(
            current: figures, previous: nil, history: [figures], days: 1, window: nil, coverage: "last 24 h", budgets: .seed,
            worstStacks: [])
        report.flames = ReportFlames(all: tree, bySignature: [:])
        let html = ReportHTML.render(report)
        #expect(!html.contains("<script>alert(1)"))
        let page = folder.appendingPathComponent("page.html").path
        try html.write(toFile: page, atomically: true, encoding: .utf8)
        let shown = try Self.check(page)
        #expect(shown.console_errors.isEmpty, "console: \(shown.console_errors)")
        let zoom = try #require(shown.zoom, "no graph to tap")
        #expect(zoom.name == hostile)
        #expect(zoom.tooltip?.contains("/src/a<b>.cpp:3") == true)
    }
}

extension ReportPageInABrowser {
    /// A phone (390×844 CSS pixels, as Chrome's device emulation draws an iPhone) and a desktop
    /// window (1280): no sideways scroll, no text under 11 px as rendered, the icicle graph still
    /// zooms on a tap, at a phone's width too. The screenshots are docs/report-page-phone.png and
    /// docs/report-page-1280.png (`YUI_RECORD_SNAPSHOTS=1` writes them again).
    @Test(arguments: [(["--phone"], "report-page-phone.png"), (["--width", "1280"], "report-page-1280.png")])
    func thePageFitsAPhoneAndADesktopWithReadableText(options: [String], screenshot: String) throws {
        let sample = try ReportSample()
        defer { sample.remove() }
        let page = sample.folder.appendingPathComponent("report.html").path
        #expect(sample.run(["--html", page]).status == 0)
        // Each worst stack says where its heaviest occurrence was, file and line.
        let html = try String(contentsOfFile: page, encoding: .utf8)
        #expect(html.contains("<span class=\"where\">YuiLines.parse at YuiLines.swift:25</span>"))
        #expect(html.contains("<span class=\"where\">plus at Builtins.swift:23</span>"))
        // The build's p95 by device model and OS: iPhone16,2's messages land at 149 ms, the build's at 172.
        #expect(html.contains("p95 by device and OS (build 125)"))
        // Each worst stack says how many phones it hit.
        #expect(html.contains("hang 1.2 s ×3 on 3 phones") && html.contains("hang 0.4 s ×2 on 2 phones"))
        #expect(html.contains(#"<tr><th scope="row">iPhone16,2</th><td title="n 8412">"#) || html.contains(#"<tr><th scope="row">iPhone16,2</th>"#))
        #expect(html.contains(#"<td title="n "#) && html.contains(">149</td>"), "the device table")
        #expect(html.contains(#"<tr><th scope="row">iOS 26.1</th>"#))
        var arguments = options
        if ProcessInfo.processInfo.environment["YUI_RECORD_SNAPSHOTS"] == "1" {
            arguments += ["--screenshot", Repository.root.appendingPathComponent("docs/\(screenshot)").path]
        }
        let shown = try Self.check(page, options: arguments)
        #expect(shown.console_errors.isEmpty, "console: \(shown.console_errors)")
        #expect(shown.layout.viewport_width == (options == ["--phone"] ? 390 : 1280))
        #expect(!shown.layout.sideways_scroll, "content \(shown.layout.content_width) px in \(shown.layout.viewport_width)")
        #expect((shown.layout.smallest_text ?? 0) >= 11, "under 11 px: \(shown.layout.under_11px.prefix(5).map { "\($0.text) \($0.size)" })")
        let zoom = try #require(shown.zoom, "no graph to tap")
        #expect(zoom.zoomed != nil && zoom.width_after > zoom.width_before, "a tap zooms the graph")
    }
}

/// The page is the same bytes from run to run: each process seeds its hash tables anew, and a
/// page built in their order (the icicle graphs' frames, and the file and line each shows) came out
/// different one run in four on the shipped sample.
@Suite struct ReportPageBytes {
    @Test func theSameRowsGiveTheSamePageInEveryProcess() throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("yui-perf-page-" + UUID().uuidString)
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        var pages: Set<Data> = []
        for run in 0..<8 {
            let page = folder.appendingPathComponent("page-\(run).html").path
            let result = try ToolBinary.run([
                "report", "--html", page, "--dsyms", Repository.samples.appendingPathComponent("dsyms").path,
                Repository.samples.appendingPathComponent("report/rows.jsonl").path,
            ])
            #expect(result.status == 0, "\(result.stderr)")
            pages.insert(try Data(contentsOf: URL(fileURLWithPath: page)))
        }
        #expect(pages.count == 1)
        #expect(String(decoding: pages.first ?? Data(), as: UTF8.self).contains("id=\"flame-data\""))
    }

    /// Build 125's five hangs, one an hour, weigh the same; each stops at another line of
    /// `YuiLines.parse` (one signature). The worst stack is the first of them in time, on every run:
    /// merged in the hour table's hash order, the page named another hour's line from run to run.
    @Test func tiedHangsInSeveralHoursNameTheFirstHoursLine() throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("yui-perf-ties-" + UUID().uuidString)
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        // parse + 4 (line 25), + 20 (27), + 52 (32), + 16 (25), + 56 (32) in the sample's dSYM.
        let offsets = [0x40b0, 0x40c0, 0x40e0, 0x40bc, 0x40e4]
        var changed = 0
        var lines: [String] = []
        for line in try String(contentsOf: Repository.samples.appendingPathComponent("report/rows.jsonl"), encoding: .utf8)
            .split(separator: "\n")
        {
            var row = String(line)
            if row.contains(#""app_build":125"#), row.contains(#""name":"hang""#), changed < offsets.count {
                // The first offset of a row is its innermost frame's.
                row = row.replacing(/"offset":[0-9]+/, with: "\"offset\":\(offsets[changed])", maxReplacements: 1)
                changed += 1
            }
            lines.append(row)
        }
        try #require(changed == offsets.count)
        let rows = folder.appendingPathComponent("rows.jsonl").path
        try Data((lines.joined(separator: "\n") + "\n").utf8).write(to: URL(fileURLWithPath: rows))
        var pages: Set<String> = []
        for run in 0..<8 {
            let page = folder.appendingPathComponent("page-\(run).html").path
            let result = try ToolBinary.run([
                "report", "--html", page, "--dsyms", Repository.samples.appendingPathComponent("dsyms").path, rows,
            ])
            #expect(result.status == 0, "\(result.stderr)")
            pages.insert(try String(contentsOfFile: page, encoding: .utf8))
        }
        #expect(pages.count == 1)
        #expect(pages.first?.contains(#"class="where">YuiLines.parse at YuiLines.swift:25<"#) == true)
    }
}
