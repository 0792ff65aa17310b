/// One address range of a unit or a function, half-open.
struct AddressRange: Sendable, Hashable {
    var low: UInt64
    var high: UInt64
}

/// A unit's address ranges, taken from its unit DIE alone (no `.debug_aranges` needed).
struct UnitRanges: Sendable {
    var unitDIEOffset: UInt64
    var ranges: [AddressRange]
}

/// A function or inlined call found while walking a unit, kept as plain numbers so the tree can be
/// searched without libdw and stored in an index.
struct ScopeNode: Sendable {
    var dieOffset: UInt64
    /// -1 for a top-level function.
    var parent: Int32
    var firstChild: Int32 = -1
    var nextSibling: Int32 = -1
    var isInlined: Bool
    /// `DW_AT_call_file` index into the unit's file table, -1 when absent.
    var callFile: Int32
    var callLine: Int32
    var rangeStart: Int32
    var rangeCount: Int32
    /// Where an inlined call's names come from when the walk read it (`DIECursor.CallSite`),
    /// `.max` when it did not.
    var nameOrigin: UInt64 = .max

    /// Whether an inline chain starts here: a top-level function, or a function nested in another
    /// one's DIE (a closure, a local function; its code lies elsewhere). Only inlined calls
    /// continue their parent's chain.
    var startsChain: Bool { parent < 0 || !isInlined }
}

/// A unit decoded once: its function tree, its line table and its file names.
struct DecodedUnit: Sendable {
    var nodes: [ScopeNode] = []
    var nodeRanges: [AddressRange] = []
    /// (low, high, node) of top-level functions, sorted by `low`.
    var topLevel: [(low: UInt64, high: UInt64, node: Int32)] = []
    /// For each root of `topLevel`, the highest end of it and every root before it: a look back
    /// for roots holding an address stops where none before can reach it.
    var topLevelReach: [UInt64] = []
    /// Line rows sorted by address; `lineFile` -1 marks an end-of-sequence row.
    var lineAddress: [UInt64] = []
    var lineNumber: [Int32] = []
    var lineFile: [Int32] = []
    /// File names of the line rows, indexed by `lineFile`.
    var lineFileNames: [String] = []
    /// The unit's file table (`DW_AT_call_file` indexes into it).
    var callFileNames: [String] = []
}

extension DecodedUnit {
    /// Adds a function or inlined call with code, as the last child of `scope.parent` so far (the
    /// tree's one way of growing, for both walkers): its ranges are stored and, when it starts a
    /// chain, it becomes a root of `topLevel`. `lastChild` carries each parent's last child
    /// between calls. Returns the new node's index.
    /// Per node, its last child so far (-1: none yet), while a walk adds nodes.
    struct LastChildren {
        private var lastChild: [Int32] = []

        subscript(node: Int32) -> Int32? {
            get { Int(node) < lastChild.count && lastChild[Int(node)] >= 0 ? lastChild[Int(node)] : nil }
            set {
                while lastChild.count <= Int(node) { lastChild.append(-1) }
                lastChild[Int(node)] = newValue ?? -1
            }
        }
    }

    mutating func addScope(
        _ scope: ScopeNode, ranges: some Collection<AddressRange>, lastChild: inout LastChildren
    ) -> Int32 {
        let node = Int32(nodes.count)
        var scope = scope
        scope.rangeStart = Int32(nodeRanges.count)
        scope.rangeCount = Int32(ranges.count)
        nodes.append(scope)
        nodeRanges.append(contentsOf: ranges)
        if scope.parent >= 0 {
            if let previous = lastChild[scope.parent] {
                nodes[Int(previous)].nextSibling = node
            } else {
                nodes[Int(scope.parent)].firstChild = node
            }
            lastChild[scope.parent] = node
        }
        if scope.startsChain {
            for range in ranges { topLevel.append((range.low, range.high, node)) }
        }
        return node
    }

    /// True when a sorted address list has one in `ranges`: a batch walks below a function only
    /// then.
    static func holdsWanted(_ ranges: some Collection<AddressRange>, _ wanted: [UInt64]) -> Bool {
        for range in ranges {
            var low = 0
            var high = wanted.count
            while low < high {
                let middle = (low + high) / 2
                if wanted[middle] < range.low { low = middle + 1 } else { high = middle }
            }
            if low < wanted.count, wanted[low] < range.high { return true }
        }
        return false
    }
}

extension DecodedUnit {
    /// Sorts the top-level functions by start and records how far each prefix reaches: what the
    /// lookup's binary search needs, once the tree is read.
    mutating func finishTopLevel() {
        topLevel.sort { $0.low < $1.low }
        topLevelReach.reserveCapacity(topLevel.count)
        var reach: UInt64 = 0
        for root in topLevel {
            reach = max(reach, root.high)
            topLevelReach.append(reach)
        }
    }
}
