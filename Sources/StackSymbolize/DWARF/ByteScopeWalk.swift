import Foundation

/// `LibdwScopeWalk` with the tree walked over the section bytes (see `DIECursor`) in one pass, each
/// DIE read once; libdw is asked only about code ranges the bytes do not give
/// (`DIECursor.codeRanges`). The pass records, per sibling
/// list it visits, the functions and containers in it; a replay then builds the nodes in exactly
/// the order `LibdwScopeWalk` does, so both give the same tree.
enum ByteScopeWalk {
    /// Walks the tree of the unit whose DIE is at `unitDIEOffset` into `unit`. Returns false,
    /// leaving `unit` alone, when anything could not be decoded; the caller then walks with libdw.
    /// `libdw` is asked only for the code ranges `DIECursor.codeRanges` leaves to it.
    static func read(
        cursor: inout DIECursor, unitDIEOffset: Int, libdw: DwarfHandle?, wanted: [UInt64]?, storage: inout ScopeWalkStorage,
        into unit: inout DecodedUnit
    ) -> Bool {
        guard let infoBase = cursor.info.baseAddress, let unitEntry = cursor.entry(at: unitDIEOffset) else { return false }
        guard unitEntry.hasChildren else { return true }
        guard let (firstChild, _) = cursor.attributesEnd(of: unitDIEOffset) else { return false }
        // The storage moves in and back out, so its buffers are never copied, only reused.
        var lists = SiblingLists(libdw: libdw, unitDIEOffset: unitDIEOffset, infoBase: infoBase, wanted: wanted, storage: storage)
        storage = ScopeWalkStorage()
        defer { storage = lists.storage }
        guard lists.collect(from: firstChild, cursor: &cursor) else { return false }
        lists.replay(into: &unit)
        return true
    }
}

/// The pass's buffers, kept by the reader from one unit to the next: grown once to the largest
/// unit's size instead of from nothing per unit (their regrowth copies were a twentieth of a cold
/// batch).
struct ScopeWalkStorage {
    fileprivate var items: [SiblingLists.Item] = []
    fileprivate var ranges: [AddressRange] = []
    fileprivate var heads: [Int32] = []
    fileprivate var tails: [Int32] = []
    fileprivate var listRecordsInlined: [Bool] = []
}

/// What the pass found, per sibling list it visited: the functions with code and the containers
/// in it, each with the list of its own children to visit. Flat storage: every item in one array,
/// chained per list, and every range in another (an array per list and per item was a tenth of a
/// cold batch in allocations).
private struct SiblingLists {
    /// A function with code (`node` filled but for links) or a container, and the list of its
    /// children to visit (-1: none).
    struct Item {
        var node: ScopeNode?
        var rangeStart: Int32
        var rangeCount: Int32
        var childList: Int32
        /// The next item of the same list (-1: the last).
        var next: Int32
    }

    let libdw: DwarfHandle?
    let unitDIEOffset: Int
    /// libdw's unit DIE, asked for the first time a DIE's ranges are left to libdw.
    private var unitDIE: DwarfDIE?
    private var askedLibdw = false
    /// Set when libdw could not be asked: the walk is then libdw's.
    private var failed = false
    let infoBase: UnsafeRawPointer
    let wanted: [UInt64]?
    var storage: ScopeWalkStorage
    var items: [Item] {
        _read { yield storage.items }
        _modify { yield &storage.items }
    }
    var ranges: [AddressRange] {
        _read { yield storage.ranges }
        _modify { yield &storage.ranges }
    }
    /// Per list: its first and last item (-1: empty).
    var heads: [Int32] {
        _read { yield storage.heads }
        _modify { yield &storage.heads }
    }
    var tails: [Int32] {
        _read { yield storage.tails }
        _modify { yield &storage.tails }
    }
    /// Per list: whether inlined calls in it are recorded (see `LibdwScopeWalk`).
    var listRecordsInlined: [Bool] {
        _read { yield storage.listRecordsInlined }
        _modify { yield &storage.listRecordsInlined }
    }

    init(libdw: DwarfHandle?, unitDIEOffset: Int, infoBase: UnsafeRawPointer, wanted: [UInt64]?, storage: ScopeWalkStorage) {
        self.libdw = libdw
        self.unitDIEOffset = unitDIEOffset
        self.infoBase = infoBase
        self.wanted = wanted
        self.storage = storage
        self.storage.items.removeAll(keepingCapacity: true)
        self.storage.ranges.removeAll(keepingCapacity: true)
        self.storage.heads.removeAll(keepingCapacity: true)
        self.storage.tails.removeAll(keepingCapacity: true)
        self.storage.listRecordsInlined.removeAll(keepingCapacity: true)
        // List 0: the unit's own children.
        self.storage.heads.append(-1)
        self.storage.tails.append(-1)
        self.storage.listRecordsInlined.append(true)
    }

