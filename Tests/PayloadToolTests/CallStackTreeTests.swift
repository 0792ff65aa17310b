import Foundation
import TestSupport
import Testing

@testable import PayloadDecode

/// Bare call-stack trees, `MXCallStackTree.jsonRepresentation()` as SDKs store it, held to
/// Sentry's answers (Tests/Fixtures/metrickit-trees/PROVENANCE.md; docs/command-line.md, "Inputs").
@Suite struct CallStackTreeInputs {
    static let folder = Repository.testFixtures.appendingPathComponent("metrickit-trees")
    static let dsyms = Repository.root.appendingPathComponent("dsyms-fixtures/builds").path
    static func path(_ name: String) -> String { folder.appendingPathComponent(name + ".json").path }

    static func paths(_ name: String, allSamples: Bool) throws -> [CallStackTreePath] {
        let bytes = try Array(Data(contentsOf: URL(fileURLWithPath: path(name))))
        // The document lives in the parser's buffers: both are kept until the paths are read.
        let parser = JSONParser(maxDepth: 512)
        return try withExtendedLifetime(parser) {
            try bytes.withUnsafeBytes { bytes in
                let document = try parser.parse(bytes)
                var warnings: [(key: String, message: String)] = []
                return CallStackTrees.paths(document, JSONDocument.root, allSamples: allSamples, warnings: &warnings)
            }
        }
    }

    /// Sentry's most common stack of the flame graph: addresses 0, 1, 3 (3 outweighs 2).
    @Test func theHeaviestPathIsSentrysMostCommonStack() throws {
        let paths = try Self.paths("per-thread-flamegraph", allSamples: false)
        #expect(paths.map(\.addresses) == [[0, 1, 3]])
        #expect(paths.first?.weight == 3)
    }

    /// Every sample path: the two roots (7 and 2 samples) end 7 and 2 paths, weighing their counts.
    @Test func everySamplePathWeighsItsSamples() throws {
        let paths = try Self.paths("not-per-thread", allSamples: true)
        let byRoot = Dictionary(grouping: paths) { "\($0.callStack) \($0.root)" }
        #expect(byRoot.count == 2)
        let sorted = byRoot.values.sorted { $0.count > $1.count }
        #expect(sorted.map(\.count) == [7, 2])
        #expect(sorted.map { $0.reduce(0) { $0 + $1.weight } } == [7, 2])
        // The command: as many stacks, their folded counts summing to the samples.
        let json = ToolRun.run(["symbolicate", "--json", "--all-samples", "--build", "130", "--dsyms", Self.dsyms, Self.path("not-per-thread")])
        let stacks = try #require(try JSONSerialization.jsonObject(with: Data(json.stdout.utf8)) as? [[String: Any]])
        #expect(stacks.count == 9)
        let folded = ToolRun.run(["symbolicate", "--folded", "--all-samples", "--build", "130", "--dsyms", Self.dsyms, Self.path("not-per-thread")])
        let counts = folded.stdout.split(separator: "\n").compactMap { $0.split(separator: " ").last.flatMap { Int($0) } }
        #expect(counts.reduce(0, +) == 9, "\(folded.stdout)")
    }

    @Test func aRealTreeGivesItsSixteenCallStacks() throws {
        #expect(try Self.paths("tree-real", allSamples: false).count == 16)
        let run = ToolRun.run(["symbolicate", "--build", "130", "--dsyms", Self.dsyms, Self.path("tree-real")])
        #expect(run.stdout.split(separator: "\n").filter { $0.hasPrefix("hang ") || $0.hasPrefix("crash ") }.count == 16)
        let top = ToolRun.run(["top", "--build", "130", "--dsyms", Self.dsyms, Self.path("tree-real")])
        #expect(top.status == 0 && top.stdout.hasPrefix("build 130\n  1. "), "\(top.stdout) \(top.stderr)")
    }

    /// Without a build, a tree is refused by every command, saying what to run instead; the
    /// garbage tree is refused as the JSON it is not. Neither ends by a signal.
    @Test func withoutABuildATreeIsRefusedClearly() throws {
        for command in [["rows"], ["symbolicate"], ["top"]] {
            let run = try ToolBinary.run(command + [Self.path("tree-real")])
            #expect(run.status == 1, "\(command)")
            #expect(
                run.stderr.contains(
                    "a bare call-stack tree (MXCallStackTree.jsonRepresentation(): callStacks, no metaData): it carries no build, version or device, so it makes no row; name its build: payload-tool symbolicate --build B FILE"
                ), "\(run.stderr)")
        }
        for command in [["rows"], ["symbolicate", "--build", "130"], ["top", "--build", "130"]] {
            let run = try ToolBinary.run(command + [Self.path("tree-garbage")])
            #expect(run.status == 1)
            #expect(run.stderr.contains("\(Self.path("tree-garbage")): line 24, column 1: invalid JSON"), "\(run.stderr)")
        }
    }
}
