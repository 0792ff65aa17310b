import Foundation
import PayloadDecode
import TestSupport
import Testing

/// No value a crash report spells can trap (docs/crash-reports.md, "Bad input"): every number
/// at its largest (`0xffffffffffffffff`, 2^64 − 1), past it, negative, ranges whose end is below
/// their start, through every command, run as the executable so a trap shows as a signal.
@Suite struct CrashReportLimits {
    static let max = "18446744073709551615"
    static let dsyms = Repository.root.appendingPathComponent("dsyms-fixtures/builds").path

    /// Text with the largest value in every place a number stands; build 131's debug files answer
    /// for the app's UUID, so its frames are looked up at those offsets.
    static let text = """
        Incident Identifier: 3E1F5A2B-7C4D-4E6F-8A9B-0C1D2E3F4A5B
        Hardware Model:      iPhone15,2
        Identifier:          app.yui.Yui
        Version:             2.25.0 (131)
        Date/Time:           2026-11-27 21:04:11.5120 +0100
        OS Version:          iPhone OS 17.5.1 (21F90)
        Exception Type:  EXC_CRASH (SIGABRT)
        Termination Reason: FRONTBOARD 0xffffffffffffffff
        Triggered by Thread:  \(max)
        Crashed Thread:  99999999999999999999999

        Last Exception Backtrace:
        (0xffffffffffffffff 0x0 0x100f4009c)

        Thread 99999999999999999999 Crashed:
        Thread \(max) Crashed:
        0   YuiApp                        \t0xffffffffffffffff 0xffffffffffffffff + \(max)
        1   YuiApp                        \t0xffffffffffffffff 0x100f3c000 + \(max)
        2   YuiApp                        \t0x0000000100f4009c main + \(max) (main.swift:\(max))
        3   YuiApp                        \t0x0000000100f4009c main + 99999999999999999999999 (main.swift:-1)
        4   YuiApp                        \t0xfffffffffffffffff 0x100f3c000 + 16540
        5   ???                           \t0xffffffffffffffff 0x0 + 0
        18446744073709551615 YuiApp       \t0x0000000100f40098 0x100f3c000 + 16536

        Thread 0:
        0   YuiApp                        \t0x0000000100f40058 [inlined] inner + 4 (a.swift:1)
        1   YuiApp                        \t0x0000000100f40058 outer + 8 (a.swift:2)

        Binary Images:
               0x100f3c000 -        0x100f43fff YuiApp arm64  <4c4c4c4c55553144a1b2000000000131> /private/var/YuiApp
               0xffffffffffffffff - 0x0 Backwards arm64  <1c4c4c4c55553144a1b2000000000131> /x
               0x0 - 0xffffffffffffffff ??? unknown-arch  <00000000000000000000000000000000> ???
               0xffffffffffffffff - 0xffffffffffffffff Last arm64  <2c4c4c4c55553144a1b2000000000131> /y
               0x10000000000000000 - 0x1 Wide arm64  <3c4c4c4c55553144a1b2000000000131> /z

        """

    /// An `.ips` with the largest values in every number: offsets, bases, sizes, indexes, the
    /// faulting thread, the termination code, a symbol's location and line; values past 2^64 − 1,
    /// fractional and negative.
    static let ips = """
        {"app_name":"YuiApp","timestamp":"2026-11-27 21:04:11.51 +0100","app_version":"2.25.0","build_version":"131","bug_type":"309","os_version":"iPhone OS 17.5.1 (21F90)","bundleID":"app.yui.Yui"}
        {"modelCode":"iPhone15,2","captureTime":"2026-11-27 21:04:11.5120 +0100","faultingThread":\(max),
         "exception":{"type":"EXC_BAD_ACCESS","signal":"SIGSEGV"},"termination":{"namespace":"FRONTBOARD","code":\(max)},
         "threads":[{"triggered":true,"frames":[
           {"imageOffset":\(max),"imageIndex":0,"symbol":"main","symbolLocation":\(max),"sourceLine":\(max),"sourceFile":"a.swift"},
           {"imageOffset":\(max),"imageIndex":\(max)},
           {"imageOffset":1e30,"imageIndex":0},{"imageOffset":-1,"imageIndex":0},{"imageOffset":0.5,"imageIndex":0},
           {"imageOffset":\(max),"imageIndex":2},
           {"imageOffset":16540,"imageIndex":0,"inline":true,"symbol":"inner","symbolLocation":\(max)},
           {"imageOffset":16540,"imageIndex":0,"symbol":"outer","sourceLine":-5},
           {"imageOffset":16536,"imageIndex":-1},{"imageOffset":\(max),"imageIndex":0,"inline":true,"symbol":"dangling"}]},
           {"frames":[{"imageOffset":\(max),"imageIndex":1}]}],
         "lastExceptionBacktrace":[{"imageOffset":\(max),"imageIndex":1},{"imageOffset":\(max),"imageIndex":0,"symbol":"thrower"}],
         "usedImages":[{"uuid":"4c4c4c4c-5555-3144-a1b2-000000000131","base":\(max),"size":\(max),"name":"YuiApp","arch":"arm64"},
           {"uuid":"00000000-0000-0000-0000-000000000000","base":0,"size":0,"source":"A"},
           {"uuid":"5c4c4c4c-5555-3144-a1b2-000000000131","base":1e40,"size":-3,"name":"Odd"}]}

        """

