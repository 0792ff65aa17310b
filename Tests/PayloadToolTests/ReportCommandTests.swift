import Foundation
import PayloadTool
import RowStore
import TestSupport
import Testing

/// The shipped report sample (samples/report/rows.jsonl, made by samples/report/make-rows.py) and
/// a summaries file of the test's own, so no test reads or writes ~/.yui-perf-builds.json.
struct ReportSample {
    static let rows = Repository.samples.appendingPathComponent("report/rows.jsonl").path
    static let dsyms = Repository.samples.appendingPathComponent("dsyms").path
    static let expected = Repository.testFixtures.appendingPathComponent("report")

    let folder: URL
    var summaries: String { folder.appendingPathComponent("builds.json").path }

    init() throws {
        folder = FileManager.default.temporaryDirectory.appendingPathComponent("yui-report-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
    }

    func remove() { try? FileManager.default.removeItem(at: folder) }

    func run(_ arguments: [String], inputs: [String] = [ReportSample.rows]) -> (status: Int32, stdout: String, stderr: String) {
        ToolRun.run(["report", "--dsyms", Self.dsyms, "--summaries", summaries] + arguments + inputs)
    }

    static func expected(_ name: String) throws -> String {
        try String(contentsOf: expected.appendingPathComponent(name), encoding: .utf8)
    }

    /// The sample's rows without the given builds, as a file in the test's folder.
    func rows(without builds: Set<Int>) throws -> String {
        let lines = try String(contentsOfFile: Self.rows, encoding: .utf8).split(separator: "\n").filter { line in
            !builds.contains { line.contains("\"app_build\":\($0),") }
        }
        let path = folder.appendingPathComponent("rows-\(builds.sorted()).jsonl").path
        try (lines.joined(separator: "\n") + "\n").write(toFile: path, atomically: true, encoding: .utf8)
        return path
    }
}

@Suite struct ReportGolden {
    /// Seed section 6's example, build 125 against 124: the same numbers, OVER and WORSE marks.
    /// The expected file is the design's example text with the two intervals under 20 samples printing `-`
    /// and the signatures of the YuiApp test build (docs/report.md says why).
    @Test func reproducesTheSeedsExampleReport() throws {
        let sample = try ReportSample()
        defer { sample.remove() }
        let run = sample.run([])
        #expect(run.status == 0, "stderr: \(run.stderr)")
        #expect(run.stderr.isEmpty)
        #expect(run.stdout == (try ReportSample.expected("build-125.txt")))
    }

    /// Seed section 7's briefing line, and section 8's panel lines over builds 121 to 125.
    @Test func briefingAndPanelLinesAreTheSeeds() throws {
        let sample = try ReportSample()
        defer { sample.remove() }
        let briefing = sample.run(["--briefing"])
        #expect(briefing.status == 0)
        #expect(briefing.stdout == (try ReportSample.expected("build-125.briefing")))
        let panel = sample.run(["--yl"])
        #expect(panel.status == 0)
        #expect(panel.stdout == (try ReportSample.expected("build-125.yl")))
    }

    /// On a day when nothing got worse the briefing prints nothing, and still exits 0.
    @Test func briefingIsSilentOnAGoodDay() throws {
        let sample = try ReportSample()
        defer { sample.remove() }
        // Build 124 against 123: typing and send went down, arrive -2 ms, rates down.
        let run = sample.run(["--briefing", "--build", "124"])
        #expect(run.status == 0, "stderr: \(run.stderr)")
        #expect(run.stdout.isEmpty)
    }

