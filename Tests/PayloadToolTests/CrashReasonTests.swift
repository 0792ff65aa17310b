import Foundation
import PayloadDecode
import RowStore
import TestSupport
import Testing

/// A crash's reason kept as numbers in its row (`exception_type`, `signal`, `termination_code`) and
/// named by `top` and `report` (docs/crash-reports.md, "Reasons"), on the real MetricKit
/// payloads in Tests/Fixtures/real-metrickit (PROVENANCE beside them).
@Suite struct CrashReasons {
    static func real(_ name: String) -> String {
        Repository.testFixtures.appendingPathComponent("real-metrickit/\(name)").path
    }

    /// Embrace's iOS 26 watchdog kill (`terminationReason` is RunningBoard's `code:0x8BADF00D`
    /// text) and Meter's iOS 14 payload with a SIGSEGV and a SIGTRAP crash.
    static let watchdog = real("embrace-splash-crash_with_term_reason.json")
    static let meter = real("meter-ios14-real_report.json")

    @Test func topOnRealPayloadsNamesEachCrashsExceptionAndSignal() throws {
        // An empty store: the shipped list of Apple's images tells the apps' frames (docs/top.md).
        let empty = FileManager.default.temporaryDirectory.appendingPathComponent("yui-empty-store-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: empty, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: empty) }
        let run = ToolRun.run(["top", "--dsyms", empty.path, Self.watchdog, Self.meter])
        #expect(run.status == 0, "\(run.stderr)")
        let lines = run.stdout.split(separator: "\n").map(String.init)
        #expect(
            lines.contains { $0.hasPrefix("  1. crash 1.0 s x1, watchdog 0x8BADF00D, EXC_CRASH (SIGKILL)   Splash.debug.dylib+0x49356c") },
            "\(run.stdout)")
        #expect(lines.filter { $0.contains("crash 1.0 s x1, EXC_BAD_ACCESS (SIGSEGV)   MetricKitTest+") }.count == 1, "\(run.stdout)")
        #expect(lines.filter { $0.contains("crash 1.0 s x1, EXC_BREAKPOINT (SIGTRAP)   MetricKitTest+") }.count == 1, "\(run.stdout)")

        let json = ToolRun.run(["top", "--json", "--dsyms", empty.path, Self.watchdog])
        let document = try #require(try JSONSerialization.jsonObject(with: Data(json.stdout.utf8)) as? [String: Any])
        let signature = try #require(((document["builds"] as? [[String: Any]])?.first?["signatures"] as? [[String: Any]])?.first)
        let causes = try #require(signature["causes"] as? [[String: Any]])
        #expect(causes.count == 1)
        #expect(causes.first?["name"] as? String == "watchdog 0x8BADF00D, EXC_CRASH (SIGKILL)")
        #expect(causes.first?["exception_type"] as? Int == 10 && causes.first?["signal"] as? Int == 9)
        #expect(causes.first?["termination_code"] as? Int == 0x8BAD_F00D && causes.first?["count"] as? Int == 1)
    }

    /// The watchdog's code reaches every form of the report: the crashes line, the worst stack's
    /// line, JSON, the panel's card and the page.
    @Test func theWatchdogsTerminationCodeReachesTheReport() throws {
        let sample = try ReportSample()
        defer { sample.remove() }
        let text = sample.run(["--build", "75"], inputs: [Self.watchdog])
        #expect(text.status == 0, "\(text.stderr)")
        #expect(text.stdout.contains("\ncrashes        1   watchdog 0x8BADF00D, EXC_CRASH (SIGKILL) x1\n"), "\(text.stdout)")
        #expect(text.stdout.contains("\n  1. crash 1.0 s x1, watchdog 0x8BADF00D, EXC_CRASH (SIGKILL)   "), "\(text.stdout)")

        let json = sample.run(["--build", "75", "--json"], inputs: [Self.watchdog])
        let document = try #require(try JSONSerialization.jsonObject(with: Data(json.stdout.utf8)) as? [String: Any])
        let crashes = try #require(document["crashes"] as? [String: Any])
        let causes = try #require(crashes["causes"] as? [[String: Any]])
        #expect(causes.map { $0["termination_code"] as? Int } == [2_343_432_205])
        let worst = try #require((document["worst_stacks"] as? [[String: Any]])?.first)
        #expect((worst["causes"] as? [[String: Any]])?.first?["name"] as? String == "watchdog 0x8BADF00D, EXC_CRASH (SIGKILL)")

        let panel = sample.run(["--build", "75", "--yl"], inputs: [Self.watchdog])
        #expect(panel.stdout.contains("sub=\"build 75 · watchdog 0x8BADF00D, EXC_CRASH (SIGKILL)\""), "\(panel.stdout)")

        let page = sample.folder.appendingPathComponent("page.html").path
        let html = sample.run(["--build", "75", "--html", page], inputs: [Self.watchdog])
        #expect(html.status == 0, "\(html.stderr)")
        let markup = try String(contentsOfFile: page, encoding: .utf8)
        #expect(markup.contains("<span class=\"cause\">watchdog 0x8BADF00D, EXC_CRASH (SIGKILL)</span>"))
        #expect(markup.contains("watchdog 0x8BADF00D, EXC_CRASH (SIGKILL) x1"))
    }

