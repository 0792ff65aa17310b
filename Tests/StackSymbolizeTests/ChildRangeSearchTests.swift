import Foundation
import Testing

@testable import StackSymbolize

/// `ChildRangeSearch` finds, among a node's many children, the one the child-by-child try finds:
/// the first in sibling order holding the address. The index build's chains depend on it.
@Suite struct ChildRangeSearchTests {
    /// Every address where a chain can change (each range's ends, either side) and every line row
    /// of each unit: the chain with the search is the chain without it.
    static func compareChains(_ image: DebugImage) -> (compared: Int, searched: Int) {
        var compared = 0
        var searched = 0
        var plain: [Int32] = []
        var fast: [Int32] = []
        for index in 0..<image.unitCount {
            let unit = image.wholeUnit(index)
            let search = ChildRangeSearch(unit)
            var addresses = unit.lineAddress
            for range in unit.nodeRanges {
                addresses += [range.low, range.low &+ 1, range.high &- 1, range.high]
            }
            for node in unit.nodes.indices where search.child(of: Int32(node), holding: 0) != nil { searched += 1 }
            for address in addresses {
                unit.scopeChain(at: address, into: &plain)
                unit.scopeChain(at: address, into: &fast, search: search)
                #expect(plain == fast, "unit \(index) address \(address)")
                compared += 1
            }
        }
        return (compared, searched)
    }

    @Test(arguments: UnitRangeReaderTests.toolchainBinaries.prefix(2))
    func toolchainBinary(_ path: String) throws {
        let (compared, searched) = Self.compareChains(try DebugImage(elfPath: path))
        #expect(compared > 100_000)
        #expect(searched > 100, "nodes with enough children to be searched")
    }

    /// Overlapping siblings, empty ranges and a child with two ranges: the first sibling holding the
    /// address wins, as child by child.
    @Test func overlappingChildren() {
        var unit = DecodedUnit()
        var lastChild = DecodedUnit.LastChildren()
        let root = unit.addScope(
            ScopeNode(dieOffset: 1, parent: -1, isInlined: false, callFile: -1, callLine: 0, rangeStart: 0, rangeCount: 0),
            ranges: [AddressRange(low: 0, high: 1_000)], lastChild: &lastChild)
        // Sibling k covers [100k, 100k + 150): each overlaps the next; sibling 3 has a second range
        // inside sibling 1's, and sibling 5 an empty one.
        for sibling in 0..<10 {
            var ranges = [AddressRange(low: UInt64(100 * sibling), high: UInt64(100 * sibling + 150))]
            if sibling == 3 { ranges.append(AddressRange(low: 120, high: 130)) }
            if sibling == 5 { ranges = [AddressRange(low: 510, high: 510)] }
            _ = unit.addScope(
                ScopeNode(
                    dieOffset: UInt64(10 + sibling), parent: root, isInlined: true, callFile: -1, callLine: 0, rangeStart: 0,
                    rangeCount: 0), ranges: ranges, lastChild: &lastChild)
        }
        unit.topLevel = [(0, 1_000, root)]
        let search = ChildRangeSearch(unit)
        var plain: [Int32] = []
        var fast: [Int32] = []
        for address in UInt64(0)...1_001 {
            unit.scopeChain(at: address, into: &plain)
            unit.scopeChain(at: address, into: &fast, search: search)
            #expect(plain == fast, "address \(address)")
        }
        // The overlap goes to the earlier sibling; sibling 3's second range loses to sibling 0.
        unit.scopeChain(at: 125, into: &fast, search: search)
        #expect(fast.count == 2 && unit.nodes[Int(fast[1])].dieOffset == 10)
        unit.scopeChain(at: 320, into: &fast, search: search)
        #expect(fast.count == 2 && unit.nodes[Int(fast[1])].dieOffset == 12)
        unit.scopeChain(at: 960, into: &fast, search: search)
        #expect(fast.count == 2 && unit.nodes[Int(fast[1])].dieOffset == 19)
    }
}
