import Foundation
import PayloadDecode
import TestSupport
import Testing

/// Apple crash reports (`.ips`, `.crash` text) through `rows`, `top` and `symbolicate`
/// (docs/crash-reports.md). The fixture app's reports come from scripts/make-crash-reports.
@Suite struct CrashReportRows {
    static let folder = Repository.testFixtures.appendingPathComponent("crash-reports")
    static func path(_ name: String) -> String { folder.appendingPathComponent(name).path }

    static func rows(_ arguments: [String]) throws -> (rows: [[String: Any]], stderr: String, status: Int32) {
        let run = ToolRun.run(["rows", "--format", "jsonl"] + arguments)
        let rows = try run.stdout.split(separator: "\n").map { line in
            try #require(try JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any])
        }
        return (rows, run.stderr, run.status)
    }

    @Test func theFixturesAreWhatTheScriptWrites() throws {
        let check = try Process.run(
            Repository.root.appendingPathComponent("scripts/make-crash-reports"), arguments: ["--check"])
        check.waitUntilExit()
        #expect(check.terminationStatus == 0)
    }

    @Test(arguments: [
        ("yuiapp-131-sigsegv.ips", 131, "2.25.0", "2026-11-27T20:04:11Z", [16540, 16536, 16472, 7508]),
        ("yuiapp-130-watchdog.ips", 130, "2.24.0", "2026-11-26T08:15:42Z", [16556, 16656, 16744, 7508]),
        ("yuiapp-131-abort.crash", 131, "2.25.0", "2026-11-27T20:04:11Z", [33836, 16540, 16536, 16472, 7508]),
    ])
    func aReportIsOneCrashRowWithTheCrashedThreadAsItsStack(
        file: String, build: Int, version: String, moment: String, offsets: [Int]
    ) throws {
        let (rows, stderr, status) = try Self.rows(["--user", "5b1e3c1a-7a0e-4d8e-9a43-2f1c0d9b6e71", Self.path(file)])
        #expect(status == 0, "\(stderr)")
        #expect(stderr.isEmpty, "\(stderr)")
        let row = try #require(rows.first)
        #expect(rows.count == 1)
        #expect(row["kind"] as? String == "diagnostic" && row["name"] as? String == "crash")
        #expect(row["app_build"] as? Int == build && row["app_version"] as? String == version)
        #expect(row["os"] as? String == "17.5.1" && row["device"] as? String == "iPhone15,2")
        #expect(row["period_start"] as? String == moment && row["period_end"] as? String == moment)
        let stack = try #require(row["stack"] as? [[String: Any]])
        #expect(stack.compactMap { $0["offset"] as? Int } == offsets)
        let app = try #require(stack.first { $0["image"] as? String == "YuiApp" })
        #expect(app["uuid"] as? String == "4C4C4C4C-5555-3144-A1B2-000000000\(build)")
    }

