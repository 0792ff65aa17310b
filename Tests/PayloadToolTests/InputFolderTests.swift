import Foundation
import PayloadDecode
import TestSupport
import Testing

/// Inputs as users keep them (docs/command-line.md, "Inputs"): folders read recursively in sorted
/// order, Xcode's `.xccrashpoint` bundles, App Store Connect's zips, `--from-list`, and an
/// output that never replaces a user's dump.
@Suite struct InputFolders {
    static let realReports = Repository.testFixtures.appendingPathComponent("crash-reports/real")

    static func scratch(_ name: String) throws -> URL {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("yui-perf-\(name)-" + UUID().uuidString)
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        return folder
    }

    /// A small metric payload of day `day` (row keys differ by day).
    static func dump(day: Int) -> String {
        let date = String(format: "2024-%02d-%02d", 1 + (day / 28) % 12, 1 + day % 28)
        let build = 100 + day / 336
        return """
            {"appVersion":"1.4","timeStampBegin":"\(date) 00:00:00","timeStampEnd":"\(date) 23:59:00","metaData":{"appBuildVersion":"\(build)","osVersion":"iPhone OS 17.5.1 (21F90)","deviceType":"iPhone15,2","platformArchitecture":"arm64e","bundleIdentifier":"app.yui.Yui"},"cpuMetrics":{"cumulativeCPUTime":"\(day % 500 + 1) sec"}}

            """
    }

    /// Python's zipfile makes the zips (the test machine has python3; the tool reads them with libarchive).
    static func zip(_ path: String, _ script: String) throws {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        process.arguments = [
            "python3", "-c", "import sys, zipfile\nz = zipfile.ZipFile(sys.argv[1], 'w', zipfile.ZIP_DEFLATED)\n" + script + "\nz.close()", path,
        ]
        try process.run()
        process.waitUntilExit()
        #expect(process.terminationStatus == 0)
    }

