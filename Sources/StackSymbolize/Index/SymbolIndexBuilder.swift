import Foundation
import SymbolNames
import SystemIO

private let none = SymbolIndexFormat.none
/// A file whose string number is not known yet.
private let unread = UInt32.max - 1

/// Builds the index of one debug image.
enum SymbolIndexBuilder {
    struct Location: Hashable {
        var name: UInt32
        var file: UInt32
        var line: UInt32
        var parent: UInt32
        var inlined: Bool
        var isLinkage: Bool
        var start: UInt64

        /// The record as the interning table's key: every field, packed without loss.
        var key: (UInt64, UInt64, UInt64, UInt8) {
            (UInt64(name) << 32 | UInt64(file), UInt64(line) << 32 | UInt64(parent), start, (inlined ? 1 : 0) | (isLinkage ? 2 : 0))
        }
    }

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
                let simplified = string(NameCache.simplifiedName(strings[Int(name)], using: &reader))
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

    /// The entries of the units `units` of `image`: one per place where the answer may change (a
    /// line row, a function's or inlined call's range end, a unit's range end, and `extraPoints`:
    /// symbol starts and ends, since outermost names and line-only answers come from the symbol
    /// table). Each entry holds exactly what the direct lookup (`DebugImage.lookup`) answers there,
    /// so an index can never say something else than the debug file; between two points that
    /// answer cannot change. Entries are not deduplicated here: the merge does it once the parts'
    /// points are interleaved.
    static func part(
        _ image: DebugImage, units: [Int], extraPoints: [[UInt64]], outsideUnits: [UInt64], outsideSymbols: [SymbolEntry]
    ) -> Part {
        var part = Part()
        // What the units read leaves behind (the file's resident pages, libdw's data for every unit
        // it has read, the names read) is let go every sixteenth of the units: a build reads the
        // whole file, and each thread has its own mapping of it, libdw handle and name caches.
        let releaseEvery = max(units.count / 16, 1)
        var done = 0
        var deferred: [Int: [UInt64]] = [:]
        for unitIndex in units {
            if done > 0, done % releaseEvery == 0 {
                image.releaseBatchMemory(renewingLibdw: false)
                part.forgetNames()
            }
            done += 1
            let unit = image.wholeUnit(unitIndex)
            var boundaries: [UInt64] = []
            boundaries.reserveCapacity(unit.nodeRanges.count * 2 + extraPoints[unitIndex].count)
            for range in unit.nodeRanges where range.low != 0 {
                boundaries.append(range.low)
                boundaries.append(range.high)
            }
            boundaries += extraPoints[unitIndex]
            if let handed = deferred.removeValue(forKey: unitIndex) { boundaries += handed }
            boundaries.radixSort()
            part.add(boundaries, rows: unit.lineAddress, of: image, unitIndex: unitIndex, unit: unit, deferred: &deferred)
        }
        // Points of units done already, or of the other part's: each such unit decoded once more.
        while let unitIndex = deferred.keys.min() {
            let points = deferred.removeValue(forKey: unitIndex)!.sorted()
            part.add(points, of: image, unitIndex: unitIndex, unit: image.wholeUnit(unitIndex), deferred: &deferred)
        }
        part.add(outsideUnits, of: image)
        // The names of symbols no unit covers (no location names them) are read, interned and
        // simplified here too, on both threads, for the index's symbol table.
        let outsideNames = outsideSymbols.map { part.symbolNameNumber($0, of: image) }
        part.simplifyNames()
        part.simplifyNames(outsideNames)
        part.sortEntries()
        return part
    }

