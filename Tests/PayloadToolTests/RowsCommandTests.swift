import Foundation
import PayloadDecode
import TestSupport
import Testing

@testable import PayloadTool

@Suite struct RowsCommandTests {
    func sample(_ name: String) -> String { Repository.samples.appendingPathComponent(name).path }

    func temporaryFolder() throws -> URL {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("rows-cmd-\(getpid())-\(UInt64.random(in: 0...UInt64.max))")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        return folder
    }

    @Test func help() {
        let result = ToolRun.run(["rows", "--help"])
        #expect(result.status == 0)
        #expect(result.stderr.isEmpty)
        for section in ["OVERVIEW:", "USAGE:", "ARGUMENTS:", "OPTIONS:", "--format", "--user", "--timezone", "--output", "--promotion"] {
            #expect(result.stdout.contains(section))
        }
    }

    @Test(arguments: [
        (["--user", "bob", "x.json"], "'--user': not a UUID"), (["--format", "xml", "x.json"], "'--format'"),
        (["--timezone", "Mars/Olympus", "x.json"], "'--timezone'"), (["--timezone", "+25:00", "x.json"], "'--timezone'"),
        (["--promotion", "maybe", "x.json"], "'--promotion'"), (["--jobs", "0", "x.json"], "'--jobs'"), ([], "Missing input"),
        (["--frobnicate", "x.json"], "Unknown option '--frobnicate'"),
    ])
    func usageErrorsExit64(arguments: [String], message: String) {
        let result = ToolRun.run(["rows"] + arguments)
        #expect(result.status == 64)
        #expect(result.stdout.isEmpty)
        #expect(result.stderr.hasPrefix("Error: "))
        #expect(result.stderr.contains(message))
        #expect(result.stderr.contains("See 'payload-tool rows --help'"))
    }

