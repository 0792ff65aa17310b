import Foundation
import SymbolNames
import SystemIO

private let none = SymbolIndexFormat.none
/// A file whose string number is not known yet.
private let unread = UInt32.max - 1

extension SymbolIndexBuilder {
    /// What one thread produces over its share of the units.
    struct Part {
        var starts: [UInt64] = []
        var locations: [UInt32] = []
        var table: [Location] = []
        private var stringNumbers = StringInterner()
        private var locationNumbers = WordsInterner()
        /// The number of the first location `locationNumbers` numbers: records are interned per
        /// unit (see `startUnit`).
        private var locationBase: UInt32 = 0
        var strings: [String] { stringNumbers.strings }

        mutating func string(_ text: String?) -> UInt32 {
            guard let text else { return none }
            return stringNumbers.intern(text)
        }

        /// The location records of a direct answer (outermost first, each the parent of the next);
        /// returns the innermost one's index.
        mutating func record(_ answer: RawLookup) -> UInt32 {
            var current = none
            // Neighbouring points mostly share their outer frames (the same function, another
            // line): a frame equal to the previous answer's at the same depth, under the same
            // parents, is that answer's record, found without hashing its strings again.
            var sharing = answer.functionStart == previousStart
            var chain: [(frame: RawFrame, number: UInt32)] = []
            chain.reserveCapacity(answer.frames.count)
            for (position, frame) in answer.frames.reversed().enumerated() {
                if sharing, position < previousChain.count, previousChain[position].frame == frame {
                    current = previousChain[position].number
                } else {
                    sharing = false
                    current = location(
                        Location(
                            name: string(frame.linkageName ?? frame.plainName), file: string(frame.file),
                            line: frame.line.map { UInt32(clamping: $0) } ?? none, parent: current, inlined: frame.isInlined,
                            isLinkage: frame.linkageName != nil, start: position == 0 ? answer.functionStart ?? 0 : 0))
                }
                chain.append((frame, current))
            }
            previousChain = chain
            previousStart = answer.functionStart
            return current
        }

        /// The last recorded answer's frames, outermost first, with their records, and its start.
        private var previousChain: [(frame: RawFrame, number: UInt32)] = []
        private var previousStart: UInt64?

        /// One entry per distinct point, holding the direct lookup's answer there. (A method, not a
        /// closure over the part: a closure capturing it paid a dynamic exclusivity check per access.)
        mutating func add(_ points: [UInt64], of image: DebugImage, givenIndex: Int = -1, givenUnit: DecodedUnit = DecodedUnit()) {
            var previous: UInt64?
            for point in points where point != previous {
                previous = point
                let answer = image.lookup(point, givenIndex: givenIndex, givenUnit: givenUnit)
                starts.append(point)
                locations.append(answer.source == .dwarf ? record(answer) : none)
            }
        }