    @Test func jsonCarriesWhatTheTextShows() throws {
        let sample = try ReportSample()
        defer { sample.remove() }
        let run = sample.run(["--json"])
        #expect(run.status == 0)
        let object = try #require(try JSONSerialization.jsonObject(with: Data(run.stdout.utf8)) as? [String: Any])
        #expect(object["build"] as? Int == 125)
        #expect(object["previous"] as? Int == 124)
        let intervals = try #require(object["intervals"] as? [[String: Any]])
        #expect(intervals.count == 8)
        let arrive = try #require(intervals.first { $0["name"] as? String == "arrive_drawn" })
        #expect(arrive["n"] as? Int == 198)
        #expect((arrive["p95"] as? Double).map { $0.rounded() } == 172)
        #expect(arrive["budget"] as? Double == 150)
        #expect(arrive["over"] as? Bool == true)
        #expect(arrive["delta_p95"] as? Int == 44)
        #expect(arrive["worse"] as? Bool == true)
        let cold = try #require(intervals.first { $0["name"] as? String == "thread_open_cold" })
        #expect(cold["p95"] is NSNull)
        #expect(cold["delta_p95"] is NSNull)
        let hangs = try #require(object["hangs"] as? [String: Any])
        #expect((hangs["value"] as? Double).map { ($0 * 10).rounded() / 10 } == 0.8)
        #expect(hangs["long"] as? Int == 0)
        let memory = try #require(object["memory"] as? [String: Any])
        #expect(memory["peak"] as? Double == 212)
        #expect(memory["growth_30min"] as? Double == 6)
        let worse = try #require(object["worse"] as? [[String: Any]])
        #expect(worse.map { $0["what"] as? String } == ["interval:arrive_drawn"])
        #expect(object["briefing"] as? String == (try ReportSample.expected("build-125.briefing")).trimmingCharacters(in: .newlines))
        let stacks = try #require(object["worst_stacks"] as? [[String: Any]])
        #expect(stacks.first?["count"] as? Int == 3)
        for key in ["hitches", "crashes", "cpu", "days", "phones", "foreground_hours", "history"] {
            #expect(object[key] != nil, "key \(key)")
        }
    }
}

@Suite struct ReportSummaries {
    /// Seed section 6: a build stays comparable after its rows are deleted at 90 days.
    @Test func aBuildStaysComparableAfterItsRowsAreGone() throws {
        let sample = try ReportSample()
        defer { sample.remove() }
        let first = sample.run([])
        #expect(first.status == 0)
        let stored = try String(contentsOfFile: sample.summaries, encoding: .utf8)
        #expect(stored.contains("\"124\""))
        let without124 = try sample.rows(without: [121, 122, 123, 124])
        let second = sample.run([], inputs: [without124])
        #expect(second.status == 0, "stderr: \(second.stderr)")
        #expect(second.stdout == first.stdout)
        let panel = sample.run(["--yl"], inputs: [without124])
        #expect(panel.stdout == (try ReportSample.expected("build-125.yl")))
    }

    /// Without the summaries and without the rows, there is nothing to compare with.
    @Test func withoutSummariesOrRowsNothingIsCompared() throws {
        let sample = try ReportSample()
        defer { sample.remove() }
        let run = sample.run([], inputs: [try sample.rows(without: [121, 122, 123, 124])])
        #expect(run.status == 0)
        #expect(run.stdout.hasPrefix("Yui speed, build 125 (last 24 h, 3 phones, 11.2 foreground hours)\n"))
        #expect(run.stdout.contains("note: no earlier build with enough data to compare with"))
        #expect(!run.stdout.contains("WORSE"))
    }

    /// The file is merged, never truncated: builds this run did not see stay, and a run that saw
    /// fewer rows of a build does not thin its summary.
    @Test func theFileIsMergedNotTruncated() throws {
        let sample = try ReportSample()
        defer { sample.remove() }
        _ = sample.run([])
        let full = try String(contentsOfFile: sample.summaries, encoding: .utf8)
        _ = sample.run([], inputs: [try sample.rows(without: [121, 122, 123, 124])])
        #expect(try String(contentsOfFile: sample.summaries, encoding: .utf8) == full)
        for build in 121...125 { #expect(full.contains("\"\(build)\"")) }
    }

    /// A summaries file that is not one is named, left alone, and the report still comes out.
    @Test func aBrokenSummariesFileIsNamedAndKept() throws {
        let sample = try ReportSample()
        defer { sample.remove() }
        try "{not json".write(toFile: sample.summaries, atomically: true, encoding: .utf8)
        let run = sample.run([])
        #expect(run.status == 0)
        #expect(run.stderr.contains("warning: \(sample.summaries): not a build summaries file"))
        #expect(run.stdout == (try ReportSample.expected("build-125.txt")))
        #expect(try String(contentsOfFile: sample.summaries, encoding: .utf8) == "{not json")
    }
}

@Suite struct ReportCommandLine {
    @Test(arguments: [
        (["report"], "Missing input"),
        (["report", "--json", "--yl", "x"], "cannot be used together"),
        (["report", "--days", "0", "x"], "--days"),
        (["report", "--build", "../../etc", "x"], "--build"),
        (["report", "--db", "postgresql://localhost/x"], "--user"),
        (["report", "--budgets", "/nonexistent/budgets.json", "x"], "--budgets"),
    ])
    func usageErrorsExit64(arguments: [String], mention: String) {
        let run = ToolRun.run(arguments)
        #expect(run.status == 64)
        #expect(run.stderr.contains(mention), "stderr: \(run.stderr)")
        #expect(run.stdout.isEmpty)
    }

