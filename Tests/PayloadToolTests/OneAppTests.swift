import Foundation
import PayloadDecode
import RowStore
import TestSupport
import Testing

/// Two apps' rows are never one app's builds (docs/report.md, "One app"): rows keep the
/// payload's bundle identifier, and `report` and `top` over rows of several apps want
/// `--bundle-id`. The payloads are the shipped iOS 16 metric payload in two apps' names, builds 1
/// and 0, each with enough foreground time to be compared, as a report once compared them.
@Suite struct OneApp {
    let folder: URL
    let alpha: String
    let beta: String

    init() throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("yui-one-app-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        self.folder = folder
        alpha = try Self.payload(of: "com.example.Alpha", build: "1", in: folder)
        beta = try Self.payload(of: "com.example.Beta", build: "0", in: folder)
    }

    /// The iOS 16 metric payload as app `bundle`'s build `build`, with three foreground hours.
    static func payload(of bundle: String, build: String, in folder: URL) throws -> String {
        let payload = try String(contentsOf: Repository.samples.appendingPathComponent("metrics-ios16.json"), encoding: .utf8)
        let text =
            payload
            .replacingOccurrences(of: "\"app.yui.Yui\"", with: "\"\(bundle)\"")
            .replacingOccurrences(of: "\"appBuildVersion\" : \"118\"", with: "\"appBuildVersion\" : \"\(build)\"")
            .replacingOccurrences(of: "\"cumulativeForegroundTime\" : \"3600 sec\"", with: "\"cumulativeForegroundTime\" : \"10800 sec\"")
        precondition(text.contains(bundle) && text.contains("\"\(build)\"") && text.contains("10800 sec"))
        let path = folder.appendingPathComponent("\(bundle).json").path
        try text.write(toFile: path, atomically: true, encoding: .utf8)
        return path
    }

    func remove() { try? FileManager.default.removeItem(at: folder) }

    var summaries: String { folder.appendingPathComponent("builds.json").path }