    @Test func defaultIsOneJSONArrayOfEveryRow() throws {
        let result = ToolRun.run(["rows", sample("metrics-ios16.json"), sample("diagnostics-ios18-crashes-hang.json")])
        #expect(result.status == 0)
        #expect(result.stderr.isEmpty)
        let rows = try #require(try JSONSerialization.jsonObject(with: Data(result.stdout.utf8)) as? [[String: Any]])
        #expect(rows.count == 17)
        #expect(rows.allSatisfy { $0.count == Row.columns.count })
        #expect(
            rows.map { $0["name"] as? String } == [
                "fg_time", "hang_rate", "hitch_ratio", "mem_peak", "mem_avg", "cpu_time", "launch_mk", "resume_mk", "exit_fg_normal",
                "exit_fg_watchdog", "disk_writes", "cpu_instructions", "gpu_time", "thread_open_3685d22d_mk", "crash", "crash", "hang",
            ])
        #expect(rows.allSatisfy { $0["user_id"] is NSNull })
    }

    @Test func formatsCarryTheSameValues() throws {
        let user = "0B9C7D3E-1F2A-4B5C-8D6E-7F8091A2B3C4"
        let input = sample("payloads.jsonl")
        let jsonl = ToolRun.run(["rows", "--format", "jsonl", "--user", user, input])
        let csv = ToolRun.run(["rows", "--format=csv", "--user", user, input])
        let sql = ToolRun.run(["rows", "--format", "sql", "--user", user, input])
        #expect([jsonl.status, csv.status, sql.status] == [0, 0, 0])
        let lines = jsonl.stdout.split(separator: "\n")
        #expect(lines.count == 10)
        #expect(csv.stdout.split(separator: "\n").count == 11)
        #expect(sql.stdout.split(separator: "\n").count == 10)
        for line in lines {
            let row = try #require(try JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any])
            let key = try #require(row["row_key"] as? String)
            #expect(row["user_id"] as? String == user.lowercased())
            #expect(csv.stdout.contains("\(user.lowercased()),\(key),"))
            #expect(sql.stdout.contains("VALUES ('\(user.lowercased())', '\(key)', "))
        }
    }

    @Test func outputIsByteIdenticalAcrossRuns() {
        let arguments = [sample("diagnostics-ios14-quirk.json"), sample("metrics-ios14-zh.json")]
        #expect(ToolRun.run(["rows"] + arguments).stdout == ToolRun.run(["rows"] + arguments).stdout)
        #expect(ToolRun.run(["rows", "--format", "sql"] + arguments).stdout == ToolRun.run(["rows", "--format", "sql"] + arguments).stdout)
    }

    /// Files converted at once are written in input order: output and messages do not depend on --jobs.
    @Test func jobsDoNotChangeTheOutput() throws {
        let folder = try temporaryFolder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let broken = folder.appendingPathComponent("broken.json")
        try "[1, 2".write(to: broken, atomically: true, encoding: .utf8)
        let names = [
            "metrics-ios13.json", "diagnostics-ios14-quirk.json", "payloads.jsonl", "metrics-ios16.json", "diagnostic-single-hang.json",
            "diagnostics-ios18-exceptions.json", "metrics-ios14-zh.json",
        ]
        let inputs = names.map(sample) + [broken.path] + names.map(sample) + [folder.appendingPathComponent("missing.json").path]
        let serial = ToolRun.run(["rows", "--jobs", "1", "--format", "jsonl"] + inputs)
        for jobs in ["2", "3", "8"] {
            let parallel = ToolRun.run(["rows", "--jobs", jobs, "--format", "jsonl"] + inputs)
            #expect(parallel.status == serial.status)
            #expect(parallel.stdout == serial.stdout)
            #expect(parallel.stderr == serial.stderr)
        }
        #expect(serial.status == 1)
        #expect(serial.stderr.split(separator: "\n").count == 2)
        #expect(serial.stdout.split(separator: "\n").count == 2 * 55)
    }

    @Test func someInputFailedExits1AndTheRestIsConverted() throws {
        let folder = try temporaryFolder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let broken = folder.appendingPathComponent("broken.json")
        try "{ \"timeStampBegin\" : ".write(to: broken, atomically: true, encoding: .utf8)
        let result = ToolRun.run([
            "rows", "--format", "jsonl", broken.path, sample("metrics-ios13.json"), folder.appendingPathComponent("missing.json").path,
        ])
        #expect(result.status == 1)
        #expect(result.stdout.split(separator: "\n").count == 9)
        let messages = result.stderr.split(separator: "\n")
        #expect(messages.count == 2)
        #expect(messages[0].hasPrefix("error: \(broken.path): line 1, column 22: invalid JSON: unexpected end of input"))
        #expect(messages[1].hasPrefix("error: \(folder.path)/missing.json: cannot open: No such file or directory"))
    }

    @Test func warningsAloneExit0() throws {
        let folder = try temporaryFolder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let file = folder.appendingPathComponent("odd.json")
        let text = try String(contentsOfFile: sample("metrics-ios16.json"), encoding: .utf8).replacingOccurrences(
            of: "\"100 sec\"", with: "\"100 fortnights\"")
        try text.write(to: file, atomically: true, encoding: .utf8)
        let result = ToolRun.run(["rows", "--format", "jsonl", file.path])
        #expect(result.status == 0)
        #expect(result.stderr == "warning: \(file.path): payload 1, key cpuMetrics.cumulativeCPUTime: unknown unit 'fortnights'; row left out\n")
        #expect(result.stdout.split(separator: "\n").count == 13)
    }

    @Test func outputFileIsWrittenWhole() throws {
        let folder = try temporaryFolder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let target = folder.appendingPathComponent("rows.json")
        let result = ToolRun.run(["rows", "--output", target.path, sample("metrics-ios16.json")])
        #expect(result.status == 0)
        #expect(result.stdout.isEmpty)
        let written = try String(contentsOf: target, encoding: .utf8)
        #expect(written == ToolRun.run(["rows", sample("metrics-ios16.json")]).stdout)
        #expect(try FileManager.default.contentsOfDirectory(atPath: folder.path) == ["rows.json"])
    }

    @Test func outputIntoAMissingFolderFailsAndLeavesNothing() throws {
        let folder = try temporaryFolder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let result = ToolRun.run(["rows", "--output", folder.appendingPathComponent("nope/rows.json").path, sample("metrics-ios16.json")])
        #expect(result.status == 1)
        #expect(result.stderr.contains("cannot create the output file"))
        // A target that is a folder: refused before anything runs, nothing written.
        let blocker = folder.appendingPathComponent("taken")
        try FileManager.default.createDirectory(at: blocker.appendingPathComponent("inside"), withIntermediateDirectories: true)
        let second = ToolRun.run(["rows", "--output", blocker.path, sample("metrics-ios16.json")])
        #expect(second.status == 64)
        #expect(second.stderr.contains("not a regular file (a folder)"))
        #expect(try FileManager.default.contentsOfDirectory(atPath: folder.path) == ["taken"])
    }

    @Test func standardInputAsDash() throws {
        let pipe = Pipe()
        pipe.fileHandleForWriting.write(try Data(contentsOf: URL(fileURLWithPath: sample("diagnostic-single-hang.json"))))
        try pipe.fileHandleForWriting.close()
        let result = ToolRun.run(["rows", "--format", "jsonl", "-"], stdin: pipe.fileHandleForReading)
        #expect(result.status == 0)
        #expect(result.stdout.contains("\"name\":\"hang\""))
    }

    @Test func timezoneAndPromotionFlags() throws {
        let result = ToolRun.run(["rows", "--format", "jsonl", "--timezone", "Europe/Berlin", "--promotion", "off", sample("metrics-ios16.json")])
        #expect(result.status == 0)
        #expect(result.stdout.contains("\"period_start\":\"2022-11-13T23:00:00Z\""))
        #expect(!result.stdout.contains("\"promotion\":true"))
        let offset = ToolRun.run(["rows", "--format", "jsonl", "--timezone", "-05:00", sample("metrics-ios16.json")])
        #expect(offset.stdout.contains("\"period_start\":\"2022-11-14T05:00:00Z\""))
    }
}
