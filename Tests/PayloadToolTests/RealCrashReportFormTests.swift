import Foundation
import PayloadDecode
import TestSupport
import Testing

/// Every real report in Tests/Fixtures/crash-reports/real (PROVENANCE.md there): each form users
/// hold, read as the executable reads it (docs/crash-reports.md, "Every form").
@Suite struct RealCrashReportForms {
    static let folder = CrashReportRows.folder.appendingPathComponent("real")
    static let dsyms = Repository.root.appendingPathComponent("dsyms-fixtures/builds").path

    static var reports: [String] {
        (try? FileManager.default.contentsOfDirectory(atPath: folder.path))?.filter { $0 != "PROVENANCE.md" }.sorted() ?? []
    }

    /// The reports a row cannot be made of, and why: macOS reports that name no Mac (no
    /// `Hardware Model:`, no `Model:` in a system profile) and a command-line tool's `.ips`
    /// (no version, no build).
    static let refused: [String: String] = [
        "macos-sigill-icdab_sema-macos10.13.crash": "report 1, modelCode: missing; rows need the device model",
        "macos-sigill-macsymbolicator-macos10.14.crash": "report 1, modelCode: missing; rows need the device model",
        "macos-sigsegv-CrashingTest-macos12.ips": "report 1, build_version: missing (nor bundleInfo.CFBundleVersion); rows need the build",
    ]

    /// Build, version, OS and device of each, as Xcode's Organizer would show them.
    static let expected: [String: (build: Int, version: String, os: String, device: String)] = [
        "beta-sigabrt-yourstorekiosk-ios11.crash": (24, "1.0.9", "11.3", "iPad7,6"),  // `Version: 24 (1.0.9)`, iOS 11: build first
        "header109-sigkill-mobilesms-ios11-cr-symbolicated.ips": (1, "5.0", "11.1.2", "iPhone9,3"),
        "header185-cpu-resource-updatebrain-ios8.ips": (1, "1.0", "8.1.2", "iPad4,4"),
        "header309-text-sigtrap-iOSCrashingTest-ios16.ips": (1, "1.0", "16.0", "iPhone14,2"),
        "lastexc-sigabrt-icdab_nsdata-ios14.crash": (1, "1.0", "14.2", "iPhone12,1"),
        "lastexc-sigabrt-icdab_nsdata-ios9-armv7.crash": (1, "1.0", "9.3.5", "iPod5,1"),
        "lastexc-sigabrt-triviaparty-ios18.crash": (16, "1.0.0", "18.5", "iPhone15,3"),
        "legacy-sigabrt-memoai-ios17.crash": (3, "1.0.0", "17.7.10", "iPad7,6"),
        "legacy-sigsegv-bikerouter-ios26.crash": (1, "1.0.0", "26.4", "iPhone17,2"),
        "macos-sigabrt-icdab_planets-ios-app-on-mac11.crash": (1, "1.0", "10.16", "ADP3,2"),
        "macos-sigabrt-securityagent-macos10.13.crash": (55360, "9.0", "10.13.4", "iMac15,1"),
        "sigabrt-driverportal-ios26.ips": (25, "1.0.3", "26.3", "iPhone18,4"),
        "sigabrt-matchtalk-ios26.ips": (30, "1.1.3", "26.1", "iPhone14,7"),
        "sigabrt-sanfer-ipados18.ips": (1, "1.2.1", "18.5", "iPad13,16"),
        "sigabrt-sym-demo-ios15.ips": (4, "1.0", "15.2.1", "iPhone13,4"),
        "sigsegv-pabofocus-ipados26.ips": (31, "1.0.0", "26.2", "iPad13,16"),
        "sigtrap-iOSCrashingTest-ios13.crash": (1, "1.0", "13.1.3", "iPhone10,3"),  // `Version: 1 (1.0)`, iOS 13
        "sigtrap-iOSCrashingTest-ios15-with-dsym.ips": (1, "1.0", "15.5", "iPhone14,2"),
        "translated-sigabrt-snapclone-ipados18.crash": (3, "1.0.0", "18.5", "iPad13,16"),
        "translated-sigsegv-snapclone-ipados18.crash": (3, "1.0.0", "18.5", "iPad13,16"),
        "watchdog-earshot-ios27.ips": (165, "1.1.0", "27.0", "iPhone18,2"),
    ]

    static func parsed(_ file: String) throws -> AppleCrashReport {
        let bytes = try Array(Data(contentsOf: folder.appendingPathComponent(file)))
        let read = try #require(bytes.withUnsafeBytes { CrashReports.read($0, fileName: file) }, "\(file) is not a crash report")
        #expect(read.reports.count == 1, "\(file)")
        return try #require(read.reports.first)
    }

    @Test func everyReportIsListedHere() {
        #expect(Self.reports.count >= 24)
        #expect(Set(Self.reports) == Set(Self.expected.keys).union(Self.refused.keys))
    }

