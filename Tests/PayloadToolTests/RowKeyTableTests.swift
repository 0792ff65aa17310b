import Testing

@testable import PayloadTool

/// `top` and `report` count a (user, row key) once (`CountedRows`), in a table of their own. It
/// must answer as a set does: across its growth, for keys that differ in one word only, for the
/// key of all zeros, and for a copy changed after it was taken.
@Suite struct RowKeyTableTests {
    @Test func answersAsASetDoes() {
        var random = SystemRandomNumberGenerator()
        let table = RowKeyTable(capacity: 8)
        var reference: Set<[UInt64]> = []
        var keys: [(Int, UInt64, UInt64)] = [(0, 0, 0), (1, 0, 0), (0, 1, 0), (0, 0, 1)]
        for _ in 0..<20_000 {
            let high: UInt64 = random.next()
            keys.append((Int.random(in: 0..<3, using: &random), high, random.next()))
            // Keys that share a word with another, and a key given twice.
            keys.append((0, high, 7))
            if let earlier = keys.randomElement(using: &random) { keys.append(earlier) }
        }
        for (user, high, low) in keys {
            let inserted = table.insert(user: user, high: high, low: low)
            #expect(inserted == reference.insert([UInt64(user), high, low]).inserted)
        }
        #expect(table.count == reference.count)
        #expect(table.count > 40_000)
    }

    @Test func aCopyKeepsItsOwnKeys() {
        var first = CountedKeysProbe()
        first.insert(1)
        var second = first
        let secondTook2 = second.insert(2)
        let firstTook2 = first.insert(2)
        let secondTook1 = second.insert(1)
        let firstTook1 = first.insert(1)
        #expect(secondTook2 && firstTook2)
        #expect(!secondTook1 && !firstTook1)
    }

    /// `CountedRows`' way of sharing its table: copied before a change when another holds it.
    private struct CountedKeysProbe {
        var table = RowKeyTable()

        @discardableResult mutating func insert(_ low: UInt64) -> Bool {
            if !isKnownUniquelyReferenced(&table) { table = RowKeyTable(copying: table) }
            return table.insert(user: 0, high: 0, low: low)
        }
    }
}