    @Test func aReportOverTwoAppsIsRefusedNamingThem() throws {
        defer { remove() }
        for output in [[], ["--json"], ["--yl"], ["--briefing"]] {
            let run = ToolRun.run(["report", "--summaries", summaries] + output + [alpha, beta])
            #expect(run.status == 1, "\(output)")
            #expect(run.stdout.isEmpty, "\(output): \(run.stdout)")
            #expect(
                run.stderr.contains(
                    "error: the inputs hold the rows of 2 apps: com.example.Alpha (14 rows), com.example.Beta (14 rows); give --bundle-id ID for one of them"
                ), "\(run.stderr)")
        }
        #expect(!FileManager.default.fileExists(atPath: summaries), "no summary of a mixed set is kept")
    }

    @Test func eachAppIsReportedAloneWithItsName() throws {
        defer { remove() }
        let run = ToolRun.run(["report", "--summaries", summaries, "--bundle-id", "com.example.Alpha", alpha, beta])
        #expect(run.status == 0, "\(run.stderr)")
        #expect(run.stdout.hasPrefix("Alpha speed, build 1 (last 24 h, 1 phone, 3.0 foreground hours)\n"), "\(run.stdout)")
        #expect(!run.stdout.contains("vs 0") && !run.stdout.contains("(0:"), "\(run.stdout)")
        #expect(run.stderr.contains("note: rows of other apps left out: com.example.Beta 14 rows"), "\(run.stderr)")
        let json = ToolRun.run(["report", "--summaries", summaries, "--bundle-id", "com.example.Beta", "--json", alpha, beta])
        let object = try #require(try JSONSerialization.jsonObject(with: Data(json.stdout.utf8)) as? [String: Any])
        #expect(object["app"] as? String == "Beta" && object["bundle_id"] as? String == "com.example.Beta")
        #expect(object["build"] as? Int == 0 && object["previous"] is NSNull)
        #expect((object["history"] as? [[String: Any]])?.map { $0["build"] as? Int } == [0])
        // The summaries file keeps both apps' builds apart: Alpha's build 1 is not Beta's history.
        let again = ToolRun.run(["report", "--summaries", summaries, "--bundle-id", "com.example.Beta", "--json", beta])
        let second = try #require(try JSONSerialization.jsonObject(with: Data(again.stdout.utf8)) as? [String: Any])
        #expect(second["previous"] is NSNull, "\(again.stdout)")
        // --app-name still wins.
        let named = ToolRun.run(["report", "--summaries", summaries, "--app-name", "Alpha Notes", alpha])
        #expect(named.stdout.hasPrefix("Alpha Notes speed, build 1"), "\(named.stdout)")
    }

    /// The bundle identifier travels with the rows: a row file of both apps is refused as the
    /// payloads are, and `top` keeps to one app as the report does.
    @Test func rowFilesAndTopKeepToOneApp() throws {
        defer { remove() }
        let rows = ToolRun.run(["rows", "--format", "jsonl", alpha, beta])
        #expect(rows.status == 0, "\(rows.stderr)")
        #expect(
            rows.stdout.split(separator: "\n").allSatisfy {
                $0.hasSuffix(",\"bundle_id\":\"com.example.Alpha\"}") || $0.hasSuffix(",\"bundle_id\":\"com.example.Beta\"}")
            })
        let file = folder.appendingPathComponent("rows.jsonl").path
        try rows.stdout.write(toFile: file, atomically: true, encoding: .utf8)
        let report = ToolRun.run(["report", "--summaries", summaries, file])
        #expect(report.status == 1 && report.stdout.isEmpty && report.stderr.contains("rows of 2 apps"), "\(report.stderr)")
        let top = ToolRun.run(["top", alpha, beta])
        #expect(top.status == 1 && top.stdout.isEmpty && top.stderr.contains("rows of 2 apps"), "\(top.stderr)")
        let one = ToolRun.run(["top", "--bundle-id", "com.example.Beta", alpha, beta])
        #expect(one.status == 0 && one.stdout == "build 0\n  no hangs or crashes\n", "\(one.stdout)")
    }

    /// Rows that name no app (an iOS 13 payload) count when the rows name one app, and are left
    /// out, with a note, when `--bundle-id` picks one of several.
    @Test func rowsThatNameNoAppCountOnlyWhenThereIsOneApp() throws {
        defer { remove() }
        let unnamed = Repository.samples.appendingPathComponent("metrics-ios13.json").path
        let single = ToolRun.run(["rows", alpha, unnamed])
        #expect(single.status == 0)
        let together = ToolRun.run(["top", alpha, unnamed])
        #expect(together.status == 0, "\(together.stderr)")
        #expect(together.stdout.contains("build 1\n") && together.stdout.contains("build 96\n"), "\(together.stdout)")
        let chosen = ToolRun.run(["top", "--bundle-id", "com.example.Alpha", alpha, beta, unnamed])
        #expect(chosen.status == 0)
        #expect(chosen.stdout == "build 1\n  no hangs or crashes\n", "\(chosen.stdout)")
        #expect(chosen.stderr.contains("that name no app left out"), "\(chosen.stderr)")
    }

    @Test(arguments: ["", "com.example/Alpha", "com.\u{1B}[31m", String(repeating: "a", count: 256)])
    func aBundleIDThatIsNoneIsAUsageError(id: String) {
        for command in ["report", "top"] {
            let run = ToolRun.run([command, "--bundle-id", id, ReportSample.rows])
            #expect(run.status == 64, "\(command) \(id.debugDescription): \(run.stderr)")
        }
    }
}

/// `report --db --bundle-id`: rows loaded from two apps' payloads into one table stay apart.
@Suite(.enabled(if: ProcessInfo.processInfo.environment["YUI_PERF_SKIP_DB"] != "1"))
struct OneAppInTheDatabase {
    @Test func reportFromTheDatabaseKeepsToOneApp() throws {
        let apps = try OneApp()
        defer { apps.remove() }
        let (url, drop) = try TopFromTheDatabase.migratedDatabase()
        defer { drop() }
        let user = TopFromTheDatabase.user
        let load = ToolRun.run(["load", "--db", url, "--user", user, "--create-users", apps.alpha, apps.beta])
        #expect(load.status == 0, "\(load.stderr)")
        let mixed = ToolRun.run(["report", "--db", url, "--user", user, "--days", "3650", "--summaries", apps.summaries])
        #expect(mixed.status == 1 && mixed.stdout.isEmpty && mixed.stderr.contains("rows of 2 apps"), "\(mixed.stderr)")
        let alpha = ToolRun.run([
            "report", "--db", url, "--user", user, "--days", "3650", "--summaries", apps.summaries, "--bundle-id", "com.example.Alpha",
        ])
        #expect(alpha.status == 0, "\(alpha.stderr)")
        #expect(alpha.stdout.hasPrefix("Alpha speed, build 1 (last 3650 days, 1 phone, 3.0 foreground hours)\n"), "\(alpha.stdout)")
        #expect(
            try RowDatabase(url: url).textRows("select distinct bundle_id from public.yui_perf order by 1") == [
                ["com.example.Alpha"], ["com.example.Beta"],
            ])
    }
}
