import Foundation
import TestSupport
import Testing

@testable import PayloadTool

/// The debug-file fixtures for PayloadTool's tests (see `dsyms-fixtures/manifest.json`).
enum SymbolicateFixtures {
    static var root: URL { Repository.dsymsFixtures }

    struct Missing: Error, CustomStringConvertible { var description: String }

    static func path(_ relative: String) throws -> String {
        let url = root.appendingPathComponent(relative)
        guard FileManager.default.fileExists(atPath: url.path) else {
            throw Missing(description: "fixture \(relative) not found at \(url.path)")
        }
        return url.path
    }

    struct Slice: Decodable {
        var uuid: String
        var arch: String
        var expected: String
    }

    struct Entry: Decodable {
        var name: String
        var path: String
        var format: String
        var slices: [Slice]
    }

    /// (fixture path, slice) for every slice of every manifest entry.
    static func slices() -> [(path: String, format: String, slice: Slice)] {
        guard let data = try? Data(contentsOf: root.appendingPathComponent("manifest.json")),
            let entries = try? JSONDecoder().decode([Entry].self, from: data)
        else { return [] }
        return entries.flatMap { entry in entry.slices.map { (entry.path, entry.format, $0) } }
    }
}

/// Runs a command in-process and collects its streams.
struct CommandRun {
    var status: Int32
    var stdout: String
    var stderr: String

    init(_ arguments: [String], stdin: String = "") {
        let input = FileManager.default.temporaryDirectory.appendingPathComponent("yui-sym-stdin-\(UUID().uuidString)")
        FileManager.default.createFile(atPath: input.path, contents: Data(stdin.utf8))
        defer { try? FileManager.default.removeItem(at: input) }
        (status, stdout, stderr) = ToolRun.run(arguments, stdin: FileHandle(forReadingAtPath: input.path)!)
    }
}

@Suite struct SymbolicateFixtureTests {
    /// One symbol of llvm-symbolizer's JSON output.
    struct Reference: Decodable {
        struct Symbol: Decodable {
            var FunctionName: String
            var FileName: String
            var Line: Int
        }
        var Address: String
        var Symbol: [Symbol]
    }

    struct Answer: Decodable {
        struct Frame: Decodable {
            var file: String?
            var function: String
            var inlined: Bool
            var line: Int?
            var linkage_name: String?
        }
        var address: String
        var frames: [Frame]
        var status: String
    }

    @Test func manifestListsFixtures() throws {
        _ = try SymbolicateFixtures.path("manifest.json")
        #expect(SymbolicateFixtures.slices().count >= 5)
    }

    /// Every function start and several addresses inside each function: function linkage name,
    /// file, line and the whole inline chain agree with llvm-symbolizer's recorded answers.
    @Test(arguments: SymbolicateFixtures.slices().map { "\($0.slice.expected)|\($0.path)|\($0.format)|\($0.slice.uuid)" }, [false, true])
    func agreesWithLlvmSymbolizer(_ key: String, indexed: Bool) throws {
        let parts = key.split(separator: "|").map(String.init)
        let (name, relativePath, format, uuid) = (parts[0], parts[1], parts[2], parts[3])
        let addresses = try String(contentsOfFile: try SymbolicateFixtures.path("expected/\(name).addresses"), encoding: .utf8)
            .split(separator: "\n").map { $0.trimmingCharacters(in: .whitespaces) }.filter { !$0.isEmpty }
        let referenceLines = try String(contentsOfFile: try SymbolicateFixtures.path("expected/\(name).json"), encoding: .utf8)
            .split(separator: "\n").filter { !$0.isEmpty }
        let references = try referenceLines.map { try JSONDecoder().decode(Reference.self, from: Data($0.utf8)) }
        try #require(references.count == addresses.count)
        var arguments = ["symbolicate", "--object", try SymbolicateFixtures.path(relativePath), "--json"]
        if format == "fat" { arguments += ["--uuid", uuid] }
        // The same answers from the on-disk index (built by the first run, read by the second).
        let indexFolder = FileManager.default.temporaryDirectory.appendingPathComponent("yui-sym-index-\(UUID().uuidString)").path
        defer { try? FileManager.default.removeItem(atPath: indexFolder) }
        if indexed {
            arguments += ["--index-folder", indexFolder]
            #expect(CommandRun(arguments + addresses).status == 0)
            #expect(try FileManager.default.contentsOfDirectory(atPath: indexFolder).filter { $0.hasSuffix(".yuisym") }.count == 1)
        }
        let run = CommandRun(arguments + addresses)
        try #require(run.status == 0, "\(run.stderr)")
        let answers = try JSONDecoder().decode([Answer].self, from: Data(run.stdout.utf8))
        try #require(answers.count == references.count)
        for (answer, reference) in zip(answers, references) {
            let expected = reference.Symbol.map { "\($0.FunctionName) \($0.FileName):\($0.Line)" }
            // llvm-symbolizer's JSON gives an empty file name where it knows none.
            let got = answer.frames.map { "\($0.linkage_name ?? $0.function) \($0.file ?? ""):\($0.line ?? 0)" }
            #expect(got == expected, "\(name) at \(reference.Address)")
            #expect(answer.frames.dropLast().allSatisfy(\.inlined) && answer.frames.last?.inlined != true)
        }
    }
}

