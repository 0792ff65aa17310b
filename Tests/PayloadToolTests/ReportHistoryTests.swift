import Foundation
import RowStore
import TestSupport
import Testing

/// `report --db` over a history longer than the report: it reads the window and the
/// builds it compares, not every row, and still prints what `report` over the whole row file prints.
@Suite(.enabled(if: ProcessInfo.processInfo.environment["YUI_PERF_SKIP_DB"] != "1"))
struct ReportOverALongHistory {
    /// Twelve days of the owner's rows, a build every three days (200 to 203): each day the report
    /// sample's rows of build 125 (every kind), moved into that day, with new row keys.
    static func history(into folder: URL) throws -> String {
        let lines = try String(contentsOfFile: ReportSample.rows, encoding: .utf8).split(separator: "\n")
            .filter { $0.contains("\"app_build\":125,") }
        let template = try lines.map { line in try #require(try JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any]) }
        let parse = ISO8601DateFormatter()
        let format = ISO8601DateFormatter()
        func date(_ object: [String: Any], _ key: String) throws -> Date {
            let text = try #require(object[key] as? String)
            return try #require(parse.date(from: text))
        }
        let firstDay = try template.map { try date($0, "period_start") }.min()!.timeIntervalSince1970 / 86_400
        var out: [String] = []
        for day in 0..<12 {
            for (index, row) in template.enumerated() {
                var copy = row
                let start = try date(row, "period_start").timeIntervalSince1970
                let end = try date(row, "period_end").timeIntervalSince1970
                // Every row's own day of the template becomes this day.
                let shift = Double(day) * 86_400 - (floor(start / 86_400) - floor(firstDay)) * 86_400
                copy["period_start"] = format.string(from: Date(timeIntervalSince1970: start + shift))
                copy["period_end"] = format.string(from: Date(timeIntervalSince1970: end + shift))
                copy["app_build"] = 200 + day / 3
                copy["row_key"] = String(format: "00000000-0000-4000-8000-%04d%08d", day, index)
                out.append(String(decoding: try JSONSerialization.data(withJSONObject: copy, options: [.sortedKeys]), as: UTF8.self))
            }
        }
        let path = folder.appendingPathComponent("history.jsonl").path
        try (out.joined(separator: "\n") + "\n").write(toFile: path, atomically: true, encoding: .utf8)
        return path
    }

    @Test func printsWhatTheWholeFilePrintsInEveryModeAndWindow() throws {
        let (url, drop) = try TopFromTheDatabase.migratedDatabase()
        defer { drop() }
        let sample = try ReportSample()
        defer { sample.remove() }
        let history = try Self.history(into: sample.folder)
        let load = ToolRun.run(["load", "--db", url, "--create-users", history])
        #expect(load.status == 0, "stderr: \(load.stderr)")
        for mode in [
            [], ["--json"], ["--yl"], ["--briefing"], ["--days", "4"], ["--days", "30"], ["--build", "201"], ["--build", "202", "--json"],
        ] {
            let fromFile = ReportSample(folder: sample.folder, name: "file").run(mode, inputs: [history])
            let fromDatabase = ReportSample(folder: sample.folder, name: "db").run(
                mode + ["--db", url, "--user", ReportFromTheDatabase.owner], inputs: [])
            #expect(fromFile.status == 0 && fromDatabase.status == 0, "\(mode): \(fromFile.stderr) \(fromDatabase.stderr)")
            #expect(fromDatabase.stdout == fromFile.stdout, "mode \(mode)")
            // Every day is alike, so nothing got worse and the briefing is empty.
            #expect(mode == ["--briefing"] || fromDatabase.stdout.contains("20"), "mode \(mode): \(fromDatabase.stdout)")
        }
        let text = ReportSample(folder: sample.folder, name: "text").run(["--db", url, "--user", ReportFromTheDatabase.owner], inputs: [])
        #expect(text.stdout.hasPrefix("Yui speed, build 203 vs 202 (last 24 h"), "\(text.stdout)")
    }

    /// A row planted past the checks in the oldest build shows what is read: the text compares
    /// build 203 with 202 and never reads build 200; the JSON shows the four builds before 203,
    /// reads it, and names the row.
    @Test func readsOnlyTheBuildsTheOutputShows() throws {
        let (url, drop) = try TopFromTheDatabase.migratedDatabase()
        defer { drop() }
        let sample = try ReportSample()
        defer { sample.remove() }
        let history = try Self.history(into: sample.folder)
        #expect(ToolRun.run(["load", "--db", url, "--create-users", history]).status == 0)
        let owner = try RowDatabase(url: url)
        try owner.runScript("alter table public.yui_perf drop constraint yui_perf_device")
        try owner.runScript(
            """
            insert into public.yui_perf (user_id, row_key, kind, name, app_build, app_version, os, device,
                                         period_start, period_end, n, value)
            values ('\(ReportFromTheDatabase.owner)', gen_random_uuid(), 'metrics', 'fg_time', 200, '2.25.0', '26.1',
                    'not a model', '2026-11-20T10:00:00Z', '2026-11-20T11:00:00Z', 1, 60)
            """)
        let text = ReportSample(folder: sample.folder, name: "text").run(["--db", url, "--user", ReportFromTheDatabase.owner], inputs: [])
        #expect(text.status == 0, "\(text.stderr)")
        #expect(!text.stderr.contains("not a model"), "\(text.stderr)")
        let json = ReportSample(folder: sample.folder, name: "json").run(["--json", "--db", url, "--user", ReportFromTheDatabase.owner], inputs: [])
        #expect(json.status == 1)
        #expect(json.stderr.contains("error: --db: row id ") && json.stderr.contains("not a model"), "\(json.stderr)")
    }
}
