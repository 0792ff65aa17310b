import Foundation
import TestSupport
import Testing

/// A MetricKit-only app with exits and signposts, as `report` shows it (docs/report.md,
/// "Terminations and disk writes"): two builds of the iOS 16 sample, three foreground hours each;
/// build 117 had no watchdog exit, build 118 three.
struct OrganizerApp {
    let folder: URL
    let builds: [String]
    var summaries: String { folder.appendingPathComponent("builds.json").path }

    init() throws {
        folder = FileManager.default.temporaryDirectory.appendingPathComponent("yui-organizer-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        let payload = try String(contentsOf: Repository.samples.appendingPathComponent("metrics-ios16.json"), encoding: .utf8)
        var builds: [String] = []
        for (build, watchdog) in [("117", "\"cumulativeAbnormalExitCount\" : 0"), ("118", "\"cumulativeAppWatchdogExitCount\" : 3")] {
            let text =
                payload
                .replacingOccurrences(of: "\"appBuildVersion\" : \"118\"", with: "\"appBuildVersion\" : \"\(build)\"")
                .replacingOccurrences(of: "\"cumulativeForegroundTime\" : \"3600 sec\"", with: "\"cumulativeForegroundTime\" : \"10800 sec\"")
                .replacingOccurrences(of: "\"cumulativeAppWatchdogExitCount\" : 1", with: watchdog)
            precondition(text.contains("\"\(build)\"") && text.contains("10800 sec") && text.contains(watchdog))
            let path = folder.appendingPathComponent("build-\(build).json").path
            try text.write(toFile: path, atomically: true, encoding: .utf8)
            builds.append(path)
        }
        self.builds = builds
    }

    func run(_ arguments: [String]) -> (status: Int32, stdout: String, stderr: String) {
        ToolRun.run(["report", "--summaries", summaries] + arguments + builds)
    }

    func remove() { try? FileManager.default.removeItem(at: folder) }
}

@Suite struct ReportOfOrganizersPanes {
    /// The text names the terminations by reason and the signpost interval; the watchdog exits that
    /// appeared are WORSE and make the briefing.
    @Test func terminationsAndSignpostsAreNamed() throws {
        let app = try OrganizerApp()
        defer { app.remove() }
        let text = app.run([])
        #expect(text.status == 0, "\(text.stderr)")
        #expect(text.stdout.contains("\nthread_open_3685d22d_mk   143   43     140   -            p95 +0\n"), "\(text.stdout)")
        #expect(text.stdout.contains("\ndisk writes    1.3 MB a day (117: 1.3)\n"), "\(text.stdout)")
        #expect(text.stdout.contains("\nterminations   per foreground hour (build 117)\n"), "\(text.stdout)")
        #expect(text.stdout.contains("\n  foreground normal                 4.00 (4.00)   x12\n"), "\(text.stdout)")
        #expect(text.stdout.contains("\n  foreground watchdog               1.00 (0.00)   x3  WORSE\n"), "\(text.stdout)")
        #expect(text.stdout.contains("\n  foreground abnormal               0.00 (0.00)   x0\n"), "\(text.stdout)")
        let briefing = app.run(["--briefing"])
        #expect(
            briefing.stdout
                == "Speed: build 118 was ended by watchdog in the foreground (3 times), where build 117 never was.\n",
            "\(briefing.stdout)")
    }