@Suite struct SymbolicateCommandTests {
    var app: String { get throws { try SymbolicateFixtures.path("builds/130/YuiApp.app.dSYM") } }

    @Test func helpPrintsTheLayout() {
        let run = CommandRun(["symbolicate", "--help"])
        #expect(run.status == 0)
        for heading in ["OVERVIEW:", "USAGE:", "ARGUMENTS:", "OPTIONS:", "--object", "--folded"] {
            #expect(run.stdout.contains(heading))
        }
    }

    @Test func usageErrorsExit64() {
        #expect(CommandRun(["symbolicate"]).status == 64)
        #expect(CommandRun(["symbolicate", "--uuid", "X", "a.json"]).status == 64)
        #expect(CommandRun(["symbolicate", "--object", "x", "--json", "--folded"]).status == 64)
        #expect(CommandRun(["symbolicate", "--bogus"]).stderr.contains("Unknown option '--bogus'"))
    }

    @Test func addressesOnStdinAnswerInOrderInCrashReportLayout() throws {
        let run = CommandRun(["symbolicate", "--object", try app], stdin: "0x100004058\n\n0x1000040ac\n")
        #expect(run.status == 0)
        let lines = run.stdout.split(separator: "\n")
        #expect(lines.first == "0   YuiApp                  0x0000000100004058 ThreadView.refresh + 0 (ThreadView.swift:22)")
        // The second address lies in three inlined calls inside YuiLines.parse: four lines, index 1.
        #expect(lines.dropFirst().map { $0.prefix(4) } == ["1   ", "1   ", "1   ", "1   "])
        #expect(lines.dropFirst().dropLast().allSatisfy { $0.hasSuffix("[inlined]") })
        #expect(lines.last?.hasSuffix("0x00000001000040ac YuiLines.parse + 8 (YuiLines.swift:31)") == true)
    }

    @Test func repeatedAddressesAreAnsweredEachTimeWithTheirOwnPositionAndSpelling() throws {
        // 0x100004058 spelled in hex and in decimal, 1,001 times, then one inlined address: each
        // distinct address is looked up once, but every line keeps its own position and input.
        let spellings = ["0x100004058", "4294983768"]
        let input = (0..<1_001).map { spellings[$0 % 2] } + ["0x100004078"]
        let run = CommandRun(["symbolicate", "--object", try app], stdin: input.joined(separator: "\n") + "\n")
        #expect(run.status == 0)
        let lines = run.stdout.split(separator: "\n")
        #expect(lines.count == 1_001 + 2)
        let answer = "YuiApp                  0x0000000100004058 ThreadView.refresh + 0 (ThreadView.swift:22)"
        #expect(lines[0] == "0   " + answer)
        #expect(lines[999] == "999 " + answer)
        #expect(lines[1_000] == "1000 " + answer)
        #expect(lines[1_001].hasPrefix("1001 YuiApp") && lines[1_001].hasSuffix("[inlined]"))
        #expect(lines[1_002].hasPrefix("1001 YuiApp") && lines[1_002].contains("ThreadView.refresh + "))

        let json = CommandRun(["symbolicate", "--object", try app, "--json"], stdin: input.joined(separator: "\n") + "\n")
        struct Answer: Decodable {
            var input: String
            var address: String?
            var status: String
            var frames: [[String: AnyCodable]]
        }
        struct AnyCodable: Decodable {
            init(from decoder: Decoder) throws {}
        }
        let answers = try JSONDecoder().decode([Answer].self, from: Data(json.stdout.utf8))
        #expect(answers.map(\.input) == input)
        #expect(answers.dropLast().allSatisfy { $0.address == "0x100004058" && $0.status == "symbolicated" && $0.frames.count == 1 })
        #expect(answers.last?.frames.count == 2)
    }

    @Test func inlinedFramesAreMarked() throws {
        let run = CommandRun(["symbolicate", "--object", try app, "0x100004078"])
        let lines = run.stdout.split(separator: "\n")
        #expect(lines.count == 2)
        #expect(lines.first?.hasSuffix("[inlined]") == true)
        #expect(lines.first?.contains(" plus ") == true)
        #expect(lines.last?.contains("ThreadView.refresh + ") == true)
    }

    @Test func foldedGivesOuterFirst() throws {
        let run = CommandRun(["symbolicate", "--object", try app, "--folded", "0x100004078"])
        #expect(run.stdout == "ThreadView.refresh;plus 1\n")
    }

    @Test func badAddressIsReportedAndTheRestAnswered() throws {
        let run = CommandRun(["symbolicate", "--object", try app, "0x100004058", "banana", "0x100004078"])
        #expect(run.status == 1)
        #expect(run.stderr.contains("argument 2: 'banana' is not an address"))
        #expect(run.stdout.split(separator: "\n").count == 4)
    }

    @Test func missingObjectIsAnErrorNamingIt() {
        let run = CommandRun(["symbolicate", "--object", "/nonexistent/YuiApp.dSYM", "0x1"])
        #expect(run.status == 1)
        #expect(run.stderr.contains("/nonexistent/YuiApp.dSYM"))
    }
}
