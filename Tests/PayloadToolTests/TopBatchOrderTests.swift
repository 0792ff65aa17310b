import Foundation
import PayloadDecode
import TestSupport
import Testing

@testable import PayloadTool

/// `top` tallies a row whose stack an earlier batch symbolicated at once, skipping the batch,
/// unless rows wait in the batch before it. Either way the tally must be what one pass in file
/// order gives: each signature's row keys in file order, its count, weight and maximum, and as its
/// heaviest row the first of those with the maximum.
@Suite struct TopBatchOrderTests {
    /// A signature as `top --json` names it.
    struct SignatureKey: Hashable, CustomStringConvertible {
        var build: Int
        var kind: String
        var text: String
        var description: String { "\(build) \(kind) \(text)" }
    }

    /// What one pass in file order makes of a signature's rows.
    struct Expected {
        var rowKeys: [String] = []
        var weight = 0.0
        var max = -1.0
        var heaviest = ""
    }

    static func signatures(of run: CommandRun) throws -> [SignatureKey: [String: Any]] {
        #expect(run.status == 0, "\(run.stderr)")
        let document = try #require(try JSONSerialization.jsonObject(with: Data(run.stdout.utf8)) as? [String: Any])
        var found: [SignatureKey: [String: Any]] = [:]
        for build in document["builds"] as? [[String: Any]] ?? [] {
            for signature in build["signatures"] as? [[String: Any]] ?? [] {
                let key = SignatureKey(
                    build: signature["build"] as? Int ?? -1, kind: signature["kind"] as? String ?? "",
                    text: signature["signature"] as? String ?? "")
                found[key] = signature
            }
        }
        return found
    }

    /// Half the stacks come from the start; the other half first come after the first batch, so
    /// later batches mix stacks already symbolicated with new ones, and hang durations tie.
    @Test func rowsOfKnownStacksAreTalliedInFileOrder() throws {
        // The fixture rows `top` ranks (a CPU exception's stack is not among them).
        let templates = try StackBatchTests.interleavedRows().filter {
            $0.contains(#""name":"hang""#) || $0.contains(#""name":"crash""#)
        }
        try #require(templates.count >= 4)
        let dsyms = try SymbolicateFixtures.path("builds")
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("yui-top-order-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }

        // Each template's signature, from a run over that row alone.
        var signatureOf: [SignatureKey] = []
        for (index, template) in templates.enumerated() {
            let path = folder.appendingPathComponent("template-\(index).jsonl").path
            try Data((template + "\n").utf8).write(to: URL(fileURLWithPath: path))
            let alone = try Self.signatures(of: CommandRun(["top", "--json", "--dsyms", dsyms, path]))
            try #require(alone.count == 1, "template \(index): \(alone.keys)")
            signatureOf.append(alone.keys.first!)
        }
        let early = Array(templates.indices.prefix(templates.count / 2))
        let count = StackRun.batchRows + 3_000
        var lines: [String] = []
        var expected: [SignatureKey: Expected] = [:]
        for index in 0..<count {
            let template = index < StackRun.batchRows + 500 ? early[index % early.count] : index % templates.count
            let key = String(format: "%08x-0000-4000-8000-%012x", index, index)
            let seconds = [0.5, 1.0, 1.5][(index * 7) % 3]
            var line = templates[template].replacing(/"row_key":"[0-9a-f-]+"/, with: "\"row_key\":\"\(key)\"")
            let isHang = line.contains(#""name":"hang""#)
            if isHang { line = line.replacing(/"value":[0-9.eE+-]+/, with: "\"value\":\(seconds)") }
            lines.append(line)
            // A crash weighs `--crash-weight`, 1 s by default.
            let weight = isHang ? seconds : 1
            var tally = expected[signatureOf[template], default: Expected()]
            tally.rowKeys.append(key)
            tally.weight += weight
            if weight > tally.max {
                tally.max = weight
                tally.heaviest = key
            }
            expected[signatureOf[template]] = tally
        }
        let file = folder.appendingPathComponent("rows.jsonl").path
        try Data((lines.joined(separator: "\n") + "\n").utf8).write(to: URL(fileURLWithPath: file))

        let ranked = try Self.signatures(of: CommandRun(["top", "--json", "--count", "100", "--dsyms", dsyms, file]))
        #expect(Set(ranked.keys) == Set(expected.keys))
        for (key, want) in expected {
            let got = try #require(ranked[key], "\(key)")
            let keys = got["row_keys"] as? [String] ?? []
            // The first place they part, rather than two lists of thousands.
            let common = min(keys.count, want.rowKeys.count)
            let parted = (0..<common).first { keys[$0] != want.rowKeys[$0] } ?? (keys.count == want.rowKeys.count ? nil : common)
            #expect(parted == nil, "\(key): row keys out of file order from position \(parted ?? -1) of \(want.rowKeys.count)")
            #expect(got["count"] as? Int == want.rowKeys.count, "\(key)")
            #expect(got["heaviest_row_key"] as? String == want.heaviest, "\(key)")
            #expect((got["max"] as? Double).map { abs($0 - want.max) < 1e-9 } == true, "\(key): max \(got["max"] ?? "none")")
            #expect(
                (got["weight"] as? Double).map { abs($0 - want.weight) < 1e-6 * want.weight } == true,
                "\(key): weight \(got["weight"] ?? "none") against \(want.weight)")
        }
    }
}