    /// What the table forbids stays out: process paths, queue names, the termination's free text,
    /// crashReporterKey, the device's identifier for the vendor, the incident's id. The bundle
    /// identifier is kept, in its own checked column, so two apps' rows stay apart, and nowhere else.
    @Test func nothingTheTableForbidsReachesARow() throws {
        let run = ToolRun.run(["rows", "--format", "jsonl"] + ["two-reports.ips", "yuiapp-131-abort.crash"].map(Self.path))
        #expect(run.status == 0)
        for forbidden in [
            "/private/var", "containers", "com.apple.main-thread", "Dispatch queue", "0123456789abcdef", "1F2E3D4C-5B6A",
            "7B2C9D4E", "3E1F5A2B", "watchdog", "RBSTerminateContext", "Segmentation", "Abort trap",
        ] {
            #expect(!run.stdout.lowercased().contains(forbidden.lowercased()), "\(forbidden) reached a row")
        }
        let lines = run.stdout.split(separator: "\n")
        #expect(
            lines.count == 3
                && lines.allSatisfy { $0.components(separatedBy: "app.yui.Yui").count == 2 && $0.hasSuffix(",\"bundle_id\":\"app.yui.Yui\"}") })
    }

    /// The key comes from the report's bytes: the same report in two files is one row (two-reports.ips
    /// holds the two .ips fixtures), and another report another row.
    @Test func aReportReadTwiceHasOneKey() throws {
        let both = try Self.rows(["two-reports.ips", "yuiapp-131-sigsegv.ips", "yuiapp-130-watchdog.ips"].map(Self.path)).rows
        let keys = both.compactMap { $0["row_key"] as? String }
        #expect(keys.count == 4)
        #expect(Set(keys).count == 2)
        let top = ToolRun.run(
            ["top", "--dsyms", Repository.root.appendingPathComponent("dsyms-fixtures/builds").path]
                + ["two-reports.ips", "yuiapp-131-sigsegv.ips"].map(Self.path))
        #expect(top.stderr.contains("note: 1 hang or crash row read more than once"), "\(top.stderr)")
        // Two copies of a .crash in one file (on standard input): one key, the file's own.
        let text = try String(contentsOfFile: Self.path("yuiapp-131-abort.crash"), encoding: .utf8)
        let pipe = Pipe()
        pipe.fileHandleForWriting.write(Data((text + text).utf8))
        try pipe.fileHandleForWriting.close()
        let copies = ToolRun.run(["rows", "--format", "jsonl", "-"], stdin: pipe.fileHandleForReading)
        let alone = try Self.rows([Self.path("yuiapp-131-abort.crash")]).rows.first?["row_key"] as? String
        let copyKeys = try copies.stdout.split(separator: "\n").map { line in
            try #require(try JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any])["row_key"] as? String
        }
        #expect(copyKeys.count == 2 && Set(copyKeys) == [alone], "\(copyKeys) against \(alone ?? "")")
    }

    /// `top` ranks MetricKit's crashes and hangs and the crash reports' crashes as one set.
    @Test func topRanksReportsWithMetricKitsDiagnostics() throws {
        let dsyms = Repository.root.appendingPathComponent("dsyms-fixtures/builds").path
        let topFixtures = try FileManager.default.contentsOfDirectory(atPath: Repository.testFixtures.appendingPathComponent("top").path)
            .sorted().map { Repository.testFixtures.appendingPathComponent("top/\($0)").path }
        let metricKit = ToolRun.run(["top", "--dsyms", dsyms] + topFixtures)
        let together = ToolRun.run(["top", "--dsyms", dsyms] + topFixtures + ["yuiapp-131-sigsegv.ips", "yuiapp-131-abort.crash"].map(Self.path))
        #expect(
            metricKit.stdout.contains("  2. crash 2.0 s x2 on 1 phone, EXC_BREAKPOINT (SIGTRAP)   crash <- YuiLines.fail <- main"),
            "\(metricKit.stdout)")
        // Four crashes on two phones: MetricKit's two SIGTRAPs, the reports' SIGSEGV and SIGABRT.
        #expect(
            together.stdout.contains("  1. crash 4.0 s x4 on 2 phones, EXC_BREAKPOINT (SIGTRAP) +2 other reasons   crash <- YuiLines.fail <- main"),
            "\(together.stdout)")
        // How many phones each signature hit, as the report shows who is affected: the test set's one phone, and the
        // reports' iPhone15,2 beside it.
        let json = ToolRun.run(["top", "--json", "--dsyms", dsyms] + topFixtures + ["yuiapp-131-sigsegv.ips"].map(Self.path))
        let document = try #require(try JSONSerialization.jsonObject(with: Data(json.stdout.utf8)) as? [String: Any])
        let builds = try #require(document["builds"] as? [[String: Any]])
        let signatures = try #require(builds.first { $0["build"] as? Int == 131 }?["signatures"] as? [[String: Any]])
        let crash = try #require(signatures.first { $0["signature"] as? String == "crash <- YuiLines.fail <- main" })
        #expect(crash["count"] as? Int == 3 && crash["phones"] as? Int == 2, "\(crash)")
        #expect(signatures.allSatisfy { ($0["phones"] as? Int ?? 0) >= 1 })
    }

    @Test func symbolicateNamesTheAppsFramesWithFileAndLine() throws {
        let run = ToolRun.run([
            "symbolicate", "--dsyms", Repository.root.appendingPathComponent("dsyms-fixtures/builds").path, Self.path("yuiapp-131-sigsegv.ips"),
        ])
        #expect(run.stdout.contains("build 131 (2026-11-27T20:04:11Z): EXC_BAD_ACCESS (SIGSEGV)"), "\(run.stdout)")
        #expect(run.stdout.contains("crash + 4 (Builtins.swift:42)"), "\(run.stdout)")
        #expect(run.stdout.contains("YuiLines.fail + 12 (YuiLines.swift:44)"), "\(run.stdout)")
        #expect(run.stdout.contains("main + 84 (main.swift:5)"), "\(run.stdout)")
    }
}