    static let commands: [[String]] = [
        ["rows"], ["top", "--dsyms", dsyms], ["top", "--json", "--dsyms", dsyms], ["symbolicate", "--dsyms", dsyms],
        ["symbolicate", "--json", "--dsyms", dsyms], ["symbolicate", "--folded", "--dsyms", dsyms],
        ["symbolicate", "--format", "text", "--dsyms", dsyms], ["symbolicate", "--format", "ips", "--dsyms", dsyms],
        ["report", "--user", "5b1e3c1a-7a0e-4d8e-9a43-2f1c0d9b6e71", "--dsyms", dsyms],
    ]

    static func write(_ text: String, _ name: String) throws -> String {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("yui-perf-limits-" + UUID().uuidString)
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        let path = folder.appendingPathComponent(name).path
        try Data(text.utf8).write(to: URL(fileURLWithPath: path))
        return path
    }

    @Test(arguments: [("text", "max.crash"), ("ips", "max.ips"), ("old ips", "old.ips")])
    func theLargestValuesTrapNoCommand(form: String, file: String) throws {
        let oldHeader = #"{"app_name":"YuiApp","bug_type":"109","build_version":"131","app_version":"2.25.0","os_version":"iPhone OS 14.8 (18H17)"}"#
        let content = form == "text" ? Self.text : form == "ips" ? Self.ips : oldHeader + "\n" + Self.text
        let path = try Self.write(content, file)
        defer { try? FileManager.default.removeItem(atPath: (path as NSString).deletingLastPathComponent) }
        for command in Self.commands {
            let run = try ToolBinary.run(command + [path])
            #expect(run.status == 0 || run.status == 1, "\(command.joined(separator: " ")) \(form): status \(run.status)\n\(run.stderr)")
        }
        let rows = try ToolBinary.run(["rows", "--format", "jsonl", path])
        #expect(rows.status == 0, "\(rows.stderr)")
        #expect(rows.stdout.split(separator: "\n").count == 1, "\(form): \(rows.stdout)")
    }

    /// What the readers make of those values: an image whose end is below its start, or whose size
    /// does not fit 64 bits, has no size and holds no frame; a frame in no image keeps its address.
    @Test func theReadersKeepTheLargestValuesApart() throws {
        let text = try #require(Array(Self.text.utf8).withUnsafeBytes { CrashReports.read($0, fileName: "max.crash") })
        let report = try #require(text.reports.first)
        #expect(text.reports.count == 1)
        let listed = report.images.filter { $0.base != nil }
        #expect(listed.map(\.name) == ["YuiApp", "Backwards", "???", "Last"])
        #expect(listed.map(\.size) == [0x8000, nil, nil, 1])
        #expect(report.images[2].uuid == nil && report.images[2].answersNothing)
        #expect(report.terminationCode == UInt64.max)
        // Thread numbers past Int are not threads; the one at 2^64 − 1 is not a thread either.
        #expect(report.threads.map(\.number) == [0])
        #expect(report.lastExceptionBacktrace.map(\.address) == [UInt64.max, 0, 0x1_00f4_009c])
        // 2^64 − 1 lies in `Last` (one byte at 2^64 − 1), 0 in no image (`???` holds nothing).
        #expect(report.lastExceptionBacktrace.map(\.imageOffset) == [0, 0, 0x409c])
        #expect(report.lastExceptionBacktrace.map { $0.imageIndex.flatMap { report.images[$0].name } } == ["Last", nil, "YuiApp"])
        // The inlined frame and the frame that holds it are one frame with two names.
        #expect(report.threads[0].frames.count == 1)
        #expect(report.threads[0].frames[0].names.map(\.symbol) == ["inner", "outer"])
        #expect(report.threads[0].frames[0].names.map(\.isInlined) == [true, false])

        let ips = try #require(Array(Self.ips.utf8).withUnsafeBytes { CrashReports.read($0, fileName: "max.ips") })
        let json = try #require(ips.reports.first)
        let crashed = try #require(json.threads.first)
        // Kept: the two offsets at 2^64 − 1 (image 0, and a past-the-end index as no image), the
        // offset at 2^64 − 1 of the image whose base is past 2^64 − 1, the inlined pair as one
        // frame, the negative index as no image, and the inlined frame that nothing holds, alone.
        // Skipped: the offsets 1e30, -1 and 0.5.
        #expect(crashed.frames.map(\.imageOffset) == [UInt64.max, UInt64.max, UInt64.max, 16540, 16536, UInt64.max])
        #expect(crashed.frames[0].address == nil)  // base + offset past 2^64 − 1
        #expect(crashed.frames[0].names.first?.line == nil && crashed.frames[0].names.first?.location == UInt64.max)
        #expect(crashed.frames[3].names.map(\.symbol) == ["inner", "outer"])
        #expect(json.images[2].base == nil && json.images[2].size == nil)
        #expect(json.lastExceptionBacktrace.count == 2 && json.terminationCode == UInt64.max)
        #expect(ips.diagnostics.filter { $0.severity == .warning }.count >= 4)
    }
}