    private mutating func newList(recordingInlined: Bool) -> Int32 {
        heads.append(-1)
        tails.append(-1)
        listRecordsInlined.append(recordingInlined)
        return Int32(heads.count - 1)
    }

    private mutating func append(_ item: Item, to list: Int32) {
        let index = Int32(items.count)
        items.append(item)
        if tails[Int(list)] >= 0 { items[Int(tails[Int(list)])].next = index } else { heads[Int(list)] = index }
        tails[Int(list)] = index
    }

    /// The pass over the unit's DIEs from its first child; false when anything could not be read.
    mutating func collect(from firstChild: Int, cursor: inout DIECursor) -> Bool {
        // Per open level, the list its DIEs go to; -1 while inside a subtree nobody visits. `list`
        // is the innermost.
        var levels: [Int32] = [0]
        levels.reserveCapacity(64)
        var list: Int32 = 0
        var offset = firstChild
        let unitEnd = cursor.unitEnd
        guard let info = cursor.info.baseAddress else { return false }
        // Most DIEs have a one-byte code and attributes of fixed size: they are passed over here
        // with a load and an addition (going through `DIECursor.step` for each was a tenth of a
        // cold batch); `step` reads the rest.
        let entries = cursor.abbreviations.entries
        let ops = cursor.abbreviations.ops
        let leafSizes = cursor.abbreviations.leafSizes
        return entries.withUnsafeBufferPointer { entries in
            ops.withUnsafeBufferPointer { ops in
                leafSizes.withUnsafeBufferPointer { leafSizes in
                    while offset < unitEnd {
                        let entry: AbbreviationTable.Entry
                        var end: Int
                        var sibling: Int?
                        let code = Int(info.load(fromByteOffset: offset, as: UInt8.self))
                        // A leaf nothing is recorded for: passed over.
                        if code < 0x80, code < leafSizes.count, leafSizes[code] >= 0 {
                            offset += 1 + Int(leafSizes[code])
                            guard offset <= unitEnd else { return false }
                            continue
                        }
                        if code > 0, code < 0x80, code < entries.count, entries[code].isValid, entries[code].fixedSize >= 0 {
                            entry = entries[code]
                            end = offset + 1 + Int(entry.fixedSize)
                            guard end <= unitEnd else { return false }
                        } else if code > 0, code < 0x80, code < entries.count, entries[code].isValid,
                            let found = Self.attributesEnd(
                                ops[Int(entries[code].opStart)..<Int(entries[code].opEnd)], from: offset + 1, info, unitEnd)
                        {
                            // Fixed runs, LEB128 numbers and blocks (a location expression, a string):
                            // passed over here too; a sibling reference or an indirect form goes to `step`.
                            entry = entries[code]
                            end = found
                        } else {
                            switch cursor.step(at: offset) {
                            case .endOfSiblings(let next):
                                levels.removeLast()
                                guard let outer = levels.last else { return true }
                                list = outer
                                offset = next
                                continue
                            case .failed:
                                return false
                            case .entry(let found, let foundEnd, let foundSibling):
                                (entry, end, sibling) = (found, foundEnd, foundSibling)
                            }
                        }
                        let childList = list >= 0 && entry.isScope ? record(entry, at: offset, in: list, cursor: &cursor) : -1
                        if failed { return false }
                        if entry.hasChildren {
                            if childList < 0, let sibling, sibling > offset {
                                offset = sibling  // Nothing to record below: jump over the subtree.
                            } else {
                                levels.append(childList)
                                list = childList
                                offset = end
                            }
                        } else {
                            offset = end
                        }
                    }
                    return true
                }
            }
        }
    }

    /// Where the attributes starting at `position` end, for the common operations only: nil for
    /// anything else (a sibling, an indirect form) or bytes running past `unitEnd`.
    @inline(__always)
    private static func attributesEnd(
        _ ops: Slice<UnsafeBufferPointer<AbbreviationTable.SkipOp>>, from position: Int, _ info: UnsafeRawPointer, _ unitEnd: Int
    ) -> Int? {
        var position = position
        @inline(__always) func uleb() -> UInt64? {
            var value: UInt64 = 0
            var shift: UInt64 = 0
            while position < unitEnd {
                let byte = info.load(fromByteOffset: position, as: UInt8.self)
                position += 1
                if shift < 64 { value |= UInt64(byte & 0x7f) << shift }
                if byte & 0x80 == 0 { return value }
                shift += 7
            }
            return nil
        }
        for op in ops {
            switch op {
            case .fixed(let size):
                position += size
            case .uleb, .sleb:
                guard uleb() != nil else { return nil }
            case .blockULEB:
                guard let length = uleb(), length < UInt64(unitEnd) else { return nil }
                position += Int(length)
            case .block1:
                guard position < unitEnd else { return nil }
                position += 1 + Int(info.load(fromByteOffset: position, as: UInt8.self))
            case .cString:
                guard position < unitEnd, let end = memchr(info + position, 0, unitEnd - position) else { return nil }
                position = UnsafeRawPointer(end) - info + 1
            default:
                return nil
            }
            guard position <= unitEnd else { return nil }
        }
        return position
    }