    /// The units each of `threads` threads of a build takes: in file order, each unit to the
    /// thread with the fewest DIE bytes so far. Units run from a few bytes to megabytes: halves by
    /// count or by bytes left one thread idle for a fifth of the build, every other unit for a
    /// tenth. Fixed by the file alone, so each part's numbering, and the index, is the same file
    /// every build.
    ///
    /// The first thread (the calling one) takes a smaller share, `firstShare` of the bytes: after
    /// the parts it merges them and writes the index alone, a tenth of the work (swift-driver:
    /// 1.34 billion instructions on it against 1.12 on the second thread with equal shares).
    static let firstShare = 0.45

    static func shares(of image: DebugImage, threads: Int, runLength: Int = 8) -> [[Int]] {
        let offsets = image.unitMap.unitOffsets
        var shares = [[Int]](repeating: [], count: threads)
        var loads = [UInt64](repeating: 0, count: threads)
        // Each thread's load counted against its share: the first one's weighs more.
        let others = threads > 1 ? (1 - firstShare) / Double(threads - 1) : 1
        let weights = (0..<threads).map { $0 == 0 && threads > 1 ? others / firstShare : 1 }
        func weighted(_ thread: Int) -> Double { Double(loads[thread]) * weights[thread] }
        // Runs of neighbouring units go to one thread: a point at a unit's edge is often answered
        // by the next unit, which the thread then decodes once for both (`DebugImage.wholeUnit`).
        for run in stride(from: 0, to: offsets.count, by: runLength) {
            let runEnd = min(run + runLength, offsets.count)
            let end = runEnd < offsets.count ? offsets[runEnd] : UInt64(image.debugInfoSize)
            let size = end > offsets[run] ? end - offsets[run] : 0
            let lightest = loads.indices.min { weighted($0) < weighted($1) } ?? 0
            shares[lightest].append(contentsOf: run..<runEnd)
            loads[lightest] += size
        }
        return shares
    }

    /// Builds the index with two threads (each its own libdw handle and share of the units) and writes it
    /// to `path` through a temporary name and a rename, so a reader never sees half a file and two
    /// builders racing both end with a whole one.
    static func build(_ image: DebugImage, to path: String) throws(SymbolizeError) {
        // A file direct mode refuses gets no index either: the same error, never answers.
        if let problem = image.dwarfProblem { throw SymbolizeError.corrupt(path: image.path, problem) }
        let count = image.unitCount
        let symbols = image.functionSymbols
        // Symbol starts and ends inside the units' ranges (outside them the index's own symbol
        // table answers, as the direct path's fallback does), and the units' own range ends: each
        // goes with the unit the direct lookup tries first there, so it is answered while that
        // unit is decoded (answered apart, they decoded the units again, in address order).
        var unitPoints = [[UInt64]](repeating: [], count: count)
        var outsideUnits: [UInt64] = []
        let map = image.unitMap
        func assign(_ point: UInt64) {
            if let unit = map.firstUnit(containing: point) { unitPoints[unit].append(point) } else { outsideUnits.append(point) }
        }
        // Symbols no unit covers, every other one to each thread to name.
        var outsideSymbols: [[SymbolEntry]] = [[], []]
        for (index, symbol) in symbols.enumerated() {
            var covered = false
            for point in [symbol.address, symbol.address &+ symbol.size] {
                if let unit = map.firstUnit(containing: point) {
                    unitPoints[unit].append(point)
                    covered = true
                }
            }
            if !covered { outsideSymbols[index % 2].append(symbol) }
        }
        for point in map.boundaries { assign(point) }
        outsideUnits.sort()
        var first: Part
        var others: [Part] = []
        if count >= 8, ProcessInfo.processInfo.activeProcessorCount > 1, let second = try? image.reopened() {
            let shares = shares(of: image, threads: 2)
            let secondHalf = SecondThread { [unitPoints, outsideSymbols] in
                part(second, units: shares[1], extraPoints: unitPoints, outsideUnits: [], outsideSymbols: outsideSymbols[1])
            }
            first = part(image, units: shares[0], extraPoints: unitPoints, outsideUnits: outsideUnits, outsideSymbols: outsideSymbols[0])
            others = [secondHalf.join()]
        } else {
            first = part(
                image, units: Array(0..<count), extraPoints: unitPoints, outsideUnits: outsideUnits,
                outsideSymbols: outsideSymbols[0] + outsideSymbols[1])
        }
        try write(merge(consume first, consume others), symbols: symbols, image: image, textBase: image.textBase, to: path)
    }