    /// Many small dumps in nested folders: `rows DIR` equals `rows` over the same files named in
    /// sorted order, byte for byte (100,000 with YUI_SLOW_TESTS=1, as scripts/test runs).
    @Test func aFolderIsItsFilesInSortedOrder() throws {
        let count = ProcessInfo.processInfo.environment["YUI_SLOW_TESTS"] == "1" ? 100_000 : 3_000
        let root = try Self.scratch("folder")
        defer { try? FileManager.default.removeItem(at: root) }
        var paths: [String] = []
        for index in 0..<count {
            // Nested three deep, names that sort differently as paths and as numbers.
            let folder = root.appendingPathComponent("u\(index % 7)/d\(index % 13)")
            if index < 91 { try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true) }
            let path = folder.appendingPathComponent("p\(index).json").path
            try Data(Self.dump(day: index).utf8).write(to: URL(fileURLWithPath: path))
            paths.append(path)
        }
        // Beside them, what a folder of dumps also holds: skipped and counted.
        try Data([0, 0, 0, 1, 0x42, 0x75, 0x64, 0x31]).write(to: root.appendingPathComponent("u0/.DS_Store"))
        try Data("{\"note\":\"not a payload\"}".utf8).write(to: root.appendingPathComponent("u1/feedback.json"))
        paths.sort { $0.utf8.lexicographicallyPrecedes($1.utf8) }
        let named = ToolRun.run(["rows", "--format", "jsonl"] + paths)
        let folder = ToolRun.run(["rows", "--format", "jsonl", root.path])
        #expect(named.status == 0 && folder.status == 0, "\(folder.stderr.prefix(500))")
        #expect(folder.stdout == named.stdout)
        #expect(folder.stdout.split(separator: "\n").count >= count)
        #expect(folder.stderr.contains("note: 2 files in the folders and zips given are not a payload dump, row file, crash report or zip; skipped"))
        #expect(!named.stderr.contains("note:"))
        // The same through --from-list, a file and standard input.
        let list = root.appendingPathComponent("list.txt")
        try Data((paths.joined(separator: "\n") + "\n").utf8).write(to: list)
        let fromList = ToolRun.run(["rows", "--format", "jsonl", "--from-list", list.path])
        #expect(fromList.status == 0 && fromList.stdout == named.stdout)
        let pipe = Pipe()
        let fiftyPaths = Data((paths.prefix(50).joined(separator: "\n") + "\n").utf8)
        pipe.fileHandleForWriting.write(fiftyPaths)
        try pipe.fileHandleForWriting.close()
        let fromStandardInput = ToolRun.run(["rows", "--format", "jsonl", "--from-list", "-"], stdin: pipe.fileHandleForReading)
        let fifty = ToolRun.run(["rows", "--format", "jsonl"] + Array(paths.prefix(50)))
        #expect(fromStandardInput.status == 0 && fromStandardInput.stdout == fifty.stdout)
    }

    /// Xcode Organizer's crash bundle: the logs several levels down, its metadata files beside them.
    @Test func topRanksTheCrashesOfAnXccrashpoint() throws {
        let root = try Self.scratch("xccrashpoint")
        defer { try? FileManager.default.removeItem(at: root) }
        let point = root.appendingPathComponent("YuiApp 2.25.0 (131) crash.xccrashpoint")
        let logs = point.appendingPathComponent("Filters/Filter_1/Logs")
        let all = point.appendingPathComponent("DistributionInfos/all/Logs")
        for folder in [logs, all] { try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true) }
        let crash = Repository.testFixtures.appendingPathComponent("crash-reports/yuiapp-131-abort.crash")
        try FileManager.default.copyItem(at: crash, to: logs.appendingPathComponent("LocalLog-2026-11-27-210411.crash"))
        let sigsegv = Repository.testFixtures.appendingPathComponent("crash-reports/yuiapp-131-sigsegv.ips")
        try FileManager.default.copyItem(at: sigsegv, to: all.appendingPathComponent("LocalLog-2026-11-27-200411.ips"))
        try Data("<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n<plist version=\"1.0\"><dict/></plist>\n".utf8)
            .write(to: point.appendingPathComponent("Info.plist"))
        try Data("{\"identifier\":\"7B2C9D4E\",\"displayName\":\"YuiApp\"}".utf8).write(to: point.appendingPathComponent("PointInfo.json"))
        let dsyms = Repository.root.appendingPathComponent("dsyms-fixtures/builds").path
        let top = ToolRun.run(["top", "--dsyms", dsyms, root.path])
        #expect(top.status == 0, "\(top.stderr)")
        #expect(top.stdout.contains("build 131\n  1. crash 2.0 s x2"), "\(top.stdout)")
        #expect(top.stdout.contains("crash <- YuiLines.fail <- main"), "\(top.stdout)")
        #expect(top.stderr.contains("note: 2 files in the folders and zips given are not"), "\(top.stderr)")
    }

    /// App Store Connect's TestFlight download: a crash log beside feedback.json, zipped.
    @Test func aZipOfACrashLogAndItsFeedbackIsTheCrashLog() throws {
        let root = try Self.scratch("zip")
        defer { try? FileManager.default.removeItem(at: root) }
        let log = Self.realReports.appendingPathComponent("legacy-sigsegv-bikerouter-ios26.crash").path
        let zip = root.appendingPathComponent("testflight_feedback.zip").path
        try Self.zip(
            zip,
            """
            z.write(\(pythonString(log)), 'crashlog.crash')
            z.writestr('feedback.json', '{"comment": "it crashed", "appVersion": "1.0.0", "device": "iPhone17,2"}')
            z.writestr('screenshots/', '')
            """)
        let alone = ToolRun.run(["rows", "--format", "jsonl", log])
        let zipped = ToolRun.run(["rows", "--format", "jsonl", zip])
        #expect(zipped.status == 0, "\(zipped.stderr)")
        #expect(!zipped.stdout.isEmpty && zipped.stdout == alone.stdout)
        // A zip inside a folder is read too.
        let inFolder = ToolRun.run(["rows", "--format", "jsonl", root.path])
        #expect(inFolder.stdout == alone.stdout)
        let text = ToolRun.run(["symbolicate", "--format", "text", zip])
        #expect(text.stdout.contains("Exception Type:  EXC_BAD_ACCESS (SIGSEGV)"), "\(text.stderr)")
    }

    /// A zip bomb, a zip of a million empty entries, a folder with a symbolic link loop: each a
    /// clear error, the run goes on, no signal (run as the executable).
    @Test func hostileZipsAndFoldersEndWithAnError() throws {
        let root = try Self.scratch("hostile")
        defer { try? FileManager.default.removeItem(at: root) }
        // Two bombs: one whose headers say how large its entry is, one whose headers lie (1,000
        // bytes, in the local header and the central directory): its bytes are counted as read.
        let bomb = root.appendingPathComponent("bomb.zip").path
        try Self.zip(bomb, "z.writestr('dump.json', b'{' + b' ' * (200 << 20) + b'}')")
        let quiet = root.appendingPathComponent("quiet-bomb.zip").path
        try Self.zip(quiet, "z.writestr('dump.json', b'{' + b' ' * (200 << 20) + b'}')")
        var lying = try Data(contentsOf: URL(fileURLWithPath: quiet))
        let thousand: [UInt8] = [0xE8, 0x03, 0, 0]
        lying.replaceSubrange(22..<26, with: thousand)  // the local header's uncompressed size
        if let central = lying.range(of: Data([0x50, 0x4B, 0x01, 0x02])) {
            lying.replaceSubrange((central.lowerBound + 24)..<(central.lowerBound + 28), with: thousand)
        }
        try lying.write(to: URL(fileURLWithPath: quiet))
        let entries = ProcessInfo.processInfo.environment["YUI_SLOW_TESTS"] == "1" ? 1_000_000 : 120_000
        let many = root.appendingPathComponent("many.zip").path
        try Self.zip(many, "for i in range(\(entries)): z.writestr('e%d' % i, '')")
        let good = root.appendingPathComponent("good.json").path
        try Data(Self.dump(day: 3).utf8).write(to: URL(fileURLWithPath: good))
        for (zip, message) in [
            (bomb, "'dump.json': more than the 64 MB an entry may have (it declares 209715202 bytes); not read"),
            (quiet, "expands past 64 MB (100 times its size, at least 64 MB): refused as a zip bomb (the rest of the zip is not read)"),
            (many, "more than 100000 entries: refused (the rest of the zip is not read)"),
        ] {
            let run = try ToolBinary.run(["rows", "--format", "jsonl", zip, good])
            #expect(run.status == 1, "\(run.stderr)")
            #expect(run.stderr.contains("error: \(zip): \(message)"), "\(run.stderr)")
            #expect(run.stdout.split(separator: "\n").count == 1)  // the good dump still converts
        }
        let loopy = root.appendingPathComponent("loopy/inner")
        try FileManager.default.createDirectory(at: loopy, withIntermediateDirectories: true)
        try FileManager.default.createSymbolicLink(
            atPath: loopy.appendingPathComponent("back").path, withDestinationPath: root.appendingPathComponent("loopy").path)
        try FileManager.default.copyItem(atPath: good, toPath: loopy.appendingPathComponent("d.json").path)
        let loop = try ToolBinary.run(["rows", "--format", "jsonl", root.appendingPathComponent("loopy").path])
        #expect(loop.status == 1)
        #expect(loop.stderr.contains("back: a symbolic link loop (it leads back to a folder it is in); not followed"), "\(loop.stderr)")
        #expect(loop.stdout.split(separator: "\n").count == 1)
        let unreadable = root.appendingPathComponent("closed")
        try FileManager.default.createDirectory(at: unreadable, withIntermediateDirectories: true)
        try FileManager.default.setAttributes([.posixPermissions: 0], ofItemAtPath: unreadable.path)
        defer { try? FileManager.default.setAttributes([.posixPermissions: 0o755], ofItemAtPath: unreadable.path) }
        if getuid() != 0 {
            let closed = try ToolBinary.run(["rows", "--format", "jsonl", unreadable.path, good])
            #expect(closed.status == 1 && closed.stderr.contains("\(unreadable.path): cannot read the folder"), "\(closed.stderr)")
        }
    }

    /// `rows --output dumps/*.json`: the forgotten output name makes the first dump the output.
    /// Refused before anything is read; a row file the tool wrote is replaced as asked.
    @Test func anOutputNeverReplacesADump() throws {
        let root = try Self.scratch("output")
        defer { try? FileManager.default.removeItem(at: root) }
        var dumps: [String] = []
        // Real payloads (Tests/Fixtures/real-metrickit, PROVENANCE there), then a sample of each form.
        let real = Repository.testFixtures.appendingPathComponent("real-metrickit")
        for source in [
            real.appendingPathComponent("meter-ios14-real_report.json"), real.appendingPathComponent("embrace-splash-crash_diagnostic_01.json"),
            Repository.samples.appendingPathComponent("metrics-ios16.json"), Repository.samples.appendingPathComponent("payloads.jsonl"),
        ] {
            let path = root.appendingPathComponent(source.lastPathComponent).path
            try FileManager.default.copyItem(atPath: source.path, toPath: path)
            dumps.append(path)
        }
        dumps.sort()
        let report = root.appendingPathComponent("report.ips").path
        try FileManager.default.copyItem(
            atPath: Repository.testFixtures.appendingPathComponent("crash-reports/yuiapp-131-sigsegv.ips").path, toPath: report)
        let before = try (dumps + [report]).map { try Data(contentsOf: URL(fileURLWithPath: $0)) }
        let refused = ToolRun.run(["rows", "--output"] + dumps)
        #expect(refused.status == 64, "\(refused.stderr)")
        #expect(refused.stderr.contains("'--output \(dumps[0])' is a MetricKit payload dump: writing it would replace it"), "\(refused.stderr)")
        let overReport = ToolRun.run(["rows", "--output", report, dumps[1]])
        #expect(overReport.status == 64 && overReport.stderr.contains("is an Apple crash report"), "\(overReport.stderr)")
        let html = ToolRun.run(["report", "--html", dumps[1], dumps[0]])
        #expect(html.status == 64, "\(html.stderr)")
        #expect(try (dumps + [report]).map { try Data(contentsOf: URL(fileURLWithPath: $0)) } == before)
        // Rows the tool wrote, in every format, are replaced as asked.
        for format in ["json", "jsonl", "csv", "sql"] {
            let rows = root.appendingPathComponent("rows.\(format)").path
            #expect(ToolRun.run(["rows", "--format", format, "--output", rows, dumps[1]]).status == 0)
            let again = ToolRun.run(["rows", "--format", format, "--output", rows, dumps[0]])
            #expect(again.status == 0, "\(format): \(again.stderr)")
        }
    }
}

/// `text` as a Python string literal.
private func pythonString(_ text: String) -> String {
    "'" + text.replacingOccurrences(of: "\\", with: "\\\\").replacingOccurrences(of: "'", with: "\\'") + "'"
}
