extension [UInt64] {
    /// The positions of the values in ascending order, equal values in the order they come (as a
    /// stable sort has them). Values below 2^44 (every real image's addresses) in arrays under a
    /// million go as single integers, the position in the low 20 bits: sorting those needs no
    /// closure (sorting positions by a closure reading the values was an eightieth of a cold
    /// batch, and a twentieth of loading a symbol table).
    func ascendingOrder() -> [Int] {
        let positionBits: UInt64 = 20
        guard count < 1 << positionBits, allSatisfy({ $0 < 1 << (64 - positionBits) }) else {
            return indices.sorted { self[$0] < self[$1] }
        }
        var keys = enumerated().map { $1 << positionBits | UInt64($0) }
        keys.sort()
        return keys.map { Int($0 & (1 << positionBits - 1)) }
    }
}

extension [UInt64] {
    /// Sorts in place, by bytes from the lowest (a radix sort) when the array is large: a byte all
    /// values share is skipped, and a unit's addresses differ in three bytes or so, so it is three
    /// passes over the values where a comparison sort makes a dozen (sorting each unit's points was
    /// a twentieth of an index build). The result is `sort()`'s: integers have one order.
    mutating func radixSort() {
        guard count > 512 else {
            sort()
            return
        }
        var scratch = [UInt64](repeating: 0, count: count)
        // One pass finds the bytes in which values differ and counts all of them at once (a
        // count per byte and pass, eight passes, was half of the sort).
        var counts = [Int](repeating: 0, count: 8 * 256)
        withUnsafeMutableBufferPointer { values in
            scratch.withUnsafeMutableBufferPointer { other in
                counts.withUnsafeMutableBufferPointer { counts in
                    let first = values[0]
                    var differing: UInt64 = 0
                    for value in values { differing |= value ^ first }
                    var shifts: [UInt64] = []
                    for shift in stride(from: UInt64(0), to: 64, by: 8) where (differing >> shift) & 0xff != 0 { shifts.append(shift) }
                    for value in values {
                        for (pass, shift) in shifts.enumerated() { counts[pass * 256 + Int(truncatingIfNeeded: value >> shift) & 0xff] += 1 }
                    }
                    var source = values
                    var target = other
                    for (pass, shift) in shifts.enumerated() {
                        let base = pass * 256
                        var position = 0
                        for digit in 0..<256 {
                            let bucket = counts[base + digit]
                            counts[base + digit] = position
                            position += bucket
                        }
                        for value in source {
                            let slot = base + Int(truncatingIfNeeded: value >> shift) & 0xff
                            target[counts[slot]] = value
                            counts[slot] += 1
                        }
                        swap(&source, &target)
                    }
                    // The last pass may have left the values in the scratch buffer.
                    if source.baseAddress != values.baseAddress {
                        values.baseAddress!.update(from: source.baseAddress!, count: values.count)
                    }
                }
            }
        }
    }
}
