/// The 18-bucket histogram of the `yui_perf` table (docs/design.md, "Rows") and its percentiles.
public struct BucketHistogram: Sendable, Equatable {
    /// Upper edges in ms of the first 17 buckets; the 18th holds everything above 5000.
    public static let edges: [Double] = [2, 4, 8, 12, 16, 24, 33, 50, 75, 100, 150, 250, 400, 600, 1000, 2000, 5000]

    public private(set) var counts = [Int](repeating: 0, count: 18)
    /// Largest value added with a count, in ms; `nil` while empty.
    public private(set) var max: Double?

    public init() {}

    /// A histogram from stored counts (a row's `buckets`, or a merge of them) and the largest
    /// sample. Without a max (a row that left it null) the highest non-empty bucket's upper edge
    /// stands in, 5000 ms for the top bucket, so percentiles stay inside the data's buckets.
    public init(counts: [Int], max: Double?) {
        var stored = [Int](repeating: 0, count: 18)
        for (index, count) in counts.prefix(18).enumerated() { stored[index] = Swift.max(0, count) }
        self.counts = stored
        guard let highest = stored.lastIndex(where: { $0 > 0 }) else { return }
        self.max = max ?? Self.edges[Swift.min(highest, 16)]
    }

    /// Index of the bucket holding `milliseconds`: the first whose edge is ≥ it (Prometheus `le`).
    public static func bucketIndex(_ milliseconds: Double) -> Int {
        for (index, edge) in edges.enumerated() where milliseconds <= edge { return index }
        return 17
    }

    /// Adds `count` samples of `milliseconds`.
    public mutating func add(_ milliseconds: Double, count: Int) {
        guard count > 0 else { return }
        counts[Self.bucketIndex(milliseconds)] += count
        max = Swift.max(max ?? milliseconds, milliseconds)
    }

    public var n: Int { counts.reduce(0, +) }

    /// The value at quantile `q` (0…1): rank `q·n`, the bucket where the cumulative count reaches
    /// it, linear interpolation between the bucket's lower and upper edge (the top bucket's upper
    /// edge is `max`), capped at `max` (docs/design.md, "Rows", "Percentiles").
    public func percentile(_ q: Double) -> Double? {
        let total = n
        guard total > 0, let max else { return nil }
        let rank = q * Double(total)
        var cumulative = 0
        for (index, count) in counts.enumerated() where count > 0 {
            if Double(cumulative + count) >= rank {
                let lower = index == 0 ? 0 : Self.edges[index - 1]
                let upper = index == 17 ? Swift.max(max, lower) : Self.edges[index]
                let fraction = (rank - Double(cumulative)) / Double(count)
                return Swift.min(lower + (upper - lower) * Swift.max(0, fraction), max)
            }
            cumulative += count
        }
        return max
    }
}