    @Test func helpListsEveryOption() {
        let run = ToolRun.run(["report", "--help"])
        #expect(run.status == 0)
        for option in ["--days", "--build", "--json", "--briefing", "--yl", "--db", "--user", "--budgets", "--summaries", "--dsyms"] {
            #expect(run.stdout.contains(option), "help lacks \(option)")
        }
    }

    /// A bad input is named, the others are still read, the run exits 1.
    @Test func aBadInputIsNamedAndTheRestReported() throws {
        let sample = try ReportSample()
        defer { sample.remove() }
        let broken = sample.folder.appendingPathComponent("broken.json").path
        try "{\"metaData\": ".write(toFile: broken, atomically: true, encoding: .utf8)
        let run = sample.run([], inputs: [broken, ReportSample.rows])
        #expect(run.status == 1)
        #expect(run.stderr.contains("error: \(broken)"))
        #expect(run.stdout == (try ReportSample.expected("build-125.txt")))
    }

    /// Absurd but table-legal numbers (counts of 2^31-1, a max of 3e38 ms, 3e38 s of foreground
    /// time) give a report, not a trap.
    @Test func absurdNumbersDoNotTrap() throws {
        let sample = try ReportSample()
        defer { sample.remove() }
        let lines = try String(contentsOfFile: ReportSample.rows, encoding: .utf8).split(separator: "\n").map { line -> String in
            var object = (try? JSONSerialization.jsonObject(with: Data(line.utf8))) as? [String: Any] ?? [:]
            if object["buckets"] is [Any] { object["buckets"] = [Int](repeating: 2_147_483_647, count: 18) }
            if object["max"] is NSNumber { object["max"] = 3e38 }
            if object["value"] is NSNumber { object["value"] = 3e38 }
            return String(decoding: (try? JSONSerialization.data(withJSONObject: object)) ?? Data(), as: UTF8.self)
        }
        let path = sample.folder.appendingPathComponent("absurd.jsonl").path
        try (lines.joined(separator: "\n") + "\n").write(toFile: path, atomically: true, encoding: .utf8)
        for mode in [[], ["--json"], ["--yl"], ["--briefing"]] {
            let run = sample.run(mode, inputs: [path])
            #expect(run.status == 0, "stderr: \(run.stderr)")
            #expect(!run.stdout.isEmpty || mode == ["--briefing"])
        }
    }

    /// `--budgets` replaces the defaults: with arrive at 200 ms, 172 is no longer OVER, but the
    /// 34% rise is still WORSE.
    @Test func budgetsFileReplacesTheSeeds() throws {
        let sample = try ReportSample()
        defer { sample.remove() }
        let budgets = sample.folder.appendingPathComponent("budgets.json").path
        try #"{"intervals": {"arrive_drawn": 200}, "memory_mb": 250}"#.write(toFile: budgets, atomically: true, encoding: .utf8)
        let run = sample.run(["--budgets", budgets])
        #expect(run.status == 0, "stderr: \(run.stderr)")
        #expect(run.stdout.contains("arrive_drawn         198   38     172   200          p95 +44  WORSE\n"))
        let bad = sample.folder.appendingPathComponent("bad.json").path
        try #"{"intervals": {"arrive_drawn": "fast"}}"#.write(toFile: bad, atomically: true, encoding: .utf8)
        let refused = sample.run(["--budgets", bad])
        #expect(refused.status == 64)
        #expect(refused.stderr.contains("intervals.arrive_drawn: not a positive number"))
    }

    /// A window that holds only build 124's last day makes 124 the report's build.
    @Test func daysWidenTheWindow() throws {
        let sample = try ReportSample()
        defer { sample.remove() }
        let week = sample.run(["--days", "7"])
        #expect(week.stdout.hasPrefix("Yui speed, build 125 vs 124 (last 7 days, 3 phones, 11.2 foreground hours)"))
        let older = sample.run(["--build", "123"])
        #expect(older.stdout.hasPrefix("Yui speed, build 123 vs 122 (all its rows, 3 phones, 9.0 foreground hours)"))
        #expect(older.stderr.contains("note: build 123 has no rows in the window"))
    }
}

/// `report --db` reads as the owner's connector: row level security decides what it sees.
@Suite(.enabled(if: ProcessInfo.processInfo.environment["YUI_PERF_SKIP_DB"] != "1"))
struct ReportFromTheDatabase {
    static let owner = "0b9c7d3e-1f2a-4b5c-8d6e-7f8091a2b3c4"
    static let stranger = "9d8c7b6a-5f4e-4d3c-8b2a-1f0e9d8c7b6a"

