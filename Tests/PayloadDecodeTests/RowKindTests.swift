import Foundation
import PayloadDecode
import TestSupport
import Testing

@Suite struct RowKindTests {
    /// The enum is the table's check list: a kind added to one and not the other would be refused by
    /// PostgreSQL or never written.
    @Test func rowKindsAreTheTablesKindCheck() throws {
        let migration = try String(contentsOf: Repository.root.appendingPathComponent("db/yui_perf.sql"), encoding: .utf8)
        let check = try #require(migration.split(separator: "\n").first { $0.contains("'yui_perf_kind'") })
        let listed = check.split(separator: "'").enumerated().filter { $0.offset % 2 == 1 }.map { String($0.element) }
        #expect(Array(listed.dropFirst()) == RowKind.allCases.map(\.rawValue))
    }

    /// A row file read back with a kind the table does not have is refused with the table's words,
    /// quoting the kind as written, and the other rows still come through.
    @Test func aRowFileWithAnUnknownKindNamesItAndKeepsTheOtherRows() throws {
        let good = try #require(convertFile(try Samples.path("metrics-ios13.json")).rows.first)
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys]
        let line = try #require(String(data: try encoder.encode(good), encoding: .utf8))
        var stacked = line.replacingOccurrences(of: "\"kind\":\"metrics\"", with: "\"kind\":\"gauge\"")
        stacked = stacked.replacingOccurrences(of: "\"row_key\"", with: "\"stack\":[{\"offset\":4}],\"row_key\"")
        let read = convert([line, stacked, line].joined(separator: "\n"), fileName: "rows.jsonl")
        #expect(read.rows.count == 2)
        #expect(read.rows.allSatisfy { $0.kind == .metrics && $0.metric == good.metric })
        #expect(
            read.errors.map(\.message) == [
                "row breaks the table's checks: kind 'gauge' is not interval, memory, metrics or diagnostic; "
                    + "stack on a gauge row (diagnostic rows only)"
            ])
        #expect(read.errors.map(\.place) == ["line 2"])
    }

    /// Every row the converter writes from the samples has a name from the closed sets, by kind:
    /// a metric or an exit reason, a diagnostic, or a MetricKit signpost's interval (`…_mk`).
    @Test func convertedRowsNameAMetricOrADiagnostic() throws {
        for sample in [
            "metrics-ios13.json", "metrics-ios14-zh.json", "metrics-ios16.json", "diagnostics-ios18-crashes-hang.json",
            "diagnostics-ios18-exceptions.json",
        ] {
            for row in convertFile(try Samples.path(sample)).rows {
                switch row.kind {
                case .metrics:
                    #expect((row.metric != nil) != (ExitReason.of(rowName: row.name) != nil), "\(sample) \(row.name)")
                    #expect(row.diagnostic == nil, "\(sample) \(row.name)")
                case .diagnostic: #expect(row.diagnostic != nil && row.metric == nil, "\(sample) \(row.name)")
                case .interval: #expect(row.name.hasSuffix("_mk") && row.buckets != nil, "\(sample) \(row.name)")
                case .memory: Issue.record("\(sample): MetricKit gave an app row \(row.name)")
                }
            }
        }
    }
}