/// Bad crash reports: a clear error naming the file and the place, the other inputs still read.
@Suite struct BadCrashReports {
    static let good = try! String(contentsOfFile: CrashReportRows.path("yuiapp-131-sigsegv.ips"), encoding: .utf8)

    static func run(_ content: String) throws -> (status: Int32, stdout: String, stderr: String) {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("yui-crash-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        let path = folder.appendingPathComponent("report.ips").path
        try content.write(toFile: path, atomically: true, encoding: .utf8)
        let result = ToolRun.run(["rows", "--format", "jsonl", path, CrashReportRows.path("yuiapp-130-watchdog.ips")])
        return (result.status, result.stdout, result.stderr.replacingOccurrences(of: path, with: "report.ips"))
    }

    @Test(arguments: [
        ("truncated body", String(good.prefix(1500)), "report.ips: report 1, body: truncated: the JSON body does not end"),
        ("header only", String(good.prefix(while: { $0 != "\n" })) + "\n", "report.ips: report 1: bug_type '309': a header without a body"),
        (
            "a stackshot", #"{"bug_type":"288","os_version":"iPhone OS 17.5"}"# + "\n{\"processByPid\":{}}\n",
            "report.ips: report 1: bug_type '288' is not a report this reads: its body has no threads and usedImages"
        ),
        ("invalid body", String(good.prefix(while: { $0 != "\n" })) + "\n{\"threads\": [,]}\n", "report.ips: report 1, body: invalid JSON"),
        (
            "no build",
            good.replacingOccurrences(of: "\"build_version\":\"131\"", with: "\"build\":\"131\"")
                .replacingOccurrences(of: "\"CFBundleVersion\": \"131\"", with: "\"x\": \"131\""),
            "report.ips: report 1, build_version: missing"
        ),
    ])
    func anErrorNamesTheFileAndThePlaceAndTheOtherInputsStillConvert(what: String, content: String, message: String) throws {
        let result = try Self.run(content)
        #expect(result.status == 1, "\(what)")
        #expect(result.stderr.contains("error: " + message), "\(what): \(result.stderr)")
        #expect(result.stdout.split(separator: "\n").count == 1, "\(what): the other input's row")
    }

    @Test func framesPastUsedImagesAndAbsurdOffsetsAreWarnedAndTheRowStays() throws {
        let content = Self.good
            .replacingOccurrences(
                of: "\"imageOffset\": 16536,\n          \"imageIndex\": 0", with: "\"imageOffset\": 16536,\n          \"imageIndex\": 99"
            )
            .replacingOccurrences(of: "\"imageOffset\": 16472,", with: "\"imageOffset\": 184467440737095516160,")
        let result = try Self.run(content)
        #expect(result.status == 0, "\(result.stderr)")
        #expect(
            result.stderr.contains("warning: report.ips: report 1, threads[0].frames[1].imageIndex: 99 points past usedImages (3 images)"),
            "\(result.stderr)")
        #expect(
            result.stderr.contains(
                "warning: report.ips: report 1, threads[0].frames[2].imageOffset: not an offset from 0 to 2^64 - 1; frame skipped"),
            "\(result.stderr)")
        #expect(result.stdout.split(separator: "\n").count == 2)
        let row = try #require(try JSONSerialization.jsonObject(with: Data(result.stdout.split(separator: "\n")[0].utf8)) as? [String: Any])
        let stack = try #require(row["stack"] as? [[String: Any]])
        #expect(stack.count == 3)
        #expect(stack[1]["image"] is NSNull && stack[1]["uuid"] is NSNull && stack[1]["offset"] as? Int == 16536)
    }
}

/// Real device reports from public repositories (Tests/Fixtures/crash-reports/real/PROVENANCE.md):
/// iOS 15 to 27, iPhone and iPad, a watchdog kill, SIGSEGV, SIGABRT and SIGTRAP, TestFlight's
/// legacy text. Each is one valid crash row, and `symbolicate` names its exception and signal.
@Suite struct RealCrashReports {
    static let folder = CrashReportRows.folder.appendingPathComponent("real")