    @Test func jsonAndPanelCarryThem() throws {
        let app = try OrganizerApp()
        defer { app.remove() }
        let json = app.run(["--json"])
        let document = try #require(try JSONSerialization.jsonObject(with: Data(json.stdout.utf8)) as? [String: Any])
        let terminations = try #require(document["terminations"] as? [[String: Any]])
        let watchdog = try #require(terminations.first { $0["name"] as? String == "exit_fg_watchdog" })
        #expect(watchdog["count"] as? Int == 3 && watchdog["previous_count"] as? Int == 0)
        #expect(watchdog["per_hour"] as? Double == 1 && watchdog["worse"] as? Bool == true)
        #expect((document["worse"] as? [[String: Any]])?.map { $0["what"] as? String } == ["exit:exit_fg_watchdog"])
        let disk = try #require(document["disk_writes"] as? [String: Any])
        #expect(disk["value"] as? Double == 1.27 && disk["unit"] as? String == "MB/day")
        let panel = app.run(["--yl"])
        #expect(
            panel.stdout.contains(
                "stat@speed-exits 1.00/h \"Terminations\" delta=1.00 spark=0.00|1.00 good=down sub=\"build 118 · not normal, per foreground hour\"\n"),
            "\(panel.stdout)")
    }

    /// `--budget NAME=MS` gives a signpost's row a budget: OVER past it.
    @Test func aSignpostGetsABudget() throws {
        let app = try OrganizerApp()
        defer { app.remove() }
        let run = app.run(["--budget", "thread_open_3685d22d_mk=120", "--budget", "launch_mk=900"])
        #expect(run.status == 0, "\(run.stderr)")
        #expect(run.stdout.contains("\nthread_open_3685d22d_mk   143   43     140   120  OVER    p95 +0\n"), "\(run.stdout)")
        let bad = app.run(["--budget", "Thread Open=120"])
        #expect(bad.status == 64)
        #expect(bad.stderr.contains("Invalid value 'Thread Open=120' for '--budget'"), "\(bad.stderr)")
    }

    /// The page at a phone's width and a desktop's: the terminations table and the signpost row,
    /// no sideways scroll, no text under 11 px. Screenshots: docs/report-page-organizer-phone.png
    /// and docs/report-page-organizer-1280.png (`YUI_RECORD_SNAPSHOTS=1` writes them again).
    @Test(arguments: [
        (["--phone"], "report-page-organizer-phone.png"), (["--width", "1280"], "report-page-organizer-1280.png"),
    ])
    func thePageShowsThemAtAPhonesWidthAndADesktops(options: [String], screenshot: String) throws {
        let app = try OrganizerApp()
        defer { app.remove() }
        let page = app.folder.appendingPathComponent("report.html").path
        #expect(app.run(["--html", page]).status == 0)
        let html = try String(contentsOfFile: page, encoding: .utf8)
        #expect(html.contains("<h2 id=\"exits-title\">Terminations and disk writes</h2>"))
        #expect(html.contains("<tr class=\"worse\"><th scope=\"row\">foreground watchdog</th><td>3</td><td>1.00</td><td>0.00</td>"))
        #expect(html.contains("<th scope=\"row\">thread_open_3685d22d_mk</th>"))
        #expect(html.contains("id=\"speed-exits\""))
        var arguments = options
        if ProcessInfo.processInfo.environment["YUI_RECORD_SNAPSHOTS"] == "1" {
            arguments += ["--screenshot", Repository.root.appendingPathComponent("docs/\(screenshot)").path]
        }
        let shown = try ReportPageInABrowser.check(page, options: arguments)
        #expect(shown.console_errors.isEmpty, "console: \(shown.console_errors)")
        #expect(!shown.layout.sideways_scroll, "content \(shown.layout.content_width) px in \(shown.layout.viewport_width)")
        #expect((shown.layout.smallest_text ?? 0) >= 11, "under 11 px: \(shown.layout.under_11px.prefix(5).map { "\($0.text) \($0.size)" })")
    }
}

/// `load` stores the new rows (the table's checks take every name) and `report --db` reads them back
/// into the same report as the payload files give, in every output.
@Suite(.enabled(if: ProcessInfo.processInfo.environment["YUI_PERF_SKIP_DB"] != "1"))
struct OrganizersPanesFromTheDatabase {
    @Test func loadAndReportFromTheDatabaseCarryThem() throws {
        let (url, drop) = try TopFromTheDatabase.migratedDatabase()
        defer { drop() }
        let app = try OrganizerApp()
        defer { app.remove() }
        let user = ReportFromTheDatabase.owner
        let load = ToolRun.run(["load", "--db", url, "--create-users", "--user", user] + app.builds)
        #expect(load.status == 0, "stderr: \(load.stderr)")
        #expect(load.stdout.contains("28 rows"), "\(load.stdout)")
        for mode in [[], ["--json"], ["--yl"], ["--briefing"]] {
            let fromFiles = ToolRun.run(
                ["report", "--user", user, "--summaries", app.folder.appendingPathComponent("files.json").path] + mode + app.builds)
            let fromDatabase = ToolRun.run(
                ["report", "--summaries", app.folder.appendingPathComponent("db.json").path, "--db", url, "--user", user] + mode)
            #expect(fromDatabase.status == 0, "stderr: \(fromDatabase.stderr)")
            #expect(fromDatabase.stdout == fromFiles.stdout, "mode \(mode)")
        }
        let text = ToolRun.run(["report", "--summaries", app.folder.appendingPathComponent("t.json").path, "--db", url, "--user", user])
        #expect(text.stdout.contains("  foreground watchdog               1.00 (0.00)   x3  WORSE\n"), "\(text.stdout)")
        #expect(text.stdout.contains("thread_open_3685d22d_mk"), "\(text.stdout)")
    }
}