    @Test func givesTheSameReportAsTheFilesAndHidesOtherUsersRows() throws {
        let (url, drop) = try TopFromTheDatabase.migratedDatabase()
        defer { drop() }
        let sample = try ReportSample()
        defer { sample.remove() }
        // The stranger's rows: the same rows of build 125 with a far worse arrive_drawn and new
        // keys, under another user.
        let text = try String(contentsOfFile: ReportSample.rows, encoding: .utf8)
        var strangerLines: [String] = []
        for line in text.split(separator: "\n") where line.contains("\"app_build\":125,") {
            var object = try #require(try JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any])
            object["user_id"] = Self.stranger
            object["row_key"] = UUID().uuidString.lowercased()
            if object["name"] as? String == "arrive_drawn" { object["buckets"] = [0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 40, 0, 0, 0] }
            if object["name"] as? String == "arrive_drawn" { object["max"] = 900.0 }
            strangerLines.append(String(decoding: try JSONSerialization.data(withJSONObject: object), as: UTF8.self))
        }
        let strangerRows = sample.folder.appendingPathComponent("stranger.jsonl").path
        try (strangerLines.joined(separator: "\n") + "\n").write(toFile: strangerRows, atomically: true, encoding: .utf8)
        let load = ToolRun.run(["load", "--db", url, "--create-users", ReportSample.rows, strangerRows])
        #expect(load.status == 0, "stderr: \(load.stderr)")

        for mode in [[], ["--json"], ["--yl"], ["--briefing"]] {
            let fromFiles = ReportSample.init(folder: sample.folder, name: "files").run(mode)
            let fromDatabase = ReportSample.init(folder: sample.folder, name: "db").run(mode + ["--db", url, "--user", Self.owner], inputs: [])
            #expect(fromDatabase.status == 0, "stderr: \(fromDatabase.stderr)")
            #expect(fromDatabase.stdout == fromFiles.stdout, "mode \(mode)")
        }
        let stranger = ToolRun.run(
            [
                "report", "--summaries", sample.folder.appendingPathComponent("s.json").path, "--dsyms", ReportSample.dsyms, "--db", url, "--user",
                Self.stranger,
            ])
        #expect(stranger.status == 0, "stderr: \(stranger.stderr)")
        #expect(stranger.stdout.contains("arrive_drawn"))
        #expect(!stranger.stdout.contains(" 172 "))
    }
}

extension ReportFromTheDatabase {
    /// A hang row planted past the frame check (the owner's table as the migration made it before it
    /// checked image names and UUIDs strictly): `report --db` names it and leaves it out, as a bad
    /// line of a row file, and its image's terminal controls never reach the worst stacks it prints.
    @Test func aRowPlantedPastTheChecksIsNamedAndPrintsNothingButText() throws {
        let (url, drop) = try TopFromTheDatabase.migratedDatabase()
        defer { drop() }
        let sample = try ReportSample()
        defer { sample.remove() }
        let load = ToolRun.run(["load", "--db", url, "--create-users", ReportSample.rows])
        #expect(load.status == 0, "stderr: \(load.stderr)")
        let owner = try RowDatabase(url: url)
        try owner.runScript(OlderMigrations.restoreFrameShapeCheck)
        let planted = "00000000-0000-4000-8000-0000000000e5"
        try owner.runScript(
            #"""
            insert into public.yui_perf (user_id, row_key, kind, name, app_build, app_version, os, device,
                                         period_start, period_end, n, value, stack)
            values ('\#(Self.owner)', '\#(planted)', 'diagnostic', 'hang', 125, '2.25.0', '26.1', 'iPhone16,2',
                    '2026-11-28T15:17:00Z', '2026-11-28T15:17:00Z', 1, 50,
                    '[{"image":"YuiApp\u001b]0;PWNED\u0007\r\nSpeed: build 999","offset":16560}]'::jsonb)
            """#)
        for mode in [[], ["--yl"], ["--html", sample.folder.appendingPathComponent("page.html").path]] {
            let run = try ToolBinary.run(
                ["report", "--summaries", sample.summaries, "--dsyms", ReportSample.dsyms, "--db", url, "--user", Self.owner] + mode)
            #expect(run.status == 1, "\(mode): \(run.stderr)")
            #expect(!run.stdout.utf8.contains { ($0 < 0x20 && $0 != 0x0A) || $0 == 0x7F }, "\(mode): \(run.stdout.debugDescription)")
            #expect(!run.stdout.contains("PWNED") && !run.stdout.contains("999"), "\(mode)")
            #expect(run.stdout.contains("125"), "\(mode): \(run.stdout)")
            #expect(run.stderr.contains("error: --db: row id "), "\(mode): \(run.stderr)")
            #expect(run.stderr.contains("(row_key \(planted)): row breaks the table's checks: stack frame 0: image 'YuiApp\\u{1B}]0;PWNED"))
        }
        let page = try String(contentsOfFile: sample.folder.appendingPathComponent("page.html").path, encoding: .utf8)
        #expect(!page.contains("PWNED"))
    }
}

extension ReportSample {
    /// A second summaries file in the same folder, so two runs compared with each other start alike.
    init(folder: URL, name: String) {
        self.folder = folder.appendingPathComponent(name)
        try? FileManager.default.createDirectory(at: self.folder, withIntermediateDirectories: true)
    }
}

/// An app that sends MetricKit's payloads and no signpost intervals: its tiles and
/// chart are MetricKit's own figures, never an empty tile.
@Suite struct ReportForAMetricKitOnlyApp {
    static let payloads = ["metrics-ios13.json", "metrics-ios14-zh.json", "metrics-ios16.json"].map {
        Repository.samples.appendingPathComponent($0).path
    }

    /// Launch, resume, hitches, hangs, memory, and Organizer's terminations (the samples carry exit
    /// counts; the seed's rows do not, so its panel keeps five tiles).
    @Test func itsTilesAllHaveNumbersAndMatchTheGoldenLines() throws {
        let sample = try ReportSample()
        defer { sample.remove() }
        let run = sample.run(["--yl"], inputs: Self.payloads)
        #expect(run.status == 0, "\(run.stderr)")
        let tiles = run.stdout.split(separator: "\n").filter { $0.hasPrefix("stat@") }
        #expect(tiles.count == 6)
        for tile in tiles {
            // `stat@ID VALUE "Title" …`: the value is a number with its unit, never `-`.
            let value = tile.split(separator: " ")[1]
            #expect(value.first?.isNumber == true, "\(tile)")
        }
        #expect(
            tiles.map { String($0.split(separator: " ")[0]) } == [
                "stat@speed-launch", "stat@speed-resume", "stat@speed-hitch", "stat@speed-hangs", "stat@speed-mem", "stat@speed-exits",
            ])
        #expect(run.stdout.contains("names=Launch|Resume"), "\(run.stdout)")
        #expect(run.stdout == (try ReportSample.expected("metrickit-only.yl")))
        // The seed's app keeps the seed's tiles.
        let seed = sample.run(["--yl"])
        #expect(seed.stdout == (try ReportSample.expected("build-125.yl")))
    }
}

/// `report --app-name NAME`: the name in the title, the briefing, the JSON and the page;
/// without it the seed's `Yui` (the golden report still matches).
@Suite struct ReportAppName {
    @Test func theNameIsInEveryOutputThatHasATitle() throws {
        let sample = try ReportSample()
        defer { sample.remove() }
        let text = sample.run(["--app-name", "Acme Notes"])
        #expect(text.stdout.hasPrefix("Acme Notes speed, build 125 vs 124 (last 24 h, 3 phones, 11.2 foreground hours)\n"), "\(text.stdout)")
        let briefing = sample.run(["--app-name", "Acme Notes", "--briefing"])
        #expect(briefing.stdout.hasPrefix("Acme Notes speed: build 125 is slower where agent messages land"), "\(briefing.stdout)")
        let json = sample.run(["--app-name", "Acme Notes", "--json"])
        let object = try #require(try JSONSerialization.jsonObject(with: Data(json.stdout.utf8)) as? [String: Any])
        #expect(object["app"] as? String == "Acme Notes")
        let page = sample.folder.appendingPathComponent("page.html").path
        _ = sample.run(["--app-name", "Acme <Notes>", "--html", page])
        let html = try String(contentsOfFile: page, encoding: .utf8)
        #expect(html.contains("<title>Acme &lt;Notes&gt; speed, build 125 vs 124</title>"), "\(html.prefix(400))")
        // Without it: the seed's name and the seed's briefing.
        #expect(sample.run(["--briefing"]).stdout == (try ReportSample.expected("build-125.briefing")))
        let plain = try #require(try JSONSerialization.jsonObject(with: Data(sample.run(["--json"]).stdout.utf8)) as? [String: Any])
        #expect(plain["app"] as? String == "Yui")
    }

    @Test(arguments: ["", "a\u{1B}[31m", String(repeating: "x", count: 65)])
    func aNameWithControlsOrTooLongIsAUsageError(name: String) {
        let run = ToolRun.run(["report", "--app-name", name, ReportSample.rows])
        #expect(run.status == 64)
        #expect(run.stderr.contains("'--app-name'"), "\(run.stderr)")
    }
}