    @Test(arguments: [
        ("watchdog-earshot-ios27.ips", 165, "27.0", "iPhone18,2", "watchdog 0x8BADF00D, EXC_CRASH (SIGKILL)"),
        ("sigsegv-pabofocus-ipados26.ips", 31, "26.2", "iPad13,16", "EXC_BAD_ACCESS (SIGSEGV)"),
        ("sigabrt-driverportal-ios26.ips", 25, "26.3", "iPhone18,4", "EXC_CRASH (SIGABRT)"),
        ("sigabrt-matchtalk-ios26.ips", 30, "26.1", "iPhone14,7", "EXC_CRASH (SIGABRT)"),
        ("sigabrt-sanfer-ipados18.ips", 1, "18.5", "iPad13,16", "EXC_CRASH (SIGABRT)"),
        ("sigtrap-iOSCrashingTest-ios15-with-dsym.ips", 1, "15.5", "iPhone14,2", "EXC_BREAKPOINT (SIGTRAP)"),
        ("legacy-sigsegv-bikerouter-ios26.crash", 1, "26.4", "iPhone17,2", "EXC_BAD_ACCESS (SIGSEGV)"),
        ("legacy-sigabrt-memoai-ios17.crash", 3, "17.7.10", "iPad7,6", "EXC_CRASH (SIGABRT)"),
    ])
    func aRealReportIsOneValidCrashRow(file: String, build: Int, os: String, device: String, cause: String) throws {
        let path = Self.folder.appendingPathComponent(file).path
        let (rows, stderr, status) = try CrashReportRows.rows([path])
        #expect(status == 0 && stderr.isEmpty, "\(stderr)")
        #expect(rows.count == 1)
        let row = try #require(rows.first)
        #expect(row["name"] as? String == "crash" && row["app_build"] as? Int == build)
        #expect(row["os"] as? String == os && row["device"] as? String == device)
        let stack = try #require(row["stack"] as? [[String: Any]])
        #expect(stack.count >= 5 && stack.count <= 32)
        #expect(stack.allSatisfy { ($0["uuid"] as? String).map { ColumnPatterns.canonicalUUID($0) == $0 } ?? true })
        // The reason is kept as numbers, and the numbers name it.
        let kept = CrashCause(
            exceptionType: row["exception_type"] as? Int, signal: row["signal"] as? Int, terminationCode: row["termination_code"] as? Int)
        #expect(kept.description == cause)
        let symbolicated = ToolRun.run(["symbolicate", path])
        #expect(symbolicated.stdout.hasPrefix("crash ") && symbolicated.stdout.contains("): \(cause)\n"), "\(symbolicated.stdout.prefix(200))")
    }
}

/// `symbolicate --format text|ips`: the report written back with its frames named.
@Suite struct SymbolicatedCrashReports {
    static let dsyms = Repository.root.appendingPathComponent("dsyms-fixtures/builds").path

    @Test func textIsApplesLayoutWithTheAppsFramesNamedToFileAndLine() throws {
        let run = ToolRun.run(["symbolicate", "--format", "text", "--dsyms", Self.dsyms, CrashReportRows.path("yuiapp-131-sigsegv.ips")])
        #expect(run.status == 0, "\(run.stderr)")
        for line in [
            "Hardware Model:      iPhone15,2\n", "Version:             2.25.0 (131)\n", "Exception Type:  EXC_BAD_ACCESS (SIGSEGV)\n",
            "Termination Reason: SIGNAL 11\n", "\nThread 0 Crashed:\n",
            "0   YuiApp                  0x0000000100f4009c crash + 4 (Builtins.swift:42)\n",
            "1   YuiApp                  0x0000000100f40098 YuiLines.fail + 12 (YuiLines.swift:44)\n",
            "2   YuiApp                  0x0000000100f40058 main + 84 (main.swift:5)\n", "\nThread 1:\n", "\nBinary Images:\n",
            "0x100f3c000 - 0x100f43fff YuiApp arm64  <4c4c4c4c55553144a1b2000000000131>\n",
        ] {
            #expect(run.stdout.contains(line), "\(line) in \(run.stdout)")
        }
        let watchdog = ToolRun.run(["symbolicate", "--format", "text", "--dsyms", Self.dsyms, CrashReportRows.path("yuiapp-130-watchdog.ips")])
        #expect(watchdog.stdout.contains("Termination Reason: FRONTBOARD 0x8BADF00D\n"), "\(watchdog.stdout)")
        #expect(watchdog.stdout.contains("YuiLines.parse + 8 ("), "\(watchdog.stdout)")
        let legacy = ToolRun.run(["symbolicate", "--format", "text", "--dsyms", Self.dsyms, CrashReportRows.path("yuiapp-131-abort.crash")])
        #expect(legacy.stdout.contains("Exception Type:  EXC_CRASH (SIGABRT)\n"), "\(legacy.stdout)")
        #expect(legacy.stdout.contains("YuiLines.fail + 12 (YuiLines.swift:44)"), "\(legacy.stdout)")
    }

