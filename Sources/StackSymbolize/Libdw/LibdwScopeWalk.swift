/// Walks a unit's DIE tree with libdw, collecting functions and inlined calls with code: the
/// reference walk, used where the byte walk (`ByteScopeWalk`) gives up.
///
/// A function or inlined call that holds no wanted address (in a batch) is not recorded, nor are
/// the inlined calls below it (`recordsInlined` false), but the walk still goes on: a nested function (a Swift closure or
/// local function) has its DIE inside its parent's DIE while its code lies elsewhere, and may be
/// where a wanted address is. The same holds below a function without code (an abstract origin)
/// and below an inlined call that is not recorded.
enum LibdwScopeWalk {
    static func read(unitDIE: inout DwarfDIE, wanted: [UInt64]?, into unit: inout DecodedUnit) {
        // Iterative walk: (first child DIE, parent node, records inlined calls) still to visit.
        guard let child = unitDIE.firstChild() else { return }
        var pending: [(die: DwarfDIE, parent: Int32, recordsInlined: Bool)] = [(child, -1, true)]
        var lastChild = DecodedUnit.LastChildren()
        while let (first, parent, recordsInlined) = pending.popLast() {
            var die = first
            while true {
                let tag = die.tag()
                if tag == DWARFTag.subprogram || tag == DWARFTag.inlinedSubroutine {
                    let isInlined = tag == DWARFTag.inlinedSubroutine
                    let ranges = recordsInlined || !isInlined ? die.ranges() : []
                    // In a batch, one holding no wanted address is left out as one without code
                    // (see `ByteScopeWalk`).
                    if ranges.isEmpty || (wanted != nil && !DecodedUnit.holdsWanted(ranges, wanted!)) {
                        if let child = die.firstChild() { pending.append((child, parent, false)) }
                    } else {
                        let (callFile, callLine) = isInlined ? die.callSite() : (-1, 0)
                        let scope = ScopeNode(
                            dieOffset: die.offset(), parent: parent, isInlined: isInlined, callFile: callFile, callLine: callLine,
                            rangeStart: 0, rangeCount: 0)
                        let node = unit.addScope(scope, ranges: ranges, lastChild: &lastChild)
                        if let child = die.firstChild() { pending.append((child, node, true)) }
                    }
                } else if DWARFTag.isContainer(tag) {
                    // Functions and inlined calls can sit inside these.
                    if let child = die.firstChild() { pending.append((child, parent, recordsInlined)) }
                }
                guard let sibling = die.nextSibling() else { break }
                die = sibling
            }
        }
    }
}