    /// Records the DIE at `offset` in `list`; returns the list its children go to (-1: nothing
    /// below it is recorded).
    private mutating func record(_ entry: AbbreviationTable.Entry, at offset: Int, in list: Int32, cursor: inout DIECursor) -> Int32 {
        let recordsInlined = listRecordsInlined[Int(list)]
        if entry.tag == DWARFTag.subprogram || entry.tag == DWARFTag.inlinedSubroutine {
            let isInlined = entry.tag == DWARFTag.inlinedSubroutine
            // Without DW_AT_low_pc or DW_AT_ranges there is no code, so no range either.
            guard entry.mayHaveCode, recordsInlined || !isInlined else { return recordWithoutCode(entry, in: list) }
            let rangeStart = ranges.count
            let callSite: DIECursor.CallSite
            if let read = cursor.codeRanges(of: entry, at: offset, into: &ranges) {
                callSite = read
            } else {
                guard var die = libdwDIE(at: offset) else {
                    failed = true
                    return -1
                }
                die.appendRanges(to: &ranges)
                let (file, line) = isInlined ? die.callSite() : (-1, 0)
                callSite = DIECursor.CallSite(file: file, line: line)
            }
            let (callFile, callLine) = isInlined ? (callSite.file, callSite.line) : (-1, 0)
            let rangeCount = ranges.count - rangeStart
            guard rangeCount > 0 else { return recordWithoutCode(entry, in: list) }
            // In a batch, a function or call that holds no wanted address is on no answer's chain:
            // it is left out as a function without code is (its nested functions are still
            // visited). Most of a unit's functions hold none; recording each, and building the
            // tree of them, was a tenth of a small binary's batch. `LibdwScopeWalk` does the same.
            if let wanted, !DecodedUnit.holdsWanted(ranges[rangeStart...], wanted) {
                ranges.removeSubrange(rangeStart...)
                return recordWithoutCode(entry, in: list)
            }
            var childList: Int32 = -1
            if entry.hasChildren { childList = newList(recordingInlined: true) }
            let node = ScopeNode(
                dieOffset: UInt64(offset), parent: -1, isInlined: isInlined, callFile: callFile, callLine: callLine,
                rangeStart: 0, rangeCount: Int32(rangeCount), nameOrigin: callSite.nameOrigin)
            append(Item(node: node, rangeStart: Int32(rangeStart), rangeCount: Int32(rangeCount), childList: childList, next: -1), to: list)
            return childList
        }
        // Functions and inlined calls can sit inside these.
        guard DWARFTag.isContainer(entry.tag), entry.hasChildren else { return -1 }
        let childList = newList(recordingInlined: recordsInlined)
        append(Item(node: nil, rangeStart: 0, rangeCount: 0, childList: childList, next: -1), to: list)
        return childList
    }

    /// libdw's DIE at `offset` of this unit. libdw must be reading these very bytes (not a
    /// decompressed copy), or offsets mean nothing: checked on its unit DIE.
    private mutating func libdwDIE(at offset: Int) -> DwarfDIE? {
        if !askedLibdw {
            askedLibdw = true
            if let found = libdw?.die(at: UInt64(unitDIEOffset)), found.bytes == infoBase + unitDIEOffset { unitDIE = found }
        }
        return unitDIE?.sameUnitDIE(atByte: infoBase + offset)
    }

    /// A function without code is not recorded, but a nested function (a closure) may sit below it.
    private mutating func recordWithoutCode(_ entry: AbbreviationTable.Entry, in list: Int32) -> Int32 {
        guard entry.hasChildren else { return -1 }
        let childList = newList(recordingInlined: false)
        append(Item(node: nil, rangeStart: 0, rangeCount: 0, childList: childList, next: -1), to: list)
        return childList
    }

    /// Builds the nodes in the order of `LibdwScopeWalk`: a stack of (list, parent), lists taken
    /// last-in first-out.
    func replay(into unit: inout DecodedUnit) {
        var lastChild = DecodedUnit.LastChildren()
        var pending: [(list: Int32, parent: Int32)] = [(0, -1)]
        while let (list, parent) = pending.popLast() {
            var current = heads[Int(list)]
            while current >= 0 {
                let item = items[Int(current)]
                current = item.next
                guard var scope = item.node else {
                    pending.append((item.childList, parent))
                    continue
                }
                scope.parent = parent
                let range = Int(item.rangeStart)..<Int(item.rangeStart + item.rangeCount)
                let node = unit.addScope(scope, ranges: ranges[range], lastChild: &lastChild)
                if item.childList >= 0 { pending.append((item.childList, node)) }
            }
        }
    }
}
