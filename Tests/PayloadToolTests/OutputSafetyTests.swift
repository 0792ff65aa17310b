import Foundation
import TestSupport
import Testing

/// Where output goes, as a user runs the executable: `--output` writes regular files only (through
/// a symbolic link, keeping the mode), a failed write to standard output is an error, a closed pipe
/// ends the run quietly, and an interrupted run leaves no temporary file.
@Suite(.serialized) struct OutputSafetyTests {
    let folder: URL
    let samples: [String]

    init() throws {
        folder = FileManager.default.temporaryDirectory.appendingPathComponent("yui-output-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        let samplesFolder = Repository.samples
        samples = try FileManager.default.contentsOfDirectory(atPath: samplesFolder.path)
            .filter { $0.hasSuffix(".json") || $0.hasSuffix(".jsonl") }.sorted()
            .map { samplesFolder.appendingPathComponent($0).path }
    }

    /// Runs the executable with standard output going to `output` (a file handle) or a pipe.
    func run(
        _ arguments: [String], output: FileHandle? = nil
    ) throws -> (status: Int32, reason: Process.TerminationReason, stdout: String, stderr: String) {
        let process = Process()
        process.executableURL = try ToolBinary.executable()
        process.arguments = arguments
        let out = Pipe()
        let err = Pipe()
        process.standardOutput = output ?? out
        process.standardError = err
        process.standardInput = FileHandle.nullDevice
        try process.run()
        let outData = output == nil ? out.fileHandleForReading.readDataToEndOfFile() : Data()
        let errData = err.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        return (
            process.terminationStatus, process.terminationReason, String(decoding: outData, as: UTF8.self), String(decoding: errData, as: UTF8.self)
        )
    }

    func path(_ name: String) -> String { folder.appendingPathComponent(name).path }

    func leftovers() throws -> [String] {
        try FileManager.default.contentsOfDirectory(atPath: folder.path).filter { $0.contains(".tmp-") }
    }

    @Test func aFullDiskIsAnErrorNamingStandardOutput() throws {
        defer { try? FileManager.default.removeItem(at: folder) }
        let full = try #require(FileHandle(forWritingAtPath: "/dev/full"))
        let result = try run(["rows"] + samples, output: full)
        #expect(result.status == 1)
        #expect(result.stderr.contains("error: standard output: cannot write: No space left on device"), "\(result.stderr)")
    }

    @Test func aClosedPipeEndsTheRunQuietly() throws {
        defer { try? FileManager.default.removeItem(at: folder) }
        let process = Process()
        process.executableURL = try ToolBinary.executable()
        // Far more output than a pipe holds.
        process.arguments = ["rows"] + Array(repeating: samples, count: 40).flatMap { $0 }
        let out = Pipe()
        let err = Pipe()
        process.standardOutput = out
        process.standardError = err
        process.standardInput = FileHandle.nullDevice
        try process.run()
        try out.fileHandleForReading.close()
        let errData = err.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        #expect(process.terminationReason == .uncaughtSignal)
        #expect(process.terminationStatus == SIGPIPE)
        #expect(errData.isEmpty, "\(String(decoding: errData, as: UTF8.self))")
    }

    @Test func aFIFOOrADeviceIsRefusedAndLeftAlone() throws {
        defer { try? FileManager.default.removeItem(at: folder) }
        #expect(mkfifo(path("fifo"), 0o644) == 0)
        let fifo = try run(["rows", "--output", path("fifo")] + samples)
        #expect(fifo.status == 64)
        #expect(fifo.stderr.contains("not a regular file (a FIFO)"))
        var info = stat()
        #expect(lstat(path("fifo"), &info) == 0 && (info.st_mode & S_IFMT) == S_IFIFO)
        // A link to /dev/null stands for the device (run as root, the old code replaced it).
        try FileManager.default.createSymbolicLink(atPath: path("null"), withDestinationPath: "/dev/null")
        let device = try run(["rows", "--output", path("null")] + samples)
        #expect(device.status == 64)
        #expect(device.stderr.contains("not a regular file (a character device)"))
        #expect(try FileManager.default.destinationOfSymbolicLink(atPath: path("null")) == "/dev/null")
        #expect(stat("/dev/null", &info) == 0 && (info.st_mode & S_IFMT) == S_IFCHR)
        #expect(try leftovers().isEmpty)
    }

    @Test func aSymbolicLinkIsWrittenThroughAndTheModeKept() throws {
        defer { try? FileManager.default.removeItem(at: folder) }
        FileManager.default.createFile(atPath: path("rows.json"), contents: Data("old".utf8), attributes: [.posixPermissions: 0o600])
        try FileManager.default.createSymbolicLink(atPath: path("latest.json"), withDestinationPath: "rows.json")
        let result = try run(["rows", "--output", path("latest.json")] + samples)
        #expect(result.status == 0, "\(result.stderr)")
        #expect(try FileManager.default.destinationOfSymbolicLink(atPath: path("latest.json")) == "rows.json")
        let written = try String(contentsOfFile: path("rows.json"), encoding: .utf8)
        #expect(written.hasPrefix("[") && written.contains("\"row_key\""))
        let mode = try FileManager.default.attributesOfItem(atPath: path("rows.json"))[.posixPermissions] as? Int
        #expect(mode == 0o600)
        #expect(try leftovers().isEmpty)
    }

    @Test func aReadOnlyFileIsRefused() throws {
        defer { try? FileManager.default.removeItem(at: folder) }
        FileManager.default.createFile(atPath: path("kept.json"), contents: Data("keep me".utf8), attributes: [.posixPermissions: 0o444])
        let result = try run(["rows", "--output", path("kept.json")] + samples)
        #expect(result.status == 1)
        #expect(result.stderr.contains("kept.json: cannot write: the file is read-only"))
        #expect(try String(contentsOfFile: path("kept.json"), encoding: .utf8) == "keep me")
        #expect(try leftovers().isEmpty)
    }

    /// A real process, interrupted by a real signal while it waits for standard input.
    @Test(arguments: [SIGINT, SIGTERM, SIGHUP, SIGQUIT]) func anInterruptedRunLeavesNoTemporaryFile(_ signalNumber: Int32) throws {
        defer { try? FileManager.default.removeItem(at: folder) }
        let process = Process()
        process.executableURL = try ToolBinary.executable()
        process.arguments = ["rows", "--output", path("out.json"), "-"]
        let input = Pipe()
        process.standardInput = input
        process.standardOutput = FileHandle.nullDevice
        process.standardError = FileHandle.nullDevice
        try process.run()
        // The temporary file exists once the output is opened; the run then waits on stdin.
        var waited = 0
        while try leftovers().isEmpty, waited < 200 {
            usleep(20_000)
            waited += 1
        }
        #expect(try leftovers().count == 1)
        kill(process.processIdentifier, signalNumber)
        process.waitUntilExit()
        try? input.fileHandleForWriting.close()
        #expect(process.terminationReason == .uncaughtSignal)
        #expect(process.terminationStatus == signalNumber)
        #expect(try leftovers().isEmpty)
        #expect(!FileManager.default.fileExists(atPath: path("out.json")))
    }

    /// A run that writes no file of its own (the signal handlers are set up with the first one)
    /// still ends as the signal says, SIGQUIT included (Ctrl-\ must stop it).
    @Test(arguments: [SIGINT, SIGTERM, SIGHUP, SIGQUIT]) func aSignalEndsARunWithoutOutputFile(_ signalNumber: Int32) throws {
        let process = Process()
        process.executableURL = try ToolBinary.executable()
        process.arguments = ["rows", "-"]
        let input = Pipe()
        process.standardInput = input
        process.standardOutput = FileHandle.nullDevice
        process.standardError = FileHandle.nullDevice
        try process.run()
        usleep(300_000)
        kill(process.processIdentifier, signalNumber)
        process.waitUntilExit()
        try? input.fileHandleForWriting.close()
        #expect(process.terminationReason == .uncaughtSignal)
        #expect(process.terminationStatus == signalNumber)
    }
}

/// Text from an input reaches a message escaped and cut: no escape sequence, carriage return or
/// line feed of its own, at most 200 characters of any one value.
@Suite struct MessageEscapingTests {
    @Test func inputTextInMessagesIsEscapedAndCut() throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("yui-escape-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        let sample = Repository.samples.appendingPathComponent("metrics-ios16.json")
        var payload = try #require(try JSONSerialization.jsonObject(with: Data(contentsOf: sample)) as? [String: Any])
        payload["appVersion"] = "\u{1B}]0;PWNED\u{07}\r\nerror: a forged line"
        var meta = try #require(payload["metaData"] as? [String: Any])
        meta["deviceType"] = String(repeating: "x", count: 1_000_000)
        payload["metaData"] = meta
        // The file's own name carries an escape sequence too.
        let path = folder.appendingPathComponent("red\u{1B}[31m.json").path
        try JSONSerialization.data(withJSONObject: payload).write(to: URL(fileURLWithPath: path))
        let run = CommandRun(["rows", path])
        let lines = run.stderr.split(separator: "\n", omittingEmptySubsequences: false).dropLast()
        #expect(lines.count == 2, "\(run.stderr.prefix(2000))")
        for line in lines {
            #expect(!line.unicodeScalars.contains { $0.value < 0x20 || (0x7F...0x9F).contains($0.value) }, "\(line.prefix(300))")
            #expect(line.count < 500)
            #expect(line.hasPrefix("error: " + folder.path + "/red\\u{1B}[31m.json: "))
        }
        #expect(run.stderr.contains("'\\u{1B}]0;PWNED\\u{7}\\u{D}\\u{A}error: a forged line' does not fit app_version"))
        #expect(run.stderr.contains("…' (999800 more characters) is not a model identifier"))
        #expect(!run.stderr.contains("\nerror: a forged line"))
    }