        /// `add` for the points of `unit` (decoded whole, number `unitIndex`): the same records
        /// the direct lookup's answers make, read from the unit's nodes and file numbers instead of
        /// an answer of strings per point. A name is interned once per DIE or symbol and a file once
        /// per unit, where every point's frames hashed their strings again (half of a build). Points
        /// another unit answers first, or that this one does not answer, take the direct lookup.
        ///
        /// A point another unit answers first goes to that unit's list in `deferred`, answered when
        /// that unit is decoded (for its own points, or once for all such points at the end of the
        /// part): units overlap (swift-driver's unit 203 answers first in ranges ten others share),
        /// and looking such points up one by one decoded the first unit again after every release
        /// of the decoded units, a fifth of swift-driver's decoding.
        ///
        /// `rows` are the unit's line row addresses, `points` every other place (range ends,
        /// symbol and unit map boundaries): between two neighbouring points the chain cannot change,
        /// so a row whose file and line are the previous point's has the previous answer, and is
        /// left out (a third of the rows: columns and statement marks change, lines not).
        mutating func add(
            _ points: [UInt64], rows: [UInt64] = [], of image: DebugImage, unitIndex: Int, unit: DecodedUnit,
            deferred: inout [Int: [UInt64]]
        ) {
            startUnit()
            let map = image.unitMap
            var lineFiles = [UInt32](repeating: unread, count: unit.lineFileNames.count)
            var callFiles = [UInt32](repeating: unread, count: unit.callFileNames.count)
            var chain: [Int32] = []
            let childSearch = ChildRangeSearch(unit)
            var previous: UInt64?
            var rowCursor = AscendingCursor()
            var pieces = AscendingCursor()
            var rowIndex = 0
            var pointIndex = 0
            // The innermost line of the previous point when it was answered here, else nil.
            var previousLine: (file: Int32, line: Int)?? = nil
            var functionStart: UInt64 = 0
            while rowIndex < rows.count || pointIndex < points.count {
                let point: UInt64
                var isRowOnly = false
                if pointIndex < points.count, rowIndex == rows.count || points[pointIndex] <= rows[rowIndex] {
                    point = points[pointIndex]
                    pointIndex += 1
                } else {
                    point = rows[rowIndex]
                    rowIndex += 1
                    isRowOnly = true
                }
                if point == previous { continue }
                previous = point
                let row = unit.locationRow(at: point, cursor: &rowCursor)
                let line = row.map { (file: $0.file, line: $0.line) }
                if isRowOnly, let last = previousLine, last?.file == line?.file, last?.line == line?.line { continue }
                // A row after a point answered here keeps that point's unit, chain, function start
                // and outermost symbol (none of them changes between two points that are no
                // boundary): only the innermost line is new.
                let keepsChain = isRowOnly && previousLine != nil
                previousLine = nil
                let first = keepsChain ? unitIndex : map.firstUnit(containing: point, cursor: &pieces)
                let answersFirst = first == unitIndex
                if keepsChain {
                    // `chain` and `functionStart` as they were.
                } else if answersFirst {
                    unit.scopeChain(at: point, into: &chain, search: childSearch)
                } else {
                    chain.removeAll(keepingCapacity: true)
                }
                if !answersFirst, let other = first {
                    deferred[other, default: []].append(point)
                    continue
                }
                guard answersFirst, !chain.isEmpty else {
                    // No function here (the symbol table names a line-only answer), or another
                    // unit's answer: as the direct lookup gives it.
                    let answer = image.lookup(point, givenIndex: unitIndex, givenUnit: unit)
                    starts.append(point)
                    locations.append(answer.source == .dwarf ? record(answer) : none)
                    previousLocations.removeAll(keepingCapacity: true)
                    continue
                }
                previousLine = .some(line)
                previousChain.removeAll(keepingCapacity: true)
                if !keepsChain { functionStart = unit.start(of: chain[0], containing: point) ?? 0 }
                var parent = none
                for position in chain.indices {
                    let node = unit.nodes[Int(chain[position])]
                    // Named as `DebugImage.lookup` names frames: the outermost by the symbol
                    // covering the address, when there is one.
                    let name: (number: UInt32, isLinkage: Bool)
                    if position == 0, let symbol = symbol(containing: point, of: image) {
                        name = symbolName(symbol, of: image)
                    } else {
                        name = dieName(node.dieOffset, isInlined: node.isInlined, knownOrigin: node.nameOrigin, of: image)
                    }
                    var file = none
                    var line = none
                    if position == chain.count - 1 {
                        if let row {
                            if row.file >= 0 { file = number(of: Int(row.file), in: &lineFiles, unit.lineFileNames) }
                            line = UInt32(clamping: row.line)
                        }
                    } else {
                        let callee = unit.nodes[Int(chain[position + 1])]
                        if callee.callFile >= 0, Int(callee.callFile) < callFiles.count {
                            file = number(of: Int(callee.callFile), in: &callFiles, unit.callFileNames)
                        }
                        line = UInt32(clamping: Int(callee.callLine))
                    }
                    let value = Location(
                        name: name.number, file: file, line: line, parent: parent, inlined: position > 0,
                        isLinkage: name.isLinkage, start: position == 0 ? functionStart : 0)
                    // Neighbouring points mostly share their outer frames: the same record as the
                    // previous point's at this depth is that record, found without hashing it.
                    if position < previousLocations.count, previousLocations[position].value == value {
                        parent = previousLocations[position].number
                    } else {
                        parent = location(value)
                        if position < previousLocations.count {
                            previousLocations[position] = (value, parent)
                            previousLocations.removeSubrange((position + 1)...)
                        } else {
                            previousLocations.append((value, parent))
                        }
                    }
                }
                if previousLocations.count > chain.count { previousLocations.removeSubrange(chain.count...) }
                starts.append(point)
                locations.append(parent)
            }
        }