    /// Crashes of one build that ended in different ways: the line names the commonest, the
    /// crashes line counts each, and a crash whose row carries no reason is counted as unknown.
    @Test func aBuildsCrashesAreCountedByReason() throws {
        let rows = try #require(
            (try JSONSerialization.jsonObject(with: Data(ToolRun.run(["rows", Self.meter]).stdout.utf8)) as? [[String: Any]]))
        let crashes = rows.filter { $0["name"] as? String == "crash" }
        #expect(crashes.count == 2)
        // Three copies of the SIGSEGV crash under other keys, one of them written before the columns.
        let segv = try #require(crashes.first { $0["signal"] as? Int == 11 })
        var lines = rows.map(Self.jsonLine)
        for copy in 0..<3 {
            var row = segv
            row["row_key"] = UUID().uuidString.lowercased()
            if copy == 2 { for key in ["exception_type", "signal", "termination_code"] { row.removeValue(forKey: key) } }
            lines.append(Self.jsonLine(row))
        }
        let file = try CommandLineOutput.file("rows.jsonl", lines.joined(separator: "\n") + "\n")
        defer { try? FileManager.default.removeItem(at: file.deletingLastPathComponent()) }
        let sample = try ReportSample()
        defer { sample.remove() }
        let text = sample.run(["--build", "1"], inputs: [file.path])
        #expect(text.status == 0, "\(text.stderr)")
        #expect(
            text.stdout.contains("\ncrashes        5   EXC_BAD_ACCESS (SIGSEGV) x3; EXC_BREAKPOINT (SIGTRAP) x1; unknown reason x1\n"),
            "\(text.stdout)")
        #expect(text.stdout.contains("crash 4.0 s x4 on 1 phone, EXC_BAD_ACCESS (SIGSEGV)   "), "\(text.stdout)")
    }

    /// A reason on a row that is not a crash, or out of range, is the row's error (file, line and
    /// rule named); the run goes on with the other rows.
    @Test func aRowFileWithAReasonWhereNoneBelongsIsRefused() throws {
        let rows = try #require(
            (try JSONSerialization.jsonObject(with: Data(ToolRun.run(["rows", Self.meter]).stdout.utf8)) as? [[String: Any]]))
        var hang = try #require(rows.first { $0["name"] as? String == "crash" })
        hang["name"] = "hang"
        hang["row_key"] = UUID().uuidString.lowercased()
        var negative = try #require(rows.first { $0["name"] as? String == "crash" })
        negative["row_key"] = UUID().uuidString.lowercased()
        negative["exception_type"] = -1
        let file = try CommandLineOutput.file("rows.jsonl", ([hang, negative] + rows).map(Self.jsonLine).joined(separator: "\n") + "\n")
        defer { try? FileManager.default.removeItem(at: file.deletingLastPathComponent()) }
        let run = ToolRun.run(["rows", "--format", "jsonl", file.path])
        #expect(run.status == 1)
        #expect(run.stderr.contains("\(file.path): line 1: row breaks the table's checks: a crash reason"), "\(run.stderr)")
        #expect(run.stderr.contains("\(file.path): line 2: row: key exception_type: not a whole number"), "\(run.stderr)")
        #expect(run.stdout.split(separator: "\n").count == rows.count)
    }

    /// A crash whose metadata gives a reason that is no whole number: a warning names the key, the
    /// row is kept with that column null.
    @Test func aReasonThatIsNoNumberIsLeftNullWithAWarning() throws {
        var text = try String(contentsOfFile: Self.watchdog, encoding: .utf8)
        text = text.replacingOccurrences(of: "\"signal\" : 9", with: "\"signal\" : \"SIGKILL\"")
        let file = try CommandLineOutput.file("watchdog.json", text)
        defer { try? FileManager.default.removeItem(at: file.deletingLastPathComponent()) }
        let run = ToolRun.run(["rows", "--format", "jsonl", "--period-start", "2026-11-28 10:00:00", file.path])
        #expect(run.status == 0, "\(run.stderr)")
        #expect(run.stderr.contains("key diagnosticMetaData.signal: not a whole number from 0 to 2147483647; left null"), "\(run.stderr)")
        let row = try #require(try JSONSerialization.jsonObject(with: Data(run.stdout.utf8)) as? [String: Any])
        #expect(row["signal"] is NSNull && row["exception_type"] as? Int == 10 && row["termination_code"] as? Int == 0x8BAD_F00D)
    }

    static func jsonLine(_ object: [String: Any]) -> String {
        String(decoding: (try? JSONSerialization.data(withJSONObject: object, options: [.sortedKeys])) ?? Data(), as: UTF8.self)
    }
}