    /// The .ips back: a header line and a body that parse, with every key of the input and its
    /// value, and Xcode's four keys added to the frames that are named.
    @Test(arguments: ["yuiapp-131-sigsegv.ips", "two-reports.ips", "real/watchdog-earshot-ios27.ips", "real/sigabrt-driverportal-ios26.ips"])
    func ipsKeepsEveryKeyAndAddsXcodesSymbolKeys(file: String) throws {
        let input = CrashReportRows.path(file)
        let run = ToolRun.run(["symbolicate", "--format", "ips", "--dsyms", Self.dsyms, input])
        #expect(run.status == 0, "\(run.stderr)")
        let original = try String(contentsOfFile: input, encoding: .utf8)
        let added: Set<String> = ["symbol", "symbolLocation", "sourceFile", "sourceLine"]
        /// The input's values, with the keys `symbolicate` adds taken out of what it wrote.
        func stripped(_ value: Any, like original: Any) -> Any {
            if let object = value as? [String: Any], let originalObject = original as? [String: Any] {
                var kept: [String: Any] = [:]
                for (key, inner) in object where originalObject[key] != nil || !added.contains(key) {
                    kept[key] = originalObject[key].map { stripped(inner, like: $0) } ?? inner
                }
                return kept
            }
            if let array = value as? [Any], let originalArray = original as? [Any], array.count == originalArray.count {
                return zip(array, originalArray).map { stripped($0, like: $1) }
            }
            return value
        }
        let inputDocuments = try Self.documents(original)
        let outputDocuments = try Self.documents(run.stdout)
        #expect(inputDocuments.count == outputDocuments.count && inputDocuments.count >= 2)
        for (before, after) in zip(inputDocuments, outputDocuments) {
            // Compared as JSON written with sorted keys: the same keys and values, whatever the order.
            let written = try JSONSerialization.data(withJSONObject: stripped(after, like: before), options: [.sortedKeys])
            let expected = try JSONSerialization.data(withJSONObject: before, options: [.sortedKeys])
            #expect(written == expected, "\(file): a key or value of the input changed")
        }
        if file == "yuiapp-131-sigsegv.ips" {
            #expect(run.stdout.contains(#""symbol":"crash","symbolLocation":4,"sourceFile":"Builtins.swift","sourceLine":42"#))
        }
    }

    /// The header and body documents of an .ips text, in order: a header is one line, a body
    /// ends where its brackets close (strings skipped).
    static func documents(_ text: String) throws -> [Any] {
        let bytes = Array(text.utf8)
        var documents: [Any] = []
        var position = 0
        func skipBlank() { while position < bytes.count, [0x20, 0x0a, 0x0d, 0x09].contains(bytes[position]) { position += 1 } }
        while true {
            skipBlank()
            guard position < bytes.count else { break }
            let headerEnd = bytes[position...].firstIndex(of: 0x0a) ?? bytes.count
            documents.append(try JSONSerialization.jsonObject(with: Data(bytes[position..<headerEnd])))
            position = headerEnd
            skipBlank()
            var depth = 0
            var inString = false
            var escaped = false
            let bodyStart = position
            while position < bytes.count {
                let c = bytes[position]
                position += 1
                if inString {
                    if escaped { escaped = false } else if c == 0x5c { escaped = true } else if c == 0x22 { inString = false }
                } else if c == 0x22 {
                    inString = true
                } else if c == 0x7b || c == 0x5b {
                    depth += 1
                } else if c == 0x7d || c == 0x5d {
                    depth -= 1
                    if depth == 0 { break }
                }
            }
            documents.append(try JSONSerialization.jsonObject(with: Data(bytes[bodyStart..<position])))
        }
        return documents
    }

    @Test func formatIsForCrashReportsOnly() throws {
        let payload = ToolRun.run(["symbolicate", "--format", "text", Repository.samples.appendingPathComponent("metrics-ios16.json").path])
        #expect(payload.status == 1)
        #expect(payload.stderr.contains("not an Apple crash report (.ips or .crash text)"), "\(payload.stderr)")
        let usage = ToolRun.run(["symbolicate", "--format", "ips", "--json", CrashReportRows.path("yuiapp-131-sigsegv.ips")])
        #expect(usage.status == 64)
        let wrong = ToolRun.run(["symbolicate", "--format", "pdf", CrashReportRows.path("yuiapp-131-sigsegv.ips")])
        #expect(wrong.status == 64 && wrong.stderr.contains("text or ips"), "\(wrong.stderr)")
    }
}