        /// The previous fast-path point's records by depth (see `add(_:of:unitIndex:unit:)`).
        private var previousLocations: [(value: Location, number: UInt32)] = []
        /// String numbers of names by DIE offset and by symbol, interned when first met (so the
        /// strings are numbered in the order the direct lookups' answers numbered them).
        private var dieNames = WordMap<(number: UInt32, isLinkage: Bool)>()
        /// Kept for the whole build (a few hundred thousand at most): the index's symbol table
        /// takes its names' numbers from here instead of reading and interning every name again.
        private(set) var symbolNames = WordMap<UInt32>()

        /// Lets go of the name numbers by DIE (when the image lets go of its names).
        mutating func forgetNames() { dieNames.removeAll() }

        /// The string number of `symbol`'s name, interned if no location used it.
        mutating func symbolNameNumber(_ symbol: SymbolEntry, of image: DebugImage) -> UInt32 {
            symbolName(symbol, of: image).number
        }

        /// Sorts the entries by start (on the part's own thread: the merge then only interleaves
        /// two sorted lists). Equal starts keep their order. Start offsets and entry numbers packed
        /// in one word sort as plain integers.
        mutating func sortEntries() {
            let lowest = starts.min() ?? 0
            let order: [Int]
            if starts.count < 1 << 32, starts.allSatisfy({ $0 - lowest < 1 << 32 }) {
                var keys = starts.enumerated().map { ($0.element - lowest) << 32 | UInt64($0.offset) }
                keys.sort()
                order = keys.map { Int($0 & 0xFFFF_FFFF) }
            } else {
                order = starts.indices.sorted { starts[$0] < starts[$1] || (starts[$0] == starts[$1] && $0 < $1) }
            }
            starts = order.map { starts[$0] }
            locations = order.map { locations[$0] }
        }

        /// - Parameter knownOrigin: the origin as the unit's walk read it (`ScopeNode.nameOrigin`),
        ///   `.max` to find it here (reading the call's DIE again was 4% of a build thread).
        private mutating func dieName(
            _ offset: UInt64, isInlined: Bool, knownOrigin: UInt64 = .max, of image: DebugImage
        ) -> (number: UInt32, isLinkage: Bool) {
            if let known = dieNames[offset] { return known }
            // An inlined call has its origin's names (`DebugImage.name`): numbered once per origin,
            // not hashed again for every call site (a function inlined in many places).
            var origin: UInt64?
            if isInlined, let found = knownOrigin != .max ? knownOrigin : image.nameOrigin(offset), found != offset {
                if let known = dieNames[found] {
                    dieNames.set(offset, known)
                    return known
                }
                origin = found
            }
            // The origin's own names are the call's (`DebugImage.name(_:isInlined:)` finds the origin
            // again otherwise: 1% of a build thread).
            let names = origin.map { image.name($0) } ?? image.name(offset, isInlined: isInlined)
            let found = (string(names.linkage ?? names.plain), names.linkage != nil)
            dieNames.set(offset, found)
            if let origin { dieNames.set(origin, found) }
            return found
        }

