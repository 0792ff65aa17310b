// The inline-chain rule, in one place for every answer: a chain starts at the innermost root
// (`ScopeNode.startsChain`: a top-level function or a nested one) holding the address and goes
// down through the inlined calls holding it. Both scope walkers build the tree through
// `DecodedUnit.addScope`; direct lookups (`DebugImage.lookup`) read chains here, and the symbol
// index builder stores exactly what `DebugImage.lookup` answers, so the two cannot drift.

extension DecodedUnit {
    /// Node indices from the outermost function to the innermost inlined call at `address`.
    func scopeChain(at address: UInt64) -> [Int32] {
        var chain: [Int32] = []
        scopeChain(at: address, into: &chain)
        return chain
    }

    /// `scopeChain(at:)` into `chain` (emptied first), so a caller reading many addresses reuses
    /// one array.
    func scopeChain(at address: UInt64, into chain: inout [Int32]) {
        scopeChain(at: address, into: &chain) { _, _ in nil }
    }

    /// `scopeChain(at:into:)` with `search`, made for this unit, finding the child holding the
    /// address among many without trying each (the same child the try in sibling order finds).
    /// Not an optional parameter: wrapping the search in one copied (retained) its arrays per call,
    /// 4 of an index build's 26 million atomic reference count changes per thread.
    func scopeChain(at address: UInt64, into chain: inout [Int32], search: ChildRangeSearch) {
        scopeChain(at: address, into: &chain) { search.child(of: $0, holding: $1) }
    }

    /// The walk of both: `childOf(node, address)` is the child holding the address, -1 for none,
    /// nil to try the children one by one.
    @inline(__always)
    private func scopeChain(at address: UInt64, into chain: inout [Int32], childOf: (Int32, UInt64) -> Int32?) {
        chain.removeAll(keepingCapacity: true)
        var low = 0
        var high = topLevel.count
        while low < high {
            let middle = (low + high) / 2
            if topLevel[middle].low <= address { low = middle + 1 } else { high = middle }
        }
        // Roots rarely overlap: look back a little. Where several hold the address (a nested
        // function whose code lies inside its parent's range, overlapping functions), the smallest
        // range is the innermost one, as llvm-symbolizer's address map has it; ties go to the later DIE.
        var top: Int32 = -1
        var topSize = UInt64.max
        var candidate = low - 1
        while candidate >= 0, low - candidate <= 16 {
            // No root from here back reaches the address (a unit decoded by hand, in tests, has
            // no reach: it looks at all sixteen).
            if candidate < topLevelReach.count, topLevelReach[candidate] <= address { break }
            let root = topLevel[candidate]
            if address < root.high, root.high - root.low < topSize || (root.high - root.low == topSize && root.node > top) {
                top = root.node
                topSize = root.high - root.low
            }
            candidate -= 1
        }
        guard top >= 0 else { return }
        chain.append(top)
        var current = top
        descend: while true {
            if let found = childOf(current, address) {
                guard found >= 0 else { break }
                if nodes[Int(found)].startsChain { chain.removeAll(keepingCapacity: true) }  // A nested function starts its own chain.
                chain.append(found)
                current = found
                continue descend
            }
            var child = nodes[Int(current)].firstChild
            while child >= 0 {
                if contains(child, address) {
                    if nodes[Int(child)].startsChain {
                        chain.removeAll(keepingCapacity: true)  // A nested function starts its own chain.
                        chain.append(child)
                    } else {
                        chain.append(child)
                    }
                    current = child
                    continue descend
                }
                child = nodes[Int(child)].nextSibling
            }
            break
        }
    }

    /// The low end of the node's range that holds `address`.
    func start(of node: Int32, containing address: UInt64) -> UInt64? {
        let scope = nodes[Int(node)]
        for index in Int(scope.rangeStart)..<Int(scope.rangeStart + scope.rangeCount) {
            let range = nodeRanges[index]
            if range.low <= address, address < range.high { return range.low }
        }
        return nil
    }

    private func contains(_ node: Int32, _ address: UInt64) -> Bool {
        let scope = nodes[Int(node)]
        for index in Int(scope.rangeStart)..<Int(scope.rangeStart + scope.rangeCount) {
            let range = nodeRanges[index]
            if range.low <= address, address < range.high { return true }
        }
        return false
    }

    /// `locationRow(at:cursor:)` for one address.
    func locationRow(at address: UInt64) -> (file: Int32, line: Int)? {
        var low = 0
        var high = lineAddress.count
        while low < high {
            let middle = (low + high) / 2
            if lineAddress[middle] <= address { low = middle + 1 } else { high = middle }
        }
        return row(before: low)
    }

