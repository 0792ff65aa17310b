import Testing

@testable import StackSymbolize

/// The sorts that replace the standard library's in hot paths must give its order.
@Suite struct AscendingOrderTests {
    static func samples() -> [[UInt64]] {
        var random = SystemRandomNumberGenerator()
        var result: [[UInt64]] = [[], [7], [3, 3, 1]]
        for count in [100, 513, 5_000, 40_000] {
            // Addresses of one unit (three bytes differ), spread over all 64 bits, with repeats,
            // already sorted, and all equal.
            let base = UInt64.random(in: 0..<(1 << 40), using: &random)
            result.append((0..<count).map { _ in base + UInt64.random(in: 0..<(1 << 22), using: &random) })
            result.append((0..<count).map { _ in UInt64.random(in: 0...UInt64.max, using: &random) })
            result.append((0..<count).map { _ in UInt64.random(in: 0..<50, using: &random) })
            result.append((0..<UInt64(count)).map { base + $0 * 4 })
            result.append(Array(repeating: base, count: count))
        }
        return result
    }

    @Test func radixSortIsSort() {
        for sample in Self.samples() {
            var radix = sample
            radix.radixSort()
            #expect(radix == sample.sorted(), "\(sample.count) values")
        }
    }

    @Test func ascendingOrderIsAStableSort() {
        for sample in Self.samples() {
            let expected = sample.indices.sorted { sample[$0] < sample[$1] || (sample[$0] == sample[$1] && $0 < $1) }
            #expect(sample.ascendingOrder() == expected, "\(sample.count) values")
        }
    }
}
