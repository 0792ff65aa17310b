/// The sampled starts split by address into up to 2^14 equal buckets: for each, how many samples
/// start before it. An address's count of samples at or below it lies between its bucket's figure
/// and the next one's, a step or two of binary search instead of thirteen (a tenth of a warm run
/// of a million distinct addresses was the search).
struct SampleBuckets {
    private let lowest: UInt64
    private let shift: UInt64
    /// `before[b]`: samples that start below bucket `b`'s first address; one more entry than buckets.
    private let before: [UInt32]

    init(_ samples: [UInt64]) {
        guard let first = samples.first, let last = samples.last else {
            lowest = 0
            shift = 63
            before = [0, 0]
            return
        }
        lowest = first
        var shift: UInt64 = 0
        while (last - first) >> shift >= 1 << 14 { shift += 1 }
        self.shift = shift
        let buckets = Int((last - first) >> shift) + 1
        var before = [UInt32](repeating: 0, count: buckets + 1)
        var sample = 0
        for bucket in 0...buckets {
            let bucketStart = first &+ (UInt64(bucket) << shift)
            while sample < samples.count, samples[sample] < bucketStart { sample += 1 }
            before[bucket] = UInt32(sample)
        }
        self.before = before
    }

    /// The bounds (low, high) of the count of samples at or below `address`: the samples of its
    /// bucket are the only ones left to compare.
    @inline(__always) func candidates(_ address: UInt64, sampleCount: Int) -> (Int, Int) {
        guard address >= lowest else { return (0, 0) }
        let bucket = (address - lowest) >> shift
        guard bucket < UInt64(before.count - 1) else { return (Int(before[before.count - 1]), sampleCount) }
        return (Int(before[Int(bucket)]), Int(before[Int(bucket) + 1]))
    }
}
