import Foundation
import SymbolNames
import SystemIO

private let none = SymbolIndexFormat.none

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
}
