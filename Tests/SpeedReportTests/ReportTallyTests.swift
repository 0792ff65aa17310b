import Foundation
import PayloadDecode
import SpeedReport
import TestSupport
import Testing

/// The tally keeps the last row's phone and changes each part's figures in place; what it sums must
/// not depend on whether rows come a phone at a time (as `rows` writes them) or with the phone
/// changing on every row (a file merged from several phones' uploads).
struct ReportTallyTests {
    static func sampleRows() throws -> [Row] {
        var rows: [Row] = []
        let path = Repository.samples.appendingPathComponent("report/rows.jsonl").path
        let read = RowSource.readRows(path: path, options: ConversionOptions(), report: { _ in }, emit: { rows.append($0) })
        try #require(read && rows.count == 425)
        return rows
    }

    /// Every phone's rows in their own order, the phones taken in turn one row each.
    static func phoneByPhoneInTurn(_ rows: [Row]) -> [Row] {
        var byPhone: [String: [Row]] = [:]
        var phones: [String] = []
        for row in rows {
            let phone = "\(row.user_id ?? "")/\(row.device)"
            if byPhone[phone] == nil { phones.append(phone) }
            byPhone[phone, default: []].append(row)
        }
        var turned: [Row] = []
        for place in 0..<(byPhone.values.map(\.count).max() ?? 0) {
            for phone in phones where place < byPhone[phone]!.count { turned.append(byPhone[phone]![place]) }
        }
        return turned
    }

    /// Equal as JSON, numbers within a relative 1e-12.
    static func alike<Value: Encodable>(_ one: Value, _ other: Value) throws -> Bool {
        func object(_ value: Value) throws -> Any {
            let encoder = JSONEncoder()
            encoder.outputFormatting = .sortedKeys
            return try JSONSerialization.jsonObject(with: encoder.encode(value), options: .fragmentsAllowed)
        }
        func same(_ a: Any, _ b: Any) -> Bool {
            switch (a, b) {
            case let (a as [String: Any], b as [String: Any]):
                return a.keys.sorted() == b.keys.sorted() && a.allSatisfy { same($0.value, b[$0.key]!) }
            case let (a as [Any], b as [Any]):
                return a.count == b.count && zip(a, b).allSatisfy { same($0, $1) }
            case let (a as NSNumber, b as NSNumber):
                return abs(a.doubleValue - b.doubleValue) <= 1e-12 * Swift.max(abs(a.doubleValue), abs(b.doubleValue))
            case let (a as String, b as String):
                return a == b
            default:
                return a is NSNull && b is NSNull
            }
        }
        return same(try object(one), try object(other))
    }

    @Test func figuresAreTheSameWhenThePhoneChangesOnEveryRow() throws {
        let rows = try Self.sampleRows()
        let turned = Self.phoneByPhoneInTurn(rows)
        let changes = zip(turned, turned.dropFirst()).filter { $0.0.device != $0.1.device || $0.0.user_id != $0.1.user_id }.count
        #expect(changes > turned.count / 2)
        var inFileOrder = ReportTally()
        var inTurn = ReportTally()
        for row in rows { inFileOrder.add(row) }
        for row in turned { inTurn.add(row) }
        inFileOrder.finish()
        inTurn.finish()
        #expect(inFileOrder.builds == [125, 124, 123, 122, 121])
        #expect(inTurn.builds == inFileOrder.builds)
        for build in inFileOrder.builds {
            let figures = try #require(inFileOrder.figures(build: build))
            #expect(figures.rows > 0 && figures.phones.count > 1)
            // Sums of doubles are compared to the last few bits: the tally adds its parts up in the
            // order of a hash table, which differs between two tables of the same parts.
            #expect(try Self.alike(inTurn.figures(build: build), figures))
            #expect(try Self.alike(inTurn.figuresByPhone(build: build), inFileOrder.figuresByPhone(build: build)))
            #expect(inTurn.breakdown(build: build).intervals == inFileOrder.breakdown(build: build).intervals)
            #expect(inTurn.crashCauses(build: build).map(\.count) == inFileOrder.crashCauses(build: build).map(\.count))
        }
        #expect(inTurn.newestPeriodEnd == inFileOrder.newestPeriodEnd)
    }
}
