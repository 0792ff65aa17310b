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

    /// The line row covering `address` as `location(at:)` reads it, by number: the file's index
    /// in `lineFileNames` (negative for none) and the line; `nil` where `location(at:)` is `nil`.
    /// `cursor` carries the search from one address to the next when they ascend.
    func locationRow(at address: UInt64, cursor: inout AscendingCursor) -> (file: Int32, line: Int)? {
        let low = cursor.upperBound(of: address, in: lineAddress)
        guard low > 0 else { return nil }
        let row = low - 1
        let file = lineFile[row]
        if file == -1 { return nil }
        return (file, Int(lineNumber[row]))
    }

    /// The line row covering `address`: the last row at or before it, unless that row ends a sequence.
    func location(at address: UInt64) -> (file: String?, line: Int)? {
        var low = 0
        var high = lineAddress.count
        while low < high {
            let middle = (low + high) / 2
            if lineAddress[middle] <= address { low = middle + 1 } else { high = middle }
        }
        guard low > 0 else { return nil }
        let row = low - 1
        let file = lineFile[row]
        if file == -1 { return nil }
        return (file >= 0 ? lineFileNames[Int(file)] : nil, Int(lineNumber[row]))
    }
}