    /// One table from several parts: strings renumbered, locations appended (the parts' units
    /// are disjoint, and so nearly all their locations: sourcekit-lsp's two parts shared 3,515 of
    /// 1.3 million, which re-interning every location to find cost a sixth of a build), entries
    /// sorted by address. The first part is taken over, not copied (its tables are the largest
    /// allocations of a build).
    static func merge(_ first: consuming Part, _ others: consuming [Part]) -> Part {
        var merged = first
        while let other = others.popLast() {
            let otherStrings = other.strings
            var stringMap = [UInt32](repeating: none, count: otherStrings.count)
            for (number, string) in otherStrings.enumerated() { stringMap[number] = merged.string(string) }
            let base = UInt32(merged.table.count)
            merged.table.reserveCapacity(merged.table.count + other.table.count)
            for location in other.table {
                var moved = location
                moved.name = location.name == none ? none : stringMap[Int(location.name)]
                moved.file = location.file == none ? none : stringMap[Int(location.file)]
                moved.parent = location.parent == none ? none : location.parent + base
                merged.table.append(moved)
            }
            merged.adoptSimplifiedNames(of: other, stringMap: stringMap)
            merged.adoptSymbolNames(of: other, stringMap: stringMap)
            // Both lists are sorted (`sortEntries`): interleave them, the merged one first at equal
            // starts, as one sort of both would order them.
            var starts: [UInt64] = []
            var locations: [UInt32] = []
            starts.reserveCapacity(merged.starts.count + other.starts.count)
            locations.reserveCapacity(starts.capacity)
            var mine = 0
            var theirs = 0
            while mine < merged.starts.count || theirs < other.starts.count {
                if theirs == other.starts.count || (mine < merged.starts.count && merged.starts[mine] <= other.starts[theirs]) {
                    starts.append(merged.starts[mine])
                    locations.append(merged.locations[mine])
                    mine += 1
                } else {
                    starts.append(other.starts[theirs])
                    let location = other.locations[theirs]
                    locations.append(location == none ? none : location + base)
                    theirs += 1
                }
            }
            merged.starts = starts
            merged.locations = locations
        }
        // Every location is numbered: the interning table (a key and a slot per location, a fifth of
        // a build's memory) is not needed past here.
        merged.dropLocationInterning()
        // Entries at the same start hold the same answer (both are the direct lookup's at that
        // address), so either may stay.
        var starts: [UInt64] = []
        var locations: [UInt32] = []
        starts.reserveCapacity(merged.starts.count)
        locations.reserveCapacity(merged.starts.count)
        for index in merged.starts.indices {
            if let last = starts.last, last == merged.starts[index] { continue }
            if let last = locations.last, last == merged.locations[index] { continue }
            starts.append(merged.starts[index])
            locations.append(merged.locations[index])
        }
        merged.starts = starts
        merged.locations = locations
        return merged
    }

