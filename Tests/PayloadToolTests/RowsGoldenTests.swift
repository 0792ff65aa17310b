import Foundation
import TestSupport
import Testing

@testable import PayloadTool

/// `rows` output compared byte for byte with the output before `rows` was made faster
/// (Tests/Fixtures/rows-golden/README.md), in all four formats.
@Suite struct RowsGoldenTests {
    static let golden = Repository.testFixtures.appendingPathComponent("rows-golden")

    static func files(in folder: URL) -> [String] {
        // Payload files only: samples/ also holds the report's folders (samples/report, samples/dsyms).
        let names = ((try? FileManager.default.contentsOfDirectory(atPath: folder.path)) ?? []).filter {
            $0.hasSuffix(".json") || $0.hasSuffix(".jsonl")
        }
        return names.sorted { Array($0.utf8).lexicographicallyPrecedes(Array($1.utf8)) }.map { folder.appendingPathComponent($0).path }
    }

    struct Case: CustomTestStringConvertible, Sendable {
        var name: String
        var inputs: URL
        var flags: [String]
        var testDescription: String { name }
    }

    static let cases: [Case] = [
        Case(name: "samples", inputs: Repository.samples, flags: []),
        Case(
            name: "samples-user-berlin", inputs: Repository.samples,
            flags: ["--user", "0B9C7D3E-1F2A-4B5C-8D6E-7F8091A2B3C4", "--timezone", "Europe/Berlin"]),
        Case(
            name: "single-diagnostics", inputs: Repository.testFixtures.appendingPathComponent("single-diagnostics"),
            flags: ["--period-start", "2026-11-28 10:00:00"]),
        Case(name: "real-shaped", inputs: golden.appendingPathComponent("real-shaped"), flags: []),
    ]

    @Test(arguments: cases, ["json", "jsonl", "csv", "sql"])
    func sameBytesAsBefore(_ testCase: Case, format: String) throws {
        let inputs = Self.files(in: testCase.inputs)
        #expect(inputs.count >= 3)
        let expected = try Data(contentsOf: Self.golden.appendingPathComponent("\(testCase.name).\(format)"))
        // One job and several: the bytes must not depend on how the files were shared out.
        for jobs in ["1", "3"] {
            let (status, out, err) = ToolRun.run(["rows", "--format", format, "--jobs", jobs] + testCase.flags + inputs)
            #expect(status == 0, "\(err)")
            let got = Data(out.utf8)
            if got != expected {
                let firstDifference =
                    zip(got, expected).enumerated().first { $0.element.0 != $0.element.1 }?.offset
                    ?? min(got.count, expected.count)
                Issue.record(
                    "\(testCase.name).\(format), --jobs \(jobs): \(got.count) bytes against \(expected.count), first difference at byte \(firstDifference)"
                )
            }
        }
    }
}
