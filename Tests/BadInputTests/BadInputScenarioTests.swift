import Foundation
import PayloadDecode
import TestSupport
import Testing

/// The issue's "done when" cases that need more than one input file, or inputs too big to check in.
@Suite struct BadInputScenarios {
    // MARK: Absurd sizes, generated here instead of committed

    /// A hang stack nested 100,000 deep: refused with a clear error, without recursion deep enough
    /// to overflow the stack (the test process would die).
    @Test func stackNested100000DeepIsRefused() throws {
        let scratch = try ScratchFolder("deep")
        defer { scratch.remove() }
        let frame =
            #"{"binaryName": "YuiApp", "binaryUUID": "4C4C4C4C-5555-3144-A1B2-000000000130", "offsetIntoBinaryTextSegment": 4096, "sampleCount": 1"#
        let deep = nestedHang(depth: 100_000, frame: frame)
        let path = try scratch.write("deep.json", Array(deep.utf8))
        let run = ToolRun.run(["rows", path])
        #expect(run.status == 1)
        #expect(
            run.stderr.split(separator: "\n").contains { $0.contains(path + ": ") && $0.contains("JSON nested deeper than 512 levels") },
            "\(run.stderr)")
        #expect(run.stdout == "[]\n" || run.stdout == "[\n]\n" || !run.stdout.contains("\"hang\""), "\(run.stdout)")
    }

    /// With the JSON depth limit lifted by a caller, a stack 20,000 deep still cannot overflow the
    /// stack (row keys are computed without recursion) and the stack walk's own limit, MetricKit's
    /// 130, refuses it. Frames are kept small so the debug build stays quick.
    @Test func stackDeeperThan130IsRefusedEvenWithTheJSONLimitLifted() {
        let depth = 20_000
        let deep = nestedHang(depth: depth, frame: #"{"sampleCount": 1"#)
        var options = ConversionOptions()
        options.maxJSONDepth = 4 * depth
        var diagnostics: [InputDiagnostic] = []
        var rows: [Row] = []
        let converted = Array(deep.utf8).withUnsafeBytes { bytes in
            RowSource.rows(fromBytes: bytes, fileName: "deep.json", options: options, report: { diagnostics.append($0) }, emit: { rows.append($0) })
        }
        #expect(!converted)
        #expect(rows.isEmpty)
        #expect(
            diagnostics.contains {
                $0.severity == .error && $0.file == "deep.json" && $0.message.contains("subFrames nested deeper than 130 frames")
            },
            "\(diagnostics)")
    }

    /// A hang payload whose one call stack is `depth` frames, each the only child of the one before.
    private func nestedHang(depth: Int, frame: String) -> String {
        var tree = String(repeating: frame + #", "subFrames": ["#, count: depth - 1) + frame + "}"
        tree += String(repeating: "]}", count: depth - 1)
        let payload = hangPayload(frames: [("YuiApp", "4C4C4C4C-5555-3144-A1B2-000000000130", 4096)])
        let framesStart = payload.range(of: #"[{"binaryName""#)!.lowerBound
        return String(payload[..<framesStart]) + "[" + tree + "]}]}}]}"
    }

    /// A JSON Lines input with a line past the line limit: that line is reported by number and
    /// skipped, the lines around it are converted.
    @Test func lineLongerThanTheLimitIsSkippedAndReported() throws {
        let scratch = try ScratchFolder("long-line")
        defer { scratch.remove() }
        let good = hangPayload(frames: [("YuiApp", "4C4C4C4C-5555-3144-A1B2-000000000130", 4096)])
            .split(separator: "\n").joined()
        let limit = ConversionOptions().maxLineBytes
        var bytes = Array((good + "\n").utf8)
        bytes += Array(#"{"pad": ""#.utf8) + [UInt8](repeating: UInt8(ascii: "x"), count: limit) + Array("\"}\n".utf8)
        bytes += Array((good + "\n").utf8)
        let path = try scratch.write("long.jsonl", bytes)
        let run = ToolRun.run(["rows", "--format", "jsonl", path])
        #expect(run.status == 1)
        #expect(
            run.stderr.split(separator: "\n").contains { $0.contains(path + ": line 2") && $0.contains("longer than \(limit) bytes") },
            "\(run.stderr)")
        #expect(run.stdout.split(separator: "\n").count == 2)
    }

    /// A 1 GiB line on standard input (a pipe, so nothing touches the disk) is skipped without
    /// being held: the lines around it are converted, and the process never holds the line.
    @Test func oneGigabyteLineIsSkippedWithoutHoldingIt() throws {
        let good =
            hangPayload(frames: [("YuiApp", "4C4C4C4C-5555-3144-A1B2-000000000130", 4096)])
            .split(separator: "\n").joined() + "\n"
        var descriptors: [Int32] = [0, 0]
        try #require(pipe(&descriptors) == 0)
        let writeEnd = descriptors[1]
        let writer = Thread {
            func send(_ bytes: [UInt8]) {
                var offset = 0
                while offset < bytes.count {
                    let written = bytes.withUnsafeBytes { write(writeEnd, $0.baseAddress! + offset, bytes.count - offset) }
                    if written <= 0 { return }
                    offset += written
                }
            }
            send(Array(good.utf8))
            send(Array(#"{"pad": ""#.utf8))
            let chunk = [UInt8](repeating: UInt8(ascii: "x"), count: 1 << 20)
            for _ in 0..<1024 { send(chunk) }
            send(Array("\"}\n".utf8))
            send(Array(good.utf8))
            close(writeEnd)
        }
        writer.start()
        let standardInput = FileHandle(fileDescriptor: descriptors[0], closeOnDealloc: true)
        let run = ToolRun.run(["rows", "--format", "jsonl", "-"], stdin: standardInput)
        #expect(run.status == 1)
        #expect(run.stderr.split(separator: "\n").contains { $0.contains("<stdin>: line 2: longer than") && $0.contains("skipped") }, "\(run.stderr)")
        #expect(run.stdout.split(separator: "\n").count == 2)
        // Peak memory of the whole test process: holding the line would take it past 1 GiB.
        var usage = rusage()
        getrusage(RUSAGE_SELF.rawValue, &usage)
        #expect(usage.ru_maxrss < 900 * 1024, "peak RSS \(usage.ru_maxrss) KiB")
    }

    /// A single JSON document past the file limit is refused, not read into memory whole.
    @Test func documentLargerThanTheLimitIsRefused() throws {
        let scratch = try ScratchFolder("big-file")
        defer { scratch.remove() }
        let limit = ConversionOptions().maxFileBytes
        let path = scratch.file("big.json")
        #expect(FileManager.default.createFile(atPath: path, contents: nil))
        let handle = try #require(FileHandle(forWritingAtPath: path))
        let chunk = Data(repeating: UInt8(ascii: " "), count: 1 << 20)
        handle.write(Data("[".utf8))
        for _ in 0...(limit >> 20) { handle.write(chunk) }
        handle.write(Data("]".utf8))
        try handle.close()
        let run = ToolRun.run(["rows", path])
        #expect(run.status == 1)
        #expect(run.stderr.split(separator: "\n").contains { $0.contains(path + ": ") && $0.contains("larger than \(limit) bytes") }, "\(run.stderr)")
    }

    // MARK: Ten good files and one bad one

    /// 10 good files and 1 bad: the 10 are converted, the bad one is reported with its name and
    /// place, exit 1; with --output the file holds exactly the 10 files' rows and no temporary
    /// file is left beside it.
    @Test func tenGoodFilesAndOneBad() throws {
        let scratch = try ScratchFolder("ten-and-one")
        defer { scratch.remove() }
        let inputs = scratch.file("in")
        let samples = try FileManager.default.contentsOfDirectory(atPath: Paths.samples)
            .filter { $0.hasSuffix(".json") || $0.hasSuffix(".jsonl") }.sorted()
        try #require(samples.count >= 5)
        var good: [String] = []
        for index in 0..<10 {
            good.append(try scratch.copy(Paths.samples + "/" + samples[index % samples.count], to: "in/good-\(index).json"))
        }
        let bad = try scratch.copy(Paths.corpus + "/json-truncated-object.json", to: "in/bad.json")

        // What each good file gives on its own.
        var expectedKeys: [String] = []
        for path in good {
            let run = ToolRun.run(["rows", "--format", "jsonl", path])
            #expect(run.status == 0, "\(path): \(run.stderr)")
            expectedKeys += try rowKeys(run.stdout)
        }
        #expect(expectedKeys.count > 10)

        let output = scratch.file("out/rows.jsonl")
        try FileManager.default.createDirectory(atPath: scratch.file("out"), withIntermediateDirectories: true)
        let arguments = ["rows", "--format", "jsonl", "--output", output] + Array(good[..<5]) + [bad] + Array(good[5...])
        let run = ToolRun.run(arguments)
        #expect(run.status == 1)
        #expect(run.stdout.isEmpty)
        #expect(run.stderr.split(separator: "\n").contains { $0.contains(bad + ": line 15, column 4: invalid JSON") }, "\(run.stderr)")
        #expect(
            !run.stderr.split(separator: "\n").contains { line in good.contains { line.contains($0) } }, "a good file was reported: \(run.stderr)")
        let written = try String(contentsOfFile: output, encoding: .utf8)
        #expect(try rowKeys(written) == expectedKeys)
        #expect(try FileManager.default.contentsOfDirectory(atPath: scratch.file("out")) == ["rows.jsonl"])
    }

    /// An output that cannot be put in place leaves nothing behind: no temporary file, and an
    /// existing file of that name untouched.
    @Test func outputThatCannotBeWrittenLeavesNothingHalfWritten() throws {
        let scratch = try ScratchFolder("output")
        defer { scratch.remove() }
        let sample = Paths.samples + "/metrics-ios16.json"
        // The target is a folder: refused before anything is converted (a usage error).
        try FileManager.default.createDirectory(atPath: scratch.file("out/taken"), withIntermediateDirectories: true)
        let run = ToolRun.run(["rows", "--output", scratch.file("out/taken"), sample])
        #expect(run.status == 64)
        #expect(run.stderr.contains(scratch.file("out/taken") + ": not a regular file (a folder)"), "\(run.stderr)")
        #expect(try FileManager.default.contentsOfDirectory(atPath: scratch.file("out")) == ["taken"])

        // An existing output is replaced whole by a run that succeeds, never appended to or cut.
        let existing = try scratch.write("out/rows.json", Array("old contents".utf8))
        let replaced = ToolRun.run(["rows", "--output", existing, sample])
        #expect(replaced.status == 0)
        let rows = try JSONSerialization.jsonObject(with: Data(contentsOf: URL(fileURLWithPath: existing))) as? [Any]
        #expect((rows?.count ?? 0) > 0)
        #expect(try FileManager.default.contentsOfDirectory(atPath: scratch.file("out")).sorted() == ["rows.json", "taken"])
    }

    private func rowKeys(_ jsonLines: String) throws -> [String] {
        try jsonLines.split(separator: "\n").map { line in
            let object = try #require(try JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any])
            return try #require(object["row_key"] as? String)
        }
    }

    // MARK: Paths from arguments and payloads stay inside the debug-file root

    /// `../../etc` and friends as a build never leave the root: `dsyms` and `symbolicate --build`
    /// refuse them, and a frame whose UUID or image holds path characters matches nothing, even
    /// with a debug file for the real UUID sitting just outside the root.
    @Test func buildsUUIDsAndImagesNeverReachOutsideTheRoot() throws {
        let scratch = try ScratchFolder("root")
        defer { scratch.remove() }
        let root = scratch.file("dsyms")
        let app = "YuiApp.app.dSYM/Contents/Resources/DWARF/YuiApp"
        // The real debug file, outside the root, where a traversal would find it.
        try scratch.copy(Paths.fixtures + "/builds/130/" + app, to: "secret/130/" + app)
        try scratch.copy(Paths.fixtures + "/builds/130/" + app, to: "secret/" + app)
        try FileManager.default.createDirectory(atPath: root + "/130", withIntermediateDirectories: true)

        for build in ["../secret", "../secret/130", "..", ".", "130/../../secret", "/etc", "~", "", "13 0", "130/"] {
            let listed = ToolRun.run(["dsyms", "--dsyms", root, build])
            #expect(listed.status == 1, "dsyms '\(build)'")
            #expect(listed.stderr.contains("a build must be one folder name"), "dsyms '\(build)': \(listed.stderr)")
            #expect(!listed.stdout.contains("4C4C4C4C-5555-3144-A1B2-000000000130"))
        }
        let payload = try scratch.write("payload.json", Array(hangPayload(frames: [("YuiApp", "4C4C4C4C-5555-3144-A1B2-000000000130", 0x4000)]).utf8))
        for build in ["../secret", "..", "130/../../secret"] {
            let run = ToolRun.run(["symbolicate", "--dsyms", root, "--build", build, payload])
            #expect(run.status == 64, "--build '\(build)'")
            #expect(run.stdout.isEmpty)
        }

        // Frames whose UUID and image are paths: the UUID is dropped, the image reduced to a name.
        let hostile = hangPayload(frames: [
            ("../../secret/130/YuiApp.app.dSYM", "../../secret/130/YuiApp.app.dSYM", 0x4000),
            ("YuiApp", "4C4C4C4C-5555-3144-A1B2-000000000130/../../../secret", 0x4000),
        ])
        let hostilePath = try scratch.write("hostile.json", Array(hostile.utf8))
        let run = ToolRun.run(["symbolicate", "--json", "--dsyms", root, hostilePath])
        #expect(run.status == 0, "\(run.stderr)")
        #expect(run.stderr.contains("not a UUID; uuid left null"))
        #expect(!run.stdout.contains("\"symbolicated\""), "a frame was symbolicated: \(run.stdout)")
        #expect(!run.stdout.contains("secret/"), "\(run.stdout)")
        // The same stack with the real UUID against the secret folder as the root does symbolicate,
        // so the check above is not empty.
        let control = ToolRun.run(["symbolicate", "--json", "--dsyms", scratch.file("secret"), payload])
        #expect(
            control.stdout.contains("\"status\" : \"symbolicated\"") || control.stdout.contains("\"status\":\"symbolicated\""), "\(control.stdout)")
    }

    // MARK: Broken debug files beside good ones

    /// A build folder holding a truncated dSYM, a fat file whose slices overlap, and a dSYM whose
    /// DWARF section is cut in half, beside a good one: each broken file gets a clear error naming
    /// it (exit 1), and the good file's frames still symbolicate.
    @Test func brokenDebugFilesDoNotStopTheGoodOnes() throws {
        let scratch = try ScratchFolder("broken-build")
        defer { scratch.remove() }
        let root = scratch.file("dsyms")
        let kit = "YuiKit.framework.dSYM/Contents/Resources/DWARF/YuiKit"
        try scratch.copy(Paths.fixtures + "/builds/130/" + kit, to: "dsyms/130/" + kit)
        let cutDWARF = try scratch.copy(
            Paths.corpus + "/macho-debug-info-cut-in-half.macho", to: "dsyms/130/YuiApp.app.dSYM/Contents/Resources/DWARF/YuiApp")
        let truncated = try scratch.copy(
            Paths.corpus + "/macho-truncated-in-load-commands.macho", to: "dsyms/130/YuiOld.app.dSYM/Contents/Resources/DWARF/YuiOld")
        let overlapping = try scratch.copy(Paths.corpus + "/fat-slices-overlap.macho", to: "dsyms/130/YuiCore")

        // Outermost first: YuiApp calls into YuiKit, whose innermost frame is at 0x4004.
        let payload = try scratch.write(
            "hang.json",
            Array(
                hangPayload(frames: [
                    ("YuiApp", "4C4C4C4C-5555-3144-A1B2-000000000130", 0x4010),
                    ("YuiKit", "4C4C4C4C-5555-3144-A1B2-0000000B0130", 0x4004),
                ]).utf8))
        let run = ToolRun.run(["symbolicate", "--json", "--dsyms", root, payload])
        #expect(run.status == 1, "\(run.stderr)")
        #expect(
            run.stderr.split(separator: "\n").contains {
                $0.hasPrefix("error: ") && $0.contains(truncated + ": load commands") && $0.contains("run past the end")
            },
            "\(run.stderr)")
        #expect(run.stderr.split(separator: "\n").contains { $0.contains(overlapping + ": fat slice 1 overlaps") }, "\(run.stderr)")
        #expect(run.stderr.split(separator: "\n").contains { $0.contains(cutDWARF + ": corrupt DWARF") }, "\(run.stderr)")

        let stacks = try #require(try JSONSerialization.jsonObject(with: Data(run.stdout.utf8)) as? [[String: Any]])
        let frames = try #require(stacks.first?["frames"] as? [[String: Any]])
        try #require(frames.count == 2)
        // Innermost first: the YuiKit frame is named from its DWARF, the YuiApp frame is not.
        #expect(frames[0]["status"] as? String == "symbolicated", "\(frames[0])")
        let symbols = try #require(frames[0]["symbols"] as? [[String: Any]])
        #expect(symbols.contains { ($0["function"] as? String)?.contains("widest") == true }, "\(symbols)")
        #expect(frames[1]["status"] as? String == "missing_debug_file", "\(frames[1])")

        // `top` ranks with the good file's names and says why the broken ones were not used.
        let ranked = ToolRun.run(["top", "--dsyms", root, payload])
        #expect(ranked.status == 1, "\(ranked.stderr)")
        #expect(ranked.stdout.contains("layout.widest <- YuiApp+0x4010"), "\(ranked.stdout)")
        #expect(ranked.stderr.split(separator: "\n").contains { $0.contains(cutDWARF + ": corrupt DWARF") }, "\(ranked.stderr)")
        #expect(ranked.stderr.split(separator: "\n").contains { $0.contains(overlapping + ": fat slice 1 overlaps") }, "\(ranked.stderr)")

        // `dsyms` lists the good files and names each broken one.
        let listed = ToolRun.run(["dsyms", "--dsyms", root, "130"])
        #expect(listed.status == 1, "\(listed.stderr)")
        #expect(listed.stdout.contains("4C4C4C4C-5555-3144-A1B2-0000000B0130"))
        #expect(listed.stderr.contains(truncated) && listed.stderr.contains(overlapping), "\(listed.stderr)")
    }
}