    private static func write(
        _ part: consuming Part, symbols: [SymbolEntry], image: DebugImage, textBase: UInt64, to path: String
    ) throws(SymbolizeError) {
        // The part is taken over: adding the symbol names to its strings copies nothing.
        var withSymbols = consume part
        // Most symbols name a location's outermost frame already.
        let symbolNameIndexes = symbols.map { withSymbols.symbolNameNumber($0, of: image) }
        // The locations' names are simplified already; the symbols' are mostly the same names.
        withSymbols.simplifyNames(symbolNameIndexes)
        let simplifiedOf = withSymbols.simplifiedOf
        let strings = withSymbols.strings
        let part = withSymbols
        // The string bytes go to the file string by string (a blob of them all was 33 MB more at
        // the peak of a build); only their offsets are counted first.
        var blobCount = 0
        var offsets: [UInt32] = []
        offsets.reserveCapacity(strings.count + 1)
        for string in strings {
            offsets.append(UInt32(truncatingIfNeeded: blobCount))
            blobCount += string.utf8.count
        }
        offsets.append(UInt32(truncatingIfNeeded: blobCount))
        // Starts are written as 32-bit offsets from the lowest one (SymbolIndexFormat).
        // (Plain loops: lazy maps, filters and closures over 1.3 million records were a quarter of
        // the write.)
        var lowestStart = UInt64.max
        var highestStart: UInt64 = 0
        for location in part.table where location.start != 0 {
            lowestStart = min(lowestStart, location.start)
            highestStart = max(highestStart, location.start)
        }
        let addressBase = min(part.starts.first ?? textBase, lowestStart)
        func offset(_ address: UInt64) -> UInt32? {
            guard address >= addressBase, address - addressBase < UInt64(UInt32.max) else { return nil }
            return UInt32(address - addressBase)
        }
        // Symbols are stored as 32-bit offsets from the lowest and 32-bit sizes.
        var symbolBase = UInt64.max
        var symbolsFit = true
        for symbol in symbols { symbolBase = min(symbolBase, symbol.address) }
        if symbols.isEmpty { symbolBase = 0 }
        for symbol in symbols where symbol.address - symbolBase >= UInt64(UInt32.max) || symbol.size >= UInt64(UInt32.max) {
            symbolsFit = false
        }
        guard part.table.count < Int(SymbolIndexFormat.parentMask), blobCount < Int(UInt32.max), offset(part.starts.last ?? addressBase) != nil,
            lowestStart == .max || offset(highestStart) != nil, symbolsFit
        else {
            throw SymbolizeError.unsupported(path: path, SymbolIndexFormat.imageTooLarge)
        }
        let temporary = SymbolIndexCache.temporaryPath(for: path)
        // Registered before it exists, so a signal at any point after removes it.
        TemporaryFiles.register(temporary)
        defer { TemporaryFiles.unregister(temporary) }
        let descriptor: Int32
        do {
            descriptor = try FileIO.createNew(temporary, mode: 0o666)
        } catch {
            throw SymbolizeError.indexNotWritten(path: temporary, "cannot write the symbol index: \(error.reason)")
        }
        var file = IndexFileWriter(descriptor: descriptor, path: temporary)
        file.append(SymbolIndexFormat.magic)
        file.append(SymbolIndexFormat.version)
        file.append(UInt32(0))
        file.append(UInt64(part.starts.count))
        file.append(UInt64(part.table.count))
        file.append(UInt64(symbols.count))
        file.append(UInt64(strings.count))
        file.append(UInt64(blobCount))
        file.append(textBase)
        file.append(addressBase)
        file.append(symbolBase)
        // Arrays go to the file whole: a value at a time was a tenth of a build.
        file.append(words: part.starts.map { offset($0)! })
        file.pad()
        file.append(words: part.locations)
        file.pad()
        var locationWords: [UInt32] = []
        locationWords.reserveCapacity(part.table.count * 5)
        for location in part.table {
            locationWords.append(location.name)
            locationWords.append(location.file)
            locationWords.append(location.line)
            let parent = location.parent == none ? SymbolIndexFormat.parentMask : location.parent
            locationWords.append(
                parent | (location.inlined ? SymbolIndexFormat.inlinedFlag : 0) | (location.isLinkage ? SymbolIndexFormat.linkageFlag : 0))
            locationWords.append(location.start == 0 ? UInt32(0) : offset(location.start)! + 1)
        }
        file.append(words: locationWords)
        locationWords = []
        file.pad()
        var symbolWords: [UInt32] = []
        symbolWords.reserveCapacity(symbols.count * 3)
        for (index, symbol) in symbols.enumerated() {
            symbolWords.append(UInt32(symbol.address - symbolBase))
            symbolWords.append(UInt32(symbol.size))
            symbolWords.append(symbolNameIndexes[index])
        }
        file.append(words: symbolWords)
        file.append(words: offsets)
        file.append(words: simplifiedOf)
        file.pad()
        for string in strings { file.append(utf8: string) }
        file.pad()
        for position in stride(from: 0, to: part.starts.count, by: SymbolIndex.blockSize) { file.append(offset(part.starts[position])!) }
        file.pad()
        let written = file.finish()
        close(descriptor)
        guard written else {
            unlink(temporary)
            throw SymbolizeError.indexNotWritten(path: temporary, "cannot write the symbol index")
        }
        if case .failure(let failure) = SystemCall.valueOrErrno({ rename(temporary, path) }) {
            unlink(temporary)
            throw .indexNotWritten(path: path, "cannot move the symbol index into place: \(failure.text)")
        }
    }
}

