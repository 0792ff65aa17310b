import Foundation
import PayloadDecode
import TestSupport
import Testing

@testable import PayloadTool

/// `symbolicate` over rows gathers the frames of every row (of every build) and looks up each
/// debug file's distinct addresses in one batch, then writes the rows in input order. What it
/// writes must be what each row gives alone: the rows of builds 130 and 131 interleaved in one file,
/// against each row symbolicated in a run of its own.
@Suite struct StackBatchTests {
    /// The hang and crash rows of the `top` fixtures (builds 130 and 131), as JSON Lines, the two
    /// builds' rows taking turns.
    static func interleavedRows() throws -> [String] {
        var byBuild: [Int: [String]] = [:]
        for name in ["build130-diagnostics.jsonl", "build131-diagnostics.json", "build131-later.json"] {
            let run = CommandRun(["rows", "--format", "jsonl", Repository.testFixtures.appendingPathComponent("top/" + name).path])
            #expect(run.status == 0, "\(run.stderr)")
            for line in run.stdout.split(separator: "\n") where line.contains(#""stack":[{"#) {
                let build = line.contains(#""app_build":130"#) ? 130 : 131
                byBuild[build, default: []].append(String(line))
            }
        }
        let first = byBuild[130] ?? []
        let second = byBuild[131] ?? []
        try #require(first.count >= 3 && second.count >= 3, "\(first.count) and \(second.count) rows with stacks")
        var mixed: [String] = []
        for index in 0..<max(first.count, second.count) {
            if index < first.count { mixed.append(first[index]) }
            if index < second.count { mixed.append(second[index]) }
        }
        return mixed
    }

    @Test(arguments: [[String](), ["--json"]])
    func oneBatchWritesWhatEachRowGivesAlone(_ format: [String]) throws {
        let rows = try Self.interleavedRows()
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("yui-batch-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        let all = folder.appendingPathComponent("all.jsonl").path
        try Data((rows.joined(separator: "\n") + "\n").utf8).write(to: URL(fileURLWithPath: all))
        let dsyms = try SymbolicateFixtures.path("builds")

        let together = CommandRun(["symbolicate", "--dsyms", dsyms] + format + [all])
        #expect(together.status == 0, "\(together.stderr)")
        var alone: [String] = []
        for (index, row) in rows.enumerated() {
            let path = folder.appendingPathComponent("row-\(index).jsonl").path
            try Data((row + "\n").utf8).write(to: URL(fileURLWithPath: path))
            let run = CommandRun(["symbolicate", "--dsyms", dsyms] + format + [path])
            #expect(run.status == 0, "\(run.stderr)")
            alone.append(run.stdout)
        }
        if format.isEmpty {
            // Stacks are separated by a blank line.
            #expect(together.stdout == alone.joined(separator: "\n"))
            #expect(together.stdout.contains(" (YuiLines.swift:"), "no app frame named: \(together.stdout.prefix(400))")
        } else {
            let parsed = try #require(try JSONSerialization.jsonObject(with: Data(together.stdout.utf8)) as? [Any])
            let each = try alone.map { try #require(try JSONSerialization.jsonObject(with: Data($0.utf8)) as? [Any]) }
            #expect(parsed.count == rows.count)
            #expect(each.allSatisfy { $0.count == 1 })
            for (index, stack) in parsed.enumerated() {
                #expect(NSDictionary(dictionary: stack as! [String: Any]).isEqual(to: each[index][0] as! [String: Any]), "row \(index)")
            }
        }
    }

    /// More rows than one batch holds, the same stacks over and over (a month of payloads): later
    /// batches take the stacks earlier ones answered (`seenStacks`), and write what the first wrote.
    @Test func laterBatchesWriteWhatTheFirstWrote() throws {
        let rows = try Self.interleavedRows()
        let count = StackRun.batchRows + 2_000
        var lines: [String] = []
        for index in 0..<count {
            let row = rows[index % rows.count]
            let key = String(format: "%08x-0000-4000-8000-%012x", index, index)
            lines.append(row.replacing(/"row_key":"[0-9a-f-]+"/, with: "\"row_key\":\"\(key)\""))
        }
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("yui-batches-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        let file = folder.appendingPathComponent("many.jsonl").path
        try Data((lines.joined(separator: "\n") + "\n").utf8).write(to: URL(fileURLWithPath: file))
        let dsyms = try SymbolicateFixtures.path("builds")

        let run = CommandRun(["symbolicate", "--dsyms", dsyms, file])
        #expect(run.status == 0, "\(run.stderr)")
        // Each stack without its header line (the row key differs), against the same row's in the first batch.
        let stacks = run.stdout.components(separatedBy: "\n\n").map { $0.split(separator: "\n").dropFirst().joined(separator: "\n") }
        #expect(stacks.count == count)
        for index in stride(from: StackRun.batchRows, to: count, by: 97) {
            #expect(stacks[index] == stacks[index % rows.count], "row \(index)")
        }
        // `top` over them ranks as over one copy, every count multiplied.
        let one = folder.appendingPathComponent("one.jsonl").path
        try Data((rows.joined(separator: "\n") + "\n").utf8).write(to: URL(fileURLWithPath: one))
        let signatures = { (path: String) throws -> [String: Int] in
            let top = CommandRun(["top", "--json", "--count", "100", "--dsyms", dsyms, path])
            let document = try #require(try JSONSerialization.jsonObject(with: Data(top.stdout.utf8)) as? [String: Any])
            var counts: [String: Int] = [:]
            for build in document["builds"] as? [[String: Any]] ?? [] {
                for signature in build["signatures"] as? [[String: Any]] ?? [] {
                    counts["\(build["build"] ?? "") \(signature["kind"] ?? "") \(signature["signature"] ?? "")", default: 0] +=
                        signature["count"] as? Int ?? 0
                }
            }
            return counts
        }
        let many = try signatures(file)
        let single = try signatures(one)
        #expect(Set(many.keys) == Set(single.keys))
        let ranked = lines.filter { $0.contains(#""name":"hang""#) || $0.contains(#""name":"crash""#) }.count
        #expect(many.values.reduce(0, +) == ranked)
    }

    /// Stacks are kept and looked up by their frames' offsets (`StackKey`): two stacks at the same
    /// offsets of different images must still be told apart, in one batch and in later batches
    /// that take the first batch's stacks.
    @Test func stacksAtTheSameOffsetsOfAnotherImageAreNotTakenForEachOther() throws {
        let rows = try Self.interleavedRows()
        let original = try #require(rows.first { $0.contains(#""app_build":131"#) && $0.contains(#""image":"YuiApp""#) })
        let unknownUUID = "00000000-0000-4000-8000-0000000000AB"
        let other = original.replacing(/"uuid":"[0-9A-F-]+"/, with: "\"uuid\":\"\(unknownUUID)\"")
        try #require(other != original)
        let count = StackRun.batchRows + 100
        var lines: [String] = []
        for index in 0..<count {
            let key = String(format: "%08x-0000-4000-8000-%012x", index, index)
            lines.append((index % 2 == 0 ? original : other).replacing(/"row_key":"[0-9a-f-]+"/, with: "\"row_key\":\"\(key)\""))
        }
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("yui-same-offsets-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        let file = folder.appendingPathComponent("rows.jsonl").path
        try Data((lines.joined(separator: "\n") + "\n").utf8).write(to: URL(fileURLWithPath: file))
        let dsyms = try SymbolicateFixtures.path("builds")

        let run = CommandRun(["symbolicate", "--dsyms", dsyms, file])
        #expect(run.status == 0, "\(run.stderr)")
        let stacks = run.stdout.components(separatedBy: "\n\n").map { $0.split(separator: "\n").dropFirst().joined(separator: "\n") }
        #expect(stacks.count == count)
        #expect(stacks[0].contains(" (YuiLines.swift:"), "\(stacks[0])")
        #expect(stacks[1].contains("[no debug file for UUID \(unknownUUID)]"), "\(stacks[1])")
        #expect(!stacks[1].contains("(YuiLines.swift:"), "\(stacks[1])")
        // In the first batch and in the second, each row as its own kind wrote it.
        for index in [2, 3, StackRun.batchRows, StackRun.batchRows + 1, count - 2, count - 1] {
            #expect(stacks[index] == stacks[index % 2], "row \(index)")
        }
        #expect(run.stderr.components(separatedBy: "no debug file for UUID \(unknownUUID)").count == 2, "\(run.stderr)")

        // `top` ranks them as two stacks: the named one and the one left as offsets.
        let top = CommandRun(["top", "--json", "--count", "10", "--dsyms", dsyms, file])
        #expect(top.status == 0, "\(top.stderr)")
        let document = try #require(try JSONSerialization.jsonObject(with: Data(top.stdout.utf8)) as? [String: Any])
        let signatures = (document["builds"] as? [[String: Any]] ?? []).flatMap { $0["signatures"] as? [[String: Any]] ?? [] }
        #expect(signatures.count == 2, "\(signatures)")
        #expect(Set(signatures.compactMap { $0["count"] as? Int }) == [count / 2])
    }

    /// `top` keeps one string per UUID across its batches. The frames keep their UUIDs' text, and
    /// a UUID that came as strings of different storage (two threads' readers) comes out as one
    /// string, with more UUIDs than the strings recognised by storage (16) in turn.
    @Test func keptStacksShareOneStringPerUUID() {
        func storage(_ text: String) -> UnsafeRawPointer? {
            text.utf8.withContiguousStorageIfAvailable { UnsafeRawPointer($0.baseAddress) } ?? nil
        }
        var uuids = UUIDStrings()
        let texts = (0..<24).map { String(format: "%08X-0000-4000-8000-%012X", $0, $0 * 31) }
        var kept: [String: UnsafeRawPointer] = [:]
        for round in 0..<6 {
            // New strings of the same text every other round, as another reader makes them.
            let made = round % 2 == 0 ? texts.map { String(decoding: Array($0.utf8), as: UTF8.self) } : texts
            for first in stride(from: 0, to: 24, by: 3) {
                let stack = (0..<5).map { StackFrame(image: "App", uuid: made[(first + $0 * 7) % 24], offset: UInt64($0)) }
                let shared = uuids.sharing(stack)
                #expect(shared == stack)
                for frame in shared {
                    let text = frame.uuid!
                    let start = storage(text)
                    #expect(start != nil)
                    if let before = kept[text] { #expect(before == start, "\(text) kept as two strings") } else { kept[text] = start }
                }
            }
        }
        #expect(kept.count == 24)
    }
}