/// The reasons through PostgreSQL: `rows --format sql` run as psql would on the partitioned table,
/// and `load` then `top --db` and `report --db` (a live server, as `TopFromTheDatabase`).
@Suite(.enabled(if: ProcessInfo.processInfo.environment["YUI_PERF_SKIP_DB"] != "1"))
struct CrashReasonsInTheDatabase {
    static let user = TopFromTheDatabase.user

    /// The SQL form used to name `ON CONFLICT (user_id, row_key)`, which no constraint of the
    /// partitioned table matches: every statement failed. Now it stores each row once.
    @Test func rowsAsSQLStoreOnceOnThePartitionedTable() throws {
        let (url, drop) = try TopFromTheDatabase.migratedDatabase()
        defer { drop() }
        let database = try RowDatabase(url: url)
        try database.runScript("insert into public.yui_users (id) values ('\(Self.user)')")
        let inputs = [CrashReasons.watchdog, CrashReasons.meter]
        let sql = ToolRun.run(["rows", "--format", "sql", "--user", Self.user, "--period-start", "2026-11-28 10:00:00"] + inputs)
        #expect(sql.status == 0, "\(sql.stderr)")
        let statements = sql.stdout.split(separator: "\n").count
        try database.runScript(sql.stdout)
        try database.runScript(sql.stdout)
        #expect(try database.textRows("select count(*)::text from public.yui_perf") == [[String(statements)]])
        let reasons = try database.textRows(
            "select exception_type::text, signal::text, termination_code::text from public.yui_perf where name = 'crash' order by yui_perf.signal")
        #expect(reasons == [["6", "5", nil], ["10", "9", "2343432205"], ["1", "11", nil]], "\(reasons)")
    }

    @Test func loadedReasonsComeBackInTopAndTheReport() throws {
        let (url, drop) = try TopFromTheDatabase.migratedDatabase()
        defer { drop() }
        let inputs = [CrashReasons.watchdog, CrashReasons.meter]
        let load = ToolRun.run(["load", "--db", url, "--user", Self.user, "--create-users", "--period-start", "2026-11-28 10:00:00"] + inputs)
        #expect(load.status == 0, "\(load.stderr)")
        // `top` takes no period flags: the period is no part of a row's key or its ranking.
        let fromFiles = ToolRun.run(["top", "--json", "--user", Self.user] + inputs)
        let fromDatabase = ToolRun.run(["top", "--json", "--db", url, "--user", Self.user])
        #expect(fromDatabase.status == 0, "\(fromDatabase.stderr)")
        #expect(fromDatabase.stdout == fromFiles.stdout)
        #expect(fromDatabase.stdout.contains("\"name\" : \"watchdog 0x8BADF00D, EXC_CRASH (SIGKILL)\""))

        let sample = try ReportSample()
        defer { sample.remove() }
        let report = ToolRun.run(["report", "--db", url, "--user", Self.user, "--build", "75", "--summaries", sample.summaries])
        #expect(report.status == 0, "\(report.stderr)")
        #expect(report.stdout.contains("\ncrashes        1   watchdog 0x8BADF00D, EXC_CRASH (SIGKILL) x1\n"), "\(report.stdout)")
    }
}