/// The index file written as it is made, through a 1 MB buffer, its checksum taken on the way: the
/// whole index built in memory first was the largest allocation at the end of a build (75 MB for
/// sourcekit-lsp's). Bytes, not `Data`: appending to Data integer by integer was a sixth of a build.
private struct IndexFileWriter {
    let descriptor: Int32
    let path: String
    private var buffer: [UInt8] = []
    /// Bytes appended so far (for the 8-byte paddings).
    private var total = 0
    private var checksum = IndexChecksum()
    private var failed = false
    private static let chunk = 1 << 20

    init(descriptor: Int32, path: String) {
        self.descriptor = descriptor
        self.path = path
        buffer.reserveCapacity(Self.chunk + 64)
    }

    mutating func append<T: FixedWidthInteger>(_ value: T) {
        withUnsafeBytes(of: value.littleEndian) { buffer.append(contentsOf: $0) }
        total += MemoryLayout<T>.size
        if buffer.count >= Self.chunk { flush(checksummed: true) }
    }

    /// 32-bit words, little-endian, in bulk.
    mutating func append(words: [UInt32]) {
        #if _endian(big)
        for word in words { append(word) }
        return
        #endif
        words.withUnsafeBytes { bytes in
            var start = 0
            while start < bytes.count {
                let end = min(bytes.count, start + Self.chunk)
                buffer.append(contentsOf: UnsafeRawBufferPointer(rebasing: bytes[start..<end]))
                total += end - start
                start = end
                if buffer.count >= Self.chunk { flush(checksummed: true) }
            }
        }
    }

    mutating func append(utf8 text: String) {
        var text = text
        text.withUTF8 { buffer.append(contentsOf: $0) }
        total += text.utf8.count
        if buffer.count >= Self.chunk { flush(checksummed: true) }
    }

    mutating func pad() { while total % 8 != 0 { append(UInt8(0)) } }

    /// Writes what is left and the checksum of everything before it; false when a write failed.
    mutating func finish() -> Bool {
        flush(checksummed: true)
        withUnsafeBytes(of: checksum.value.littleEndian) { write($0, checksummed: false) }
        return !failed
    }

    private mutating func flush(checksummed: Bool) {
        guard !buffer.isEmpty else { return }
        // Swapped out while written, so the same storage is reused for the next chunk.
        var pending: [UInt8] = []
        swap(&pending, &buffer)
        pending.withUnsafeBytes { write($0, checksummed: checksummed) }
        pending.removeAll(keepingCapacity: true)
        swap(&pending, &buffer)
    }

    private mutating func write(_ bytes: UnsafeRawBufferPointer, checksummed: Bool) {
        if checksummed { checksum.add(bytes) }
        guard !failed, bytes.count > 0 else { return }
        if (try? FileIO.writeAll(descriptor, bytes, path: path)) == nil { failed = true }
    }
}
