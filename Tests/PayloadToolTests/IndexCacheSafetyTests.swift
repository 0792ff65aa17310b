import Foundation
import StackSymbolize
import TestSupport
import Testing

/// The symbol index folder shared by runs at once, interrupted, unwritable or locked too long
/// (docs/scale.md, "Running many at once"): every run answers exactly as direct mode does, and
/// nothing is left behind. Real processes of the built tool, on the toolchain's swift-format
/// (57 MB, an index build of about two seconds: long enough for runs to overlap).
@Suite(.serialized) struct IndexCacheSafetyTests {
    static let swiftFormat = "/opt/swift/usr/bin/swift-format"
    let folder: URL

    init() throws {
        folder = FileManager.default.temporaryDirectory.appendingPathComponent("yui-index-safety-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
    }

    func path(_ name: String) -> String { folder.appendingPathComponent(name).path }

    /// 2,000 addresses spread over swift-format's `.text` (0x1ff660 to 0x8bb68a).
    static let addresses = (0..<2_000).map { "0x" + String(0x20_0000 + $0 * 0x3457, radix: 16) }.joined(separator: "\n") + "\n"

    /// A finished run of the tool: how it ended and what it wrote.
    struct Finished {
        var status: Int32
        var signaled: Bool
        var stdout: String
        var stderr: String
    }

    /// A run of the tool started with `stdin` (a file) as standard input, optionally as user
    /// `nobody` (through `setpriv`), its streams going to files.
    final class Started {
        let process = Process()
        let scratch: URL

        init(_ arguments: [String], stdin: String = "", asNobody: Bool = false, environment: [String: String] = [:]) throws {
            scratch = FileManager.default.temporaryDirectory.appendingPathComponent("yui-started-\(UUID().uuidString)")
            try FileManager.default.createDirectory(at: scratch, withIntermediateDirectories: true)
            for name in ["stdin", "stdout", "stderr"] {
                FileManager.default.createFile(
                    atPath: scratch.appendingPathComponent(name).path, contents: name == "stdin" ? Data(stdin.utf8) : Data())
            }
            let tool = try ToolBinary.executable().path
            if asNobody {
                process.executableURL = URL(fileURLWithPath: "/usr/bin/setpriv")
                process.arguments = ["--reuid=65534", "--regid=65534", "--clear-groups", tool] + arguments
            } else {
                process.executableURL = URL(fileURLWithPath: tool)
                process.arguments = arguments
            }
            process.environment = ProcessInfo.processInfo.environment.merging(environment) { $1 }
            process.standardInput = try FileHandle(forReadingFrom: scratch.appendingPathComponent("stdin"))
            process.standardOutput = try FileHandle(forWritingTo: scratch.appendingPathComponent("stdout"))
            process.standardError = try FileHandle(forWritingTo: scratch.appendingPathComponent("stderr"))
            try process.run()
        }

        func finish() throws -> Finished {
            process.waitUntilExit()
            defer { try? FileManager.default.removeItem(at: scratch) }
            func text(_ name: String) throws -> String {
                String(decoding: try Data(contentsOf: scratch.appendingPathComponent(name)), as: UTF8.self)
            }
            // The debug build's dynamic loader warns about the Swift runtime's protected symbols
            // (a -no-pie executable); that line is the loader's, not the tool's.
            let stderr = try text("stderr").split(separator: "\n", omittingEmptySubsequences: false)
                .filter { !$0.hasPrefix("warning: direct reference to protected function") }.joined(separator: "\n")
            return Finished(
                status: process.terminationStatus, signaled: process.terminationReason == .uncaughtSignal, stdout: try text("stdout"),
                stderr: stderr)
        }
    }

    static func run(_ arguments: [String], stdin: String = "", asNobody: Bool = false, environment: [String: String] = [:]) throws -> Finished {
        try Started(arguments, stdin: stdin, asNobody: asNobody, environment: environment).finish()
    }

    /// Names in the index folder that are neither an index nor the lock folder: temporary files.
    func leftovers(_ indexFolder: String) -> [String] {
        ((try? FileManager.default.contentsOfDirectory(atPath: indexFolder)) ?? []).filter { $0.contains(".tmp-") }
    }

    @Test func eightBuildersOfOneIndexAllAnswerAsDirectMode() throws {
        defer { try? FileManager.default.removeItem(at: folder) }
        try #require(FileManager.default.fileExists(atPath: Self.swiftFormat))
        let arguments = ["symbolicate", "--object", Self.swiftFormat]
        let direct = try Self.run(arguments, stdin: Self.addresses)
        #expect(direct.status == 0)
        // The addresses land in code: most are named.
        #expect(direct.stdout.split(separator: "\n").filter { !$0.contains("[no symbol") }.count > 1_000)
        for trial in 0..<2 {
            let indexFolder = path("index-\(trial)")
            let runs = try (0..<8).map { _ in try Started(arguments + ["--index-folder", indexFolder], stdin: Self.addresses) }
            for finished in try runs.map({ try $0.finish() }) {
                #expect(finished.status == 0, "\(finished.stderr)")
                #expect(finished.stdout == direct.stdout)
                #expect(!finished.stderr.contains("changed while it was read"), "\(finished.stderr)")
            }
            let indexes = try FileManager.default.contentsOfDirectory(atPath: indexFolder).filter { $0.hasSuffix(".yuisym") }
            #expect(indexes.count == 1)
            #expect(leftovers(indexFolder).isEmpty)
        }
    }

    /// The store for stack mode: build 7 is a folder holding swift-format, and a payload with
    /// hang stacks of five frames in it.
    func stackModeInputs() throws -> (root: String, payload: String) {
        let root = path("dsyms")
        try FileManager.default.createDirectory(atPath: root + "/7", withIntermediateDirectories: true)
        try FileManager.default.createSymbolicLink(atPath: root + "/7/swift-format", withDestinationPath: Self.swiftFormat)
        let uuid = try #require(try BuildSymbolizer(debugFiles: [Self.swiftFormat]).debugFiles.first?.uuids.first)
        func frame(_ offset: Int, _ sub: [[String: Any]]) -> [String: Any] {
            [
                "binaryUUID": uuid, "offsetIntoBinaryTextSegment": offset, "address": 0x1_0400_0000 + offset, "binaryName": "swift-format",
                "sampleCount": 1, "subFrames": sub,
            ]
        }
        let hangs = (0..<40).map { stackNumber -> [String: Any] in
            var frames: [[String: Any]] = []
            for depth in 0..<5 { frames = [frame(0x20_0000 + (stackNumber * 5 + depth) * 0x2f1d, frames)] }
            return [
                "version": "1.0.0",
                "diagnosticMetaData": [
                    "appBuildVersion": "7", "appVersion": "1.0", "osVersion": "iPhone OS 18.2 (22C152)", "deviceType": "iPhone17,2",
                    "platformArchitecture": "arm64e", "bundleIdentifier": "app.example", "hangDuration": "\(stackNumber + 1) sec",
                ],
                "callStackTree": [
                    "callStackPerThread": true, "callStacks": [["threadAttributed": true, "callStackRootFrames": frames]],
                ],
            ]
        }
        let payload: [String: Any] = [
            "timeStampBegin": "2026-11-18 09:00:00", "timeStampEnd": "2026-11-19 09:00:00", "hangDiagnostics": hangs,
        ]
        let payloadPath = path("payload.json")
        try JSONSerialization.data(withJSONObject: payload).write(to: URL(fileURLWithPath: payloadPath))
        return (root, payloadPath)
    }

    @Test func sixteenStackModeRunsOnOneFreshFolderAllAnswerAsDirectMode() throws {
        defer { try? FileManager.default.removeItem(at: folder) }
        try #require(FileManager.default.fileExists(atPath: Self.swiftFormat))
        let (root, payload) = try stackModeInputs()
        let direct = try Self.run(["symbolicate", "--dsyms", root, payload])
        #expect(direct.status == 0, "\(direct.stderr)")
        // Most of the 200 frames are named, with a file and line.
        #expect(direct.stdout.split(separator: "\n").filter { $0.contains(" + ") && $0.hasSuffix(")") }.count > 150)
        let indexFolder = path("index")
        let runs = try (0..<16).map { _ in try Started(["symbolicate", "--dsyms", root, "--index-folder", indexFolder, payload]) }
        for finished in try runs.map({ try $0.finish() }) {
            #expect(finished.status == 0, "\(finished.stderr)")
            #expect(finished.stdout == direct.stdout)
        }
        // top over the same stacks, with and without the index, ranks the same.
        let topDirect = try Self.run(["top", "--dsyms", root, payload])
        let topIndexed = try Self.run(["top", "--dsyms", root, "--index-folder", indexFolder, payload])
        #expect(topDirect.status == 0 && topIndexed.status == 0, "\(topIndexed.stderr)")
        #expect(topIndexed.stdout == topDirect.stdout)
        #expect(leftovers(indexFolder).isEmpty)
    }

    @Test func aFolderTheRunCannotWriteMeansDirectAnswersAndOneWarning() throws {
        defer { try? FileManager.default.removeItem(at: folder) }
        try #require(FileManager.default.fileExists(atPath: Self.swiftFormat))
        // Run as nobody: root writes anywhere, whatever the mode bits say.
        try FileManager.default.setAttributes([.posixPermissions: 0o755], ofItemAtPath: folder.path)
        let (root, payload) = try stackModeInputs()
        let readOnly = path("read-only")
        try FileManager.default.createDirectory(atPath: readOnly, withIntermediateDirectories: true)
        for indexFolder in [readOnly, readOnly + "/not-yet"] {
            let arguments = ["symbolicate", "--object", Self.swiftFormat]
            let direct = try Self.run(arguments, stdin: Self.addresses, asNobody: true)
            let indexed = try Self.run(arguments + ["--index-folder", indexFolder], stdin: Self.addresses, asNobody: true)
            #expect(indexed.status == 0, "\(indexed.stderr)")
            #expect(indexed.stdout == direct.stdout)
            let warnings = indexed.stderr.split(separator: "\n").filter { $0.hasPrefix("warning: ") }
            #expect(warnings.count == 1, "\(indexed.stderr)")
            #expect(warnings.first?.contains(indexFolder) ?? false)
            #expect(warnings.first?.contains("answering from the debug files directly") ?? false)

            let stacksDirect = try Self.run(["symbolicate", "--dsyms", root, payload], asNobody: true)
            let stacksIndexed = try Self.run(["symbolicate", "--dsyms", root, "--index-folder", indexFolder, payload], asNobody: true)
            #expect(stacksIndexed.status == 0, "\(stacksIndexed.stderr)")
            #expect(stacksIndexed.stdout == stacksDirect.stdout)
            #expect(!stacksIndexed.stdout.contains("swift-format+0x"))
            #expect(stacksIndexed.stderr.split(separator: "\n").filter { $0.hasPrefix("warning: ") }.count == 1, "\(stacksIndexed.stderr)")
        }
        #expect(try FileManager.default.contentsOfDirectory(atPath: readOnly).isEmpty)
    }

    @Test func aWaitBoundedByTheLockMeansDirectAnswers() throws {
        defer { try? FileManager.default.removeItem(at: folder) }
        let object = try SymbolicateFixtures.path("builds/130/YuiApp.app.dSYM/Contents/Resources/DWARF/YuiApp")
        let indexFolder = path("index")
        // The lock another run would hold while it builds this index.
        var status = stat()
        #expect(stat(object, &status) == 0)
        let name = "4C4C4C4C-5555-3144-A1B2-000000000130-\(status.st_size)-\(status.st_mtim.tv_sec).\(status.st_mtim.tv_nsec).yuisym"
        try FileManager.default.createDirectory(atPath: indexFolder + "/.locks", withIntermediateDirectories: true)
        let lock = open(indexFolder + "/.locks/" + name + ".lock", O_RDWR | O_CREAT, 0o666)
        #expect(lock >= 0)
        #expect(flock(lock, LOCK_EX) == 0)
        let arguments = ["symbolicate", "--object", object, "0x100004038", "0x1000040b0"]
        let direct = try Self.run(arguments)
        let waited = try Self.run(arguments + ["--index-folder", indexFolder], environment: ["YUI_INDEX_LOCK_WAIT": "0.5"])
        #expect(waited.status == 0)
        #expect(waited.stdout == direct.stdout)
        #expect(waited.stderr.contains("another run has held this lock"), "\(waited.stderr)")
        #expect(!FileManager.default.fileExists(atPath: indexFolder + "/" + name))
        close(lock)
        // The holder is gone (its lock with it): the next run builds the index.
        let built = try Self.run(arguments + ["--index-folder", indexFolder], environment: ["YUI_INDEX_LOCK_WAIT": "0.5"])
        #expect(built.status == 0 && built.stdout == direct.stdout)
        #expect(built.stderr.isEmpty, "\(built.stderr)")
        #expect(FileManager.default.fileExists(atPath: indexFolder + "/" + name))
    }

    @Test func sigtermWhileTheIndexIsWrittenLeavesNoTemporaryFile() throws {
        defer { try? FileManager.default.removeItem(at: folder) }
        try #require(FileManager.default.fileExists(atPath: Self.swiftFormat))
        let indexFolder = path("index")
        let run = try Started(["symbolicate", "--object", Self.swiftFormat, "--index-folder", indexFolder, "0x200000"])
        // The temporary file appears once the index is computed and its bytes go out.
        let deadline = Date().addingTimeInterval(120)
        while leftovers(indexFolder).isEmpty, run.process.isRunning, Date() < deadline { usleep(2_000) }
        let seen = leftovers(indexFolder)
        kill(run.process.processIdentifier, SIGTERM)
        let finished = try run.finish()
        #expect(seen.count == 1, "the run ended before its temporary file was seen")
        #expect(finished.signaled && finished.status == SIGTERM)
        #expect(leftovers(indexFolder).isEmpty)
        #expect(try FileManager.default.contentsOfDirectory(atPath: indexFolder).filter { $0.hasSuffix(".yuisym") }.isEmpty)
        // The next run builds it whole.
        let next = try Self.run(["symbolicate", "--object", Self.swiftFormat, "--index-folder", indexFolder, "0x200000"])
        #expect(next.status == 0)
        #expect(try FileManager.default.contentsOfDirectory(atPath: indexFolder).filter { $0.hasSuffix(".yuisym") }.count == 1)
    }

    /// This machine's name as temporary index names carry it (`SymbolIndexCache.hostName`).
    static var hostName: String {
        var buffer = [CChar](repeating: 0, count: 256)
        _ = gethostname(&buffer, 255)
        let name = String(decoding: buffer.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
        return String(name.map { $0.isASCII && ($0.isLetter || $0.isNumber || $0 == ".") ? $0 : "_" })
    }

    @Test func temporaryFilesOfRunsThatAreGoneAreRemovedByTheNextRun() throws {
        defer { try? FileManager.default.removeItem(at: folder) }
        let object = try SymbolicateFixtures.path("builds/130/YuiApp.app.dSYM/Contents/Resources/DWARF/YuiApp")
        let indexFolder = path("index")
        try FileManager.default.createDirectory(atPath: indexFolder, withIntermediateDirectories: true)
        // A PID that no longer runs: a finished child's.
        let child = Process()
        child.executableURL = URL(fileURLWithPath: "/bin/true")
        try child.run()
        child.waitUntilExit()
        let dead = child.processIdentifier
        let host = Self.hostName
        let live = getpid()
        let names = [
            "A.yuisym.tmp-\(host)-\(dead)-1": true,  // this machine, owner gone
            "B.yuisym.tmp-\(dead)-2": true,  // an earlier version's name, owner gone
            "C.yuisym.tmp-\(host)-\(live)-3": false,  // owner still runs
            "D.yuisym.tmp-other-host-\(dead)-4": false,  // another machine, recent: maybe still writing
            "E.yuisym.tmp-other-host-\(dead)-5": true,  // another machine, two hours old
            "F.yuisym.tmp-notes": false,  // not a name of ours
        ]
        for name in names.keys { FileManager.default.createFile(atPath: indexFolder + "/" + name, contents: Data("x".utf8)) }
        try FileManager.default.setAttributes(
            [.modificationDate: Date(timeIntervalSinceNow: -7_200)], ofItemAtPath: indexFolder + "/E.yuisym.tmp-other-host-\(dead)-5")
        let run = try Self.run(["symbolicate", "--object", object, "--index-folder", indexFolder, "0x100004038"])
        #expect(run.status == 0, "\(run.stderr)")
        let remaining = Set(try FileManager.default.contentsOfDirectory(atPath: indexFolder))
        for (name, removed) in names { #expect(remaining.contains(name) != removed, "\(name)") }
    }

    /// A 3,000-deep chain of always_inline calls (dsyms-fixtures/other/yui-deep-inline): the index
    /// gives all 3,001 frames, as direct mode and llvm-symbolizer do.
    @Test func indexAnswersEveryInlineDepth() throws {
        defer { try? FileManager.default.removeItem(at: folder) }
        let object = try SymbolicateFixtures.path("other/yui-deep-inline")
        let expectedLines = try String(contentsOfFile: try SymbolicateFixtures.path("expected/yui-deep-inline.json"), encoding: .utf8)
            .split(separator: "\n")
        let addresses = try String(contentsOfFile: try SymbolicateFixtures.path("expected/yui-deep-inline.addresses"), encoding: .utf8)
            .split(separator: "\n").map(String.init)
        let indexFolder = path("index")
        for (address, line) in zip(addresses, expectedLines) {
            let expected = try #require(try JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any])
            let symbols = try #require(expected["Symbol"] as? [[String: Any]]).compactMap { $0["FunctionName"] as? String }
            let direct = try Self.run(["symbolicate", "--object", object, "--json", address])
            let building = try Self.run(["symbolicate", "--object", object, "--json", "--index-folder", indexFolder, address])
            let reading = try Self.run(["symbolicate", "--object", object, "--json", "--index-folder", indexFolder, address])
            #expect(direct.status == 0 && building.status == 0 && reading.status == 0)
            #expect(building.stdout == direct.stdout)
            #expect(reading.stdout == direct.stdout)
            let answer = try #require(try JSONSerialization.jsonObject(with: Data(direct.stdout.utf8)) as? [[String: Any]])
            let frames = try #require(answer.first?["frames"] as? [[String: Any]])
            #expect(frames.count == symbols.count)
            #expect(frames.compactMap { $0["function"] as? String } == symbols)
            let text = try Self.run(["symbolicate", "--object", object, "--index-folder", indexFolder, address])
            #expect(text.stdout.split(separator: "\n").count == symbols.count)
        }
        #expect(expectedLines.count == 2)
        #expect(
            try #require(try JSONSerialization.jsonObject(with: Data(expectedLines[0].utf8)) as? [String: Any])["Symbol"].map {
                ($0 as? [Any])?.count
            } == 3_001)
    }
}