        /// The symbol covering `point`, as `DebugImage.symbol(containing:)` finds it: points come in
        /// address order, and the loaded table's symbols do not overlap, so the last one found
        /// usually covers the next point too.
        private mutating func symbol(containing point: UInt64, of image: DebugImage) -> SymbolEntry? {
            if let last = lastSymbol, point >= last.address, point - last.address < last.size { return last }
            lastSymbol = image.symbol(containing: point)
            return lastSymbol
        }
        private var lastSymbol: SymbolEntry?

        private mutating func symbolName(_ symbol: SymbolEntry, of image: DebugImage) -> (number: UInt32, isLinkage: Bool) {
            let key = UInt64(truncatingIfNeeded: symbol.nameOffset)
            if let known = symbolNames[key] { return (known, true) }
            let number = string(image.name(of: symbol))
            symbolNames.set(key, number)
            return (number, true)
        }

        private mutating func number(of index: Int, in numbers: inout [UInt32], _ names: [String]) -> UInt32 {
            if numbers[index] == unread { numbers[index] = string(names[index]) }
            return numbers[index]
        }

        mutating func dropLocationInterning() {
            locationNumbers = WordsInterner()
            locationBase = UInt32(table.count)
        }

        /// Starts interning records afresh for the next unit. A unit's records are its own: the
        /// outermost carries its function's start and every other its parent, so two units share
        /// one only where their ranges overlap. A table per unit stays in the cache, where probing
        /// one table of every record (1.3 million on sourcekit-lsp) missed it at nearly every frame.
        mutating func startUnit() {
            if locationNumbers.count > 0 { dropLocationInterning() }
        }

        /// For each string that is a name, the string of its simplified form (`none` for the
        /// others, and past the end for strings added since).
        private(set) var simplifiedOf: [UInt32] = []

        /// Simplifies every name of the part's locations, or of `names`, and adds the simplified
        /// forms to its strings (on the thread that made the part, so the two threads share the
        /// work).
        mutating func simplifyNames(_ names: [UInt32]? = nil) {
            var reader = MangledSwiftName()
            for name in names ?? table.map(\.name) where name != none {
                if Int(name) < simplifiedOf.count, simplifiedOf[Int(name)] != none { continue }
                let simplified = string(SymbolName.simplifiedName(strings[Int(name)], using: &reader))
                if simplifiedOf.count < strings.count { simplifiedOf += repeatElement(none, count: strings.count - simplifiedOf.count) }
                simplifiedOf[Int(name)] = simplified
            }
            if simplifiedOf.count < strings.count { simplifiedOf += repeatElement(none, count: strings.count - simplifiedOf.count) }
        }

        /// Takes `other`'s symbol name numbers, its strings numbered as `stringMap` says.
        mutating func adoptSymbolNames(of other: Part, stringMap: [UInt32]) {
            for (key, number) in other.symbolNames.entries where symbolNames[key] == nil {
                symbolNames.set(key, stringMap[Int(number)])
            }
        }

        /// Takes `other`'s simplified names, its strings numbered as `stringMap` says.
        mutating func adoptSimplifiedNames(of other: Part, stringMap: [UInt32]) {
            if simplifiedOf.count < strings.count { simplifiedOf += repeatElement(none, count: strings.count - simplifiedOf.count) }
            for (name, simplified) in other.simplifiedOf.enumerated() where simplified != none {
                let moved = Int(stringMap[name])
                if simplifiedOf[moved] == none { simplifiedOf[moved] = stringMap[Int(simplified)] }
            }
        }

        mutating func location(_ value: Location) -> UInt32 {
            let key = value.key
            let (number, isNew) = locationNumbers.intern(key.0, key.1, key.2, key.3)
            if isNew { table.append(value) }
            return locationBase + number
        }
    }
}