    /// One crash row each, exit 0; or refused with the reason, exit 1; and no command ends by a
    /// signal on any of them.
    @Test(arguments: reports)
    func oneRowEachAndNoCommandEndsByASignal(file: String) throws {
        let path = Self.folder.appendingPathComponent(file).path
        let rows = try ToolBinary.run(["rows", "--format", "jsonl", path])
        if let reason = Self.refused[file] {
            #expect(rows.status == 1 && rows.stdout.isEmpty && rows.stderr.contains("\(path): \(reason)"), "\(rows.stderr)")
        } else {
            #expect(rows.status == 0, "\(rows.stderr)")
            #expect(!rows.stderr.contains("error:"), "\(rows.stderr)")
            let lines = rows.stdout.split(separator: "\n")
            #expect(lines.count == 1)
            let row = try #require(try JSONSerialization.jsonObject(with: Data((lines.first ?? "").utf8)) as? [String: Any])
            let want = try #require(Self.expected[file])
            #expect(row["app_build"] as? Int == want.build && row["app_version"] as? String == want.version, "\(row)")
            #expect(row["os"] as? String == want.os && row["device"] as? String == want.device, "\(row)")
            #expect(((row["stack"] as? [Any])?.count ?? 0) > 0)
        }
        for command in CrashReportLimits.commands {
            let run = try ToolBinary.run(command + [path])
            #expect(run.status == 0 || run.status == 1, "\(command.joined(separator: " ")) \(file): status \(run.status)")
        }
    }

    /// `--format text` keeps the report's name on every frame the report names and no debug file
    /// answers: with no debug files, exactly the frames the report leaves unnamed say so.
    @Test(arguments: reports)
    func theReportsNamesAreKept(file: String) throws {
        let report = try Self.parsed(file)
        let frames = report.threads.flatMap(\.frames) + report.lastExceptionBacktrace
        let empty = FileManager.default.temporaryDirectory.appendingPathComponent("yui-perf-no-dsyms-" + UUID().uuidString)
        try FileManager.default.createDirectory(at: empty, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: empty) }
        let run = try ToolBinary.run(["symbolicate", "--format", "text", "--dsyms", empty.path, Self.folder.appendingPathComponent(file).path])
        #expect(run.status == 0, "\(run.stderr)")
        let unnamedLines = run.stdout.split(separator: "\n").filter { $0.contains("[no debug file for UUID") }
        #expect(unnamedLines.count == frames.filter(\.names.isEmpty).count, "\(file)")
        for name in frames.flatMap(\.names) {
            #expect(run.stdout.contains(name.symbol), "\(file): \(name.symbol)")
        }
        if Self.refused[file] == nil, frames.contains(where: { !$0.names.isEmpty }) {
            let json = try ToolBinary.run(["symbolicate", "--json", "--dsyms", empty.path, Self.folder.appendingPathComponent(file).path])
            #expect(json.stdout.contains(#""status":"report""#), "\(file)")
        }
    }

    /// The reports with a last exception backtrace: the row's stack starts where it was thrown,
    /// and the text output prints it under Apple's heading before the threads.
    @Test func theLastExceptionBacktraceIsTheRowsStack() throws {
        var checked: [String] = []
        for file in Self.reports where Self.refused[file] == nil {
            let report = try Self.parsed(file)
            guard let thrown = report.lastExceptionBacktrace.first else { continue }
            checked.append(file)
            let path = Self.folder.appendingPathComponent(file).path
            let (rows, _, _) = try CrashReportRows.rows([path])
            let first = try #require((rows.first?["stack"] as? [[String: Any]])?.first)
            #expect(first["offset"] as? UInt64 == thrown.imageOffset, "\(file)")
            #expect(first["uuid"] as? String == thrown.imageIndex.flatMap { report.images[$0].uuid }, "\(file)")
            let text = ToolRun.run(["symbolicate", "--format", "text", path])
            #expect(text.stdout.contains("\nLast Exception Backtrace:\n0   "), "\(file)")
            #expect(report.threads.allSatisfy { text.stdout.contains("\nThread \($0.number)\($0.crashed ? " Crashed" : ""):\n") })
        }
        // Three text reports and two .ips of the folder have one.
        #expect(checked.count >= 5, "\(checked)")
    }

    /// A report Xcode symbolicated (here: ours, `--format ips` against build 131's debug files)
    /// ranks on its own names where no debug file is given.
    @Test func topNamesASymbolicatedReportsFrames() throws {
        let symbolicated = ToolRun.run(["symbolicate", "--format", "ips", "--dsyms", Self.dsyms, CrashReportRows.path("yuiapp-131-sigsegv.ips")])
        #expect(symbolicated.status == 0, "\(symbolicated.stderr)")
        let file = FileManager.default.temporaryDirectory.appendingPathComponent("yui-perf-symbolicated-\(UUID().uuidString).ips")
        try Data(symbolicated.stdout.utf8).write(to: file)
        defer { try? FileManager.default.removeItem(at: file) }
        let empty = FileManager.default.temporaryDirectory.appendingPathComponent("yui-perf-no-dsyms-" + UUID().uuidString)
        try FileManager.default.createDirectory(at: empty, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: empty) }
        let bare = ToolRun.run(["top", "--dsyms", empty.path, CrashReportRows.path("yuiapp-131-sigsegv.ips")])
        #expect(bare.stdout.contains("YuiApp+0x409c"), "\(bare.stdout)")
        let named = ToolRun.run(["top", "--dsyms", empty.path, file.path])
        #expect(named.stdout.contains("crash <- YuiLines.fail <- main"), "\(named.stdout)")
        // Where a debug file answers, ours is the answer: the same signature.
        let ours = ToolRun.run(["top", "--dsyms", Self.dsyms, CrashReportRows.path("yuiapp-131-sigsegv.ips")])
        #expect(ours.stdout.contains("crash <- YuiLines.fail <- main"), "\(ours.stdout)")
    }
}