    @Test func anAddressLineIsQuotedCut() throws {
        let object = try SymbolicateFixtures.path("other/yui-linux")
        let run = CommandRun(["symbolicate", "--object", object], stdin: "0x" + String(repeating: "1", count: 990) + "\u{1B}[2J\n")
        #expect(run.status == 1)
        #expect(run.stderr.count < 400)
        #expect(run.stderr.contains("…' (796 more characters) is not an address"))
    }

    /// A line of standard input longer than 1,024 bytes is no address: it is named by its length,
    /// never held whole nor echoed, and the other lines are answered.
    @Test func anOverlongLineIsNamedNotEchoed() throws {
        let object = try SymbolicateFixtures.path("other/yui-linux")
        let input = "0x200000\n" + String(repeating: "a", count: 10_000_000) + "\n0x200001\n"
        let run = CommandRun(["symbolicate", "--object", object, "--json"], stdin: input)
        #expect(run.status == 1)
        #expect(run.stderr == "error: <stdin>: line 2: a line of 10000000 bytes, longer than 1024: not an address\n")
        struct Answer: Decodable {
            var input: String
            var status: String?
        }
        let answers = try JSONDecoder().decode([Answer].self, from: Data(run.stdout.utf8))
        #expect(answers.map(\.input.count) == [8, 1_025, 8])
        #expect(run.stdout.count < 2_000)
    }
}

/// A row file's row with U+0000 in an image name is refused by the reader (PostgreSQL would refuse
/// it and roll its whole batch back); the other rows pass.
@Suite struct RowFileFrameTests {
    @Test func aNulInAnImageNameIsRefusedByTheReader() throws {
        let sample = Repository.samples.appendingPathComponent("diagnostics-ios18-crashes-hang.json").path
        let converted = CommandRun(["rows", "--format", "jsonl", sample])
        let lines = converted.stdout.split(separator: "\n").map(String.init)
        try #require(lines.count >= 2)
        let poisoned = lines[0].replacingOccurrences(of: "\"image\":\"YuiApp\"", with: "\"image\":\"Yui\\u0000App\"")
        try #require(poisoned != lines[0])
        let path = FileManager.default.temporaryDirectory.appendingPathComponent("yui-nul-\(UUID().uuidString).jsonl").path
        defer { try? FileManager.default.removeItem(atPath: path) }
        try (poisoned + "\n" + lines[1] + "\n").write(toFile: path, atomically: true, encoding: .utf8)
        let run = CommandRun(["rows", "--format", "jsonl", path])
        #expect(run.status == 1)
        #expect(run.stderr.contains("image 'Yui\\u{0}App' holds control characters"), "\(run.stderr)")
        #expect(run.stdout.split(separator: "\n").map(String.init) == [lines[1]])
    }
}

/// Values that must neither crash nor corrupt output: numbers a Double cannot hold, absurd durations, build numbers
/// past `int`.
@Suite struct AbsurdNumberTests {
    /// The single-hang sample with its metadata changed.
    func hangPayload(_ change: (inout [String: Any]) -> Void) throws -> String {
        let sample = Repository.samples.appendingPathComponent("diagnostic-single-hang.json")
        var payload = try #require(try JSONSerialization.jsonObject(with: Data(contentsOf: sample)) as? [String: Any])
        var meta = try #require(payload["diagnosticMetaData"] as? [String: Any])
        change(&meta)
        payload["diagnosticMetaData"] = meta
        let path = FileManager.default.temporaryDirectory.appendingPathComponent("yui-absurd-\(UUID().uuidString).json").path
        try JSONSerialization.data(withJSONObject: payload).write(to: URL(fileURLWithPath: path))
        return path
    }