    /// The line row covering `address` as `location(at:)` reads it, by number: the file's index
    /// in `lineFileNames` (negative for none) and the line; `nil` where `location(at:)` is `nil`.
    /// `cursor` carries the search from one address to the next when they ascend.
    func locationRow(at address: UInt64, cursor: inout AscendingCursor) -> (file: Int32, line: Int)? {
        row(before: cursor.upperBound(of: address, in: lineAddress))
    }

    /// The row before row `upper` (the first row past the address), unless that row ends a sequence.
    private func row(before upper: Int) -> (file: Int32, line: Int)? {
        guard upper > 0 else { return nil }
        let file = lineFile[upper - 1]
        if file == -1 { return nil }
        return (file, Int(lineNumber[upper - 1]))
    }

    /// The line row covering `address`: the last row at or before it, unless that row ends a sequence.
    func location(at address: UInt64) -> (file: String?, line: Int)? {
        guard let row = locationRow(at: address) else { return nil }
        return (row.file >= 0 ? lineFileNames[Int(row.file)] : nil, row.line)
    }
}

/// For the nodes of a unit with many children, their children's ranges sorted by start: the
/// child holding an address is then found by a binary search, not by trying every child in turn
/// (an index build asks at every point of a unit, and a function with hundreds of inlined calls
/// had each of them tried at each of its points: 6% of the build).
struct ChildRangeSearch {
    /// Nodes with fewer children are searched child by child, as before.
    static let minimumChildren = 8

    private struct Entry {
        var low: UInt64
        var high: UInt64
        /// Within a block, the highest end of this entry and all before it.
        var reach: UInt64
        /// The child the range is of, and its position among its siblings.
        var child: Int32
        var siblingPosition: Int32
    }

    /// Per node: the start and end of its block of entries; start -1 for a node searched child by
    /// child.
    private var blocks: [(start: Int32, end: Int32)]
    /// The entries of all blocks, each block sorted by range start.
    private var entries: [Entry] = []

    init(_ unit: DecodedUnit) {
        blocks = [(start: Int32, end: Int32)](repeating: (-1, -1), count: unit.nodes.count)
        var block: [Entry] = []
        for node in unit.nodes.indices {
            var count = 0
            var next = unit.nodes[node].firstChild
            while next >= 0, count < Self.minimumChildren {
                count += 1
                next = unit.nodes[Int(next)].nextSibling
            }
            guard count >= Self.minimumChildren else { continue }
            block.removeAll(keepingCapacity: true)
            var position: Int32 = 0
            next = unit.nodes[node].firstChild
            while next >= 0 {
                let scope = unit.nodes[Int(next)]
                for index in Int(scope.rangeStart)..<Int(scope.rangeStart + scope.rangeCount) {
                    let range = unit.nodeRanges[index]
                    if range.low < range.high {
                        block.append(Entry(low: range.low, high: range.high, reach: 0, child: next, siblingPosition: position))
                    }
                }
                position += 1
                next = scope.nextSibling
            }
            block.sort { $0.low < $1.low || ($0.low == $1.low && $0.siblingPosition < $1.siblingPosition) }
            let start = Int32(entries.count)
            var highest: UInt64 = 0
            for var entry in block {
                highest = max(highest, entry.high)
                entry.reach = highest
                entries.append(entry)
            }
            blocks[node] = (start, Int32(entries.count))
        }
    }

    /// The first child of `node` (in sibling order) with a range holding `address`: -1 for none;
    /// nil when `node` has too few children to be searched here.
    func child(of node: Int32, holding address: UInt64) -> Int32? {
        let (blockStart, blockEnd) = blocks[Int(node)]
        guard blockStart >= 0 else { return nil }
        return entries.withUnsafeBufferPointer { entries in
            var low = Int(blockStart)
            var high = Int(blockEnd)
            while low < high {
                let middle = (low + high) >> 1
                if entries[middle].low <= address { low = middle + 1 } else { high = middle }
            }
            // Entries before `low` start at or below the address; going back, once no entry so far
            // reaches past the address, none before it does either.
            var found: Int32 = -1
            var foundPosition = Int32.max
            var entry = low - 1
            while entry >= Int(blockStart), entries[entry].reach > address {
                if entries[entry].high > address, entries[entry].siblingPosition < foundPosition {
                    found = entries[entry].child
                    foundPosition = entries[entry].siblingPosition
                }
                entry -= 1
            }
            return found
        }
    }
}
