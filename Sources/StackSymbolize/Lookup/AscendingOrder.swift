extension [UInt64] {
    /// The positions of the values in ascending order, equal values in the order they come (as a
    /// stable sort has them). Values below 2^44 (every real image's addresses) in arrays under a
    /// million go as single integers, the position in the low bits: sorting those needs no
    /// closure (sorting positions by a closure reading the values was an eightieth of a cold
    /// batch, and a twentieth of loading a symbol table), and by radix: the keys are distinct, so
    /// any sort of them is the stable one (the standard merge sort was 2% of a small binary's batch).
    func ascendingOrder() -> [Int] {
        if isEmpty { return [] }
        // As few position bits as the count needs: the sort skips bytes all keys share.
        let positionBits = UInt64(Swift.max(1, Int.bitWidth - (count - 1).leadingZeroBitCount))
        guard count < 1 << 20, allSatisfy({ $0 < 1 << (64 - positionBits) }) else {
            return indices.sorted { self[$0] < self[$1] }
        }
        var keys = enumerated().map { $1 << positionBits | UInt64($0) }
        keys.radixSort()
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
                counts.withUnsafeMutableBufferPointer { countsBuffer in
                    let counts = countsBuffer.baseAddress!
                    let first = values[0]
                    var differing: UInt64 = 0
                    for value in values { differing |= value ^ first }
                    // The passes' shifts in a fixed tuple, read through a pointer: an array
                    // walked per value (with its iterator and checks) doubled the counting.
                    var shifts: (UInt64, UInt64, UInt64, UInt64, UInt64, UInt64, UInt64, UInt64) = (0, 0, 0, 0, 0, 0, 0, 0)
                    var passes = 0
                    Swift.withUnsafeMutableBytes(of: &shifts) { raw in
                        let shiftList = raw.bindMemory(to: UInt64.self)
                        for shift in stride(from: UInt64(0), to: 64, by: 8) where (differing >> shift) & 0xff != 0 {
                            shiftList[passes] = shift
                            passes += 1
                        }
                        for value in values {
                            var pass = 0
                            while pass < passes {
                                counts[pass &* 256 &+ Int(truncatingIfNeeded: value >> shiftList[pass]) & 0xff] &+= 1
                                pass &+= 1
                            }
                        }
                        var source = values.baseAddress!
                        var target = other.baseAddress!
                        let count = values.count
                        for pass in 0..<passes {
                            let shift = shiftList[pass]
                            let bucketCounts = counts + pass &* 256
                            var position = 0
                            for digit in 0..<256 {
                                let bucket = bucketCounts[digit]
                                bucketCounts[digit] = position
                                position &+= bucket
                            }
                            for at in 0..<count {
                                let value = source[at]
                                let slot = Int(truncatingIfNeeded: value >> shift) & 0xff
                                target[bucketCounts[slot]] = value
                                bucketCounts[slot] &+= 1
                            }
                            swap(&source, &target)
                        }
                        // The last pass may have left the values in the scratch buffer.
                        if source != values.baseAddress! {
                            values.baseAddress!.update(from: source, count: count)
                        }
                    }
                }
            }
        }
    }
}