    @Test func anUnderflowingDurationIsOutOfRangeNotZero() throws {
        let path = try hangPayload { $0["hangDuration"] = "1.0e-400 sec" }
        defer { try? FileManager.default.removeItem(atPath: path) }
        let run = CommandRun(["rows", "--format", "jsonl", path])
        #expect(run.stderr.contains("'1.0e-400 sec' is out of range; value left null"), "\(run.stderr)")
        #expect(run.stdout.contains("\"value\":null"))
    }

    @Test func aHangOfMoreThanADayIsNoReading() throws {
        let path = try hangPayload { $0["hangDuration"] = "1e15 sec" }
        defer { try? FileManager.default.removeItem(atPath: path) }
        let run = CommandRun(["rows", "--format", "jsonl", path])
        #expect(run.stderr.contains("hangDuration: 1000000000000000.0 sec is longer than a day; value left null"), "\(run.stderr)")
        #expect(!run.stdout.contains("1000000000000000"))
    }

    @Test func aBuildNumberPastIntSaysSo() throws {
        let path = try hangPayload { $0["appBuildVersion"] = "2147483648" }
        defer { try? FileManager.default.removeItem(atPath: path) }
        let run = CommandRun(["rows", path])
        #expect(run.status == 1)
        #expect(run.stderr.contains("build number '2147483648' is larger than 2147483647, the most app_build holds"), "\(run.stderr)")
    }

}

/// A key given twice counts with its last value, as Python's json and jq read it.
@Suite struct DuplicateKeyTests {
    @Test func theLastValueOfARepeatedKeyCounts() throws {
        let sample = Repository.samples.appendingPathComponent("diagnostics-ios18-crashes-hang.json").path
        let text = try String(contentsOfFile: sample, encoding: .utf8)
        let repeated = text.replacingOccurrences(of: "\"hangDiagnostics\" :", with: "\"hangDiagnostics\": [], \"hangDiagnostics\" :")
        try #require(repeated != text)
        let path = FileManager.default.temporaryDirectory.appendingPathComponent("yui-dup-\(UUID().uuidString).json").path
        defer { try? FileManager.default.removeItem(atPath: path) }
        try repeated.write(toFile: path, atomically: true, encoding: .utf8)
        let original = CommandRun(["rows", "--format", "jsonl", sample])
        let run = CommandRun(["rows", "--format", "jsonl", path])
        #expect(run.status == 0)
        let hangs = { (output: String) in output.split(separator: "\n").filter { $0.contains("\"name\":\"hang\"") }.count }
        #expect(hangs(run.stdout) == hangs(original.stdout))
        #expect(hangs(run.stdout) > 0)
    }
}
