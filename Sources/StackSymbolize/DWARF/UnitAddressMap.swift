/// Units' address ranges made disjoint: each piece lists the units covering it, smallest range
/// first, so an address finds its unit by one binary search even when units overlap.
struct UnitAddressMap: Equatable {
    var unitOffsets: [UInt64] = []
    private var starts: [UInt64] = []
    private var ends: [UInt64] = []
    private var firstCandidate: [Int32] = []
    private var candidates: [Int32] = []

    /// - Parameter sweeping: builds it by the general sweep even when the ranges are disjoint
    ///   (for tests: both ways must give the same map).
    init(_ units: [UnitRanges], sweeping: Bool = false) {
        var ranges: [(low: UInt64, high: UInt64, unit: Int32)] = []
        for (index, unit) in units.enumerated() {
            unitOffsets.append(unit.unitDIEOffset)
            // A range at 0 is a function the linker dropped; nothing real lives there.
            for range in unit.ranges where range.low != 0 { ranges.append((range.low, range.high, Int32(index))) }
        }
        ranges.sort { $0.low < $1.low }
        if !sweeping, fillDisjoint(ranges) { return }
        // Sweep over range boundaries. (Built on every cold run before any lookup, so it avoids a
        // Set and an allocation per boundary: most pieces have one unit.)
        var boundaries: [UInt64] = []
        boundaries.reserveCapacity(ranges.count * 2)
        for range in ranges {
            boundaries.append(range.low)
            boundaries.append(range.high)
        }
        boundaries.sort()
        var unique = 0
        for value in boundaries where unique == 0 || boundaries[unique - 1] != value {
            boundaries[unique] = value
            unique += 1
        }
        boundaries.removeSubrange(unique...)
        var active: [(high: UInt64, size: UInt64, unit: Int32)] = []
        var units: [Int32] = []
        var next = 0
        for (position, point) in boundaries.enumerated() where position + 1 < boundaries.count {
            if !active.isEmpty { active.removeAll { $0.high <= point } }
            while next < ranges.count, ranges[next].low <= point {
                if ranges[next].high > point {
                    active.append((ranges[next].high, ranges[next].high - ranges[next].low, ranges[next].unit))
                }
                next += 1
            }
            guard !active.isEmpty else { continue }
            let end = boundaries[position + 1]
            units.removeAll(keepingCapacity: true)
            if active.count == 1 {
                units.append(active[0].unit)
            } else {
                // Smallest range first; equal sizes keep their order (the sort is stable).
                units.append(contentsOf: active.sorted { $0.size < $1.size }.map(\.unit))
            }
            if let last = starts.indices.last, ends[last] == point,
                candidates[Int(firstCandidate[last])...].elementsEqual(units)
            {
                ends[last] = end
                continue
            }
            starts.append(point)
            ends.append(end)
            firstCandidate.append(Int32(candidates.count))
            candidates.append(contentsOf: units)
        }
        firstCandidate.append(Int32(candidates.count))
    }

    /// The map when no two ranges overlap and none is empty (most images): each range is a
    /// piece of one unit, joined to the one before when they meet and are of the same unit, as
    /// the sweep makes them. False, leaving the map empty, when the sweep must do it.
    private mutating func fillDisjoint(_ ranges: [(low: UInt64, high: UInt64, unit: Int32)]) -> Bool {
        for (index, range) in ranges.enumerated() {
            guard range.high > range.low, index == 0 || ranges[index - 1].high <= range.low else { return false }
        }
        starts.reserveCapacity(ranges.count)
        ends.reserveCapacity(ranges.count)
        firstCandidate.reserveCapacity(ranges.count + 1)
        candidates.reserveCapacity(ranges.count)
        for range in ranges {
            if let last = ends.indices.last, ends[last] == range.low, candidates[Int(firstCandidate[last])] == range.unit {
                ends[last] = range.high
                continue
            }
            starts.append(range.low)
            ends.append(range.high)
            firstCandidate.append(Int32(candidates.count))
            candidates.append(range.unit)
        }
        firstCandidate.append(Int32(candidates.count))
        return true
    }

    /// Every piece's start and end: where the units covering an address change.
    var boundaries: [UInt64] { starts + ends }

    /// The unit an address is looked up in first (`units(containing:)`'s first), without
    /// making the list.
    func firstUnit(containing address: UInt64) -> Int? {
        var low = 0
        var high = starts.count
        while low < high {
            let middle = (low + high) / 2
            if starts[middle] <= address { low = middle + 1 } else { high = middle }
        }
        guard low > 0, address < ends[low - 1] else { return nil }
        let first = Int(firstCandidate[low - 1])
        return first < Int(firstCandidate[low]) ? Int(candidates[first]) : nil
    }

    /// `firstUnit(containing:)` for addresses that come in ascending order: `cursor` remembers
    /// where the last one was found, and the next is looked for from there (a binary search per
    /// point over every piece of a large image was a twentieth of an index build).
    func firstUnit(containing address: UInt64, cursor: inout AscendingCursor) -> Int? {
        let low = cursor.upperBound(of: address, in: starts)
        guard low > 0, address < ends[low - 1] else { return nil }
        let first = Int(firstCandidate[low - 1])
        return first < Int(firstCandidate[low]) ? Int(candidates[first]) : nil
    }

    func units(containing address: UInt64) -> [Int] {
        var low = 0
        var high = starts.count
        while low < high {
            let middle = (low + high) / 2
            if starts[middle] <= address { low = middle + 1 } else { high = middle }
        }
        guard low > 0, address < ends[low - 1] else { return [] }
        return candidates[Int(firstCandidate[low - 1])..<Int(firstCandidate[low])].map { Int($0) }
    }
}

/// Where the last of ascending addresses fell in a sorted array: the first index whose value
/// is above it. An address lower than the last one is searched for from scratch.
struct AscendingCursor {
    private var upper = 0
    private var last: UInt64 = 0

    /// The first index of `sorted` whose value is above `address` (its count if none).
    mutating func upperBound(of address: UInt64, in sorted: [UInt64]) -> Int {
        if address < last || upper > sorted.count {
            var low = 0
            var high = sorted.count
            while low < high {
                let middle = (low + high) / 2
                if sorted[middle] <= address { low = middle + 1 } else { high = middle }
            }
            upper = low
        } else {
            // Mostly the next few entries; far ahead, a search from here.
            var steps = 0
            while upper < sorted.count, sorted[upper] <= address {
                upper += 1
                steps += 1
                if steps == 8 {
                    var low = upper
                    var high = sorted.count
                    while low < high {
                        let middle = (low + high) / 2
                        if sorted[middle] <= address { low = middle + 1 } else { high = middle }
                    }
                    upper = low
                    break
                }
            }
        }
        last = address
        return upper
    }
}
