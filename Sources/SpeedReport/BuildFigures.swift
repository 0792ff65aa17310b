import PayloadDecode

/// One interval's merged histogram: the 18 bucket counts of the `yui_perf` table and the largest
/// sample, so p50 and p95 come from the merged counts (docs/report.md, "Merging").
public struct IntervalFigures: Codable, Sendable, Equatable {
    public var counts: [Int]
    public var max: Double?

    public init(counts: [Int] = [Int](repeating: 0, count: 18), max: Double? = nil) {
        self.counts = counts
        self.max = max
    }

    public var n: Int { counts.reduce(0, +) }
    public var p50: Double? { histogram.percentile(0.5) }
    public var p95: Double? { histogram.percentile(0.95) }

    private var histogram: BucketHistogram { BucketHistogram(counts: counts, max: max) }

    /// Adds counts (`times` times over: a phone drawn more than once by a resample); the merged max
    /// is the larger one.
    mutating func merge(_ other: IntervalFigures, times: Int = 1) {
        for index in counts.indices where index < other.counts.count { counts[index] += other.counts[index] * times }
        if let otherMax = other.max { max = Swift.max(max ?? otherMax, otherMax) }
    }
}

/// Everything the report says about one build, kept as sums so that figures from several rows,
/// hours, inputs or runs merge by adding. The summaries file stores it as it is (`Codable`), so a
/// build stays comparable after its rows are deleted.
///
/// The derived figures (rates, peaks, percentiles) are computed from the sums on demand; the
/// rules behind each are in docs/report.md.
public struct BuildFigures: Codable, Sendable, Equatable {
    public var build: Int
    /// Rows counted (after duplicates were dropped).
    public var rows = 0
    /// Interval histograms by name: the phone's `interval` rows and MetricKit's `launch_mk` and
    /// `resume_mk`.
    public var intervals: [String: IntervalFigures] = [:]
    /// Phones seen, as `user/device` (rows carry no phone identifier; docs/report.md, "Each figure").
    public var phones: [String] = []
    /// Σ `fg_time` seconds.
    public var foregroundSeconds = 0.0
    /// Σ `n` of `mem_footprint` rows: one sample every 30 s in the foreground.
    public var memorySamples = 0
    /// Σ rate × weight and Σ weight (foreground hours of the payload) of `hang_rate` rows.
    public var hangSecondsWeighted = 0.0
    public var hangHours = 0.0
    /// The same for `hitch_ratio` (ms/s).
    public var hitchWeighted = 0.0
    public var hitchHours = 0.0
    /// Σ `cpu_time` seconds and Σ foreground seconds of the payloads that carried one.
    public var cpuSeconds = 0.0
    public var cpuForegroundSeconds = 0.0
    /// Hangs of 1 s or more: counted in `hang_rate` histograms and in `hang` diagnostics. The two
    /// overlap (a diagnosed hang is also in the histogram), so the figure is the larger one.
    public var longHangsInHistograms = 0
    public var longHangsDiagnosed = 0
    /// Largest `mem_peak` value or `mem_footprint` max, MB.
    public var memoryPeak: Double?
    /// Σ median × samples and Σ samples of `mem_footprint` rows (the steady level, MB).
    public var steadyWeighted = 0.0
    public var steadySamples = 0
    /// The newest `mem_growth` row: its period end (seconds since 1970) and MB.
    public var growthAt: Int64?
    public var growth: Double?
    /// Σ `mem_warning` values.
    public var memoryWarnings = 0.0
    public var crashes = 0
    public var hangDiagnostics = 0
    /// Signatures of the build's crashes (symbolicated), to tell a new crash from an old one.
    public var crashSignatures: [String] = []
    /// Σ exits by row name (`exit_fg_watchdog`, …), from `applicationExitMetrics`; `nil` when the
    /// build has no exit rows (and in summaries written before exits were counted).
    public var exits: [String: Int]?
    /// Σ `disk_writes` MB and the payloads that carried one (a payload is one phone's day).
    public var diskWriteMegabytes: Double?
    public var diskWritePayloads: Int?

    public init(build: Int) {
        self.build = build
    }

    // MARK: Derived figures

    public var foregroundHours: Double {
        Swift.max(foregroundSeconds, Double(memorySamples) * 30) / 3600
    }

    /// Enough data (docs/report.md): any interval with 20 samples or more, or 2 foreground hours.
    public var hasEnoughData: Bool {
        foregroundHours >= ReportRules.enoughForegroundHours
            || intervals.values.contains { $0.n >= ReportRules.enoughSamples }
    }

    /// Rates need 2 foreground hours (docs/report.md, "Worse": "2 foreground hours for rates").
    public var hasEnoughForRates: Bool { foregroundHours >= ReportRules.enoughForegroundHours }

    /// Hang seconds per foreground hour.
    public var hangRate: Double? { hangHours > 0 ? hangSecondsWeighted / hangHours : nil }
    /// Scroll hitch ms per s.
    public var hitchRatio: Double? { hitchHours > 0 ? hitchWeighted / hitchHours : nil }
    public var longHangs: Int { Swift.max(longHangsInHistograms, longHangsDiagnosed) }
    /// Steady memory, MB: the sample-weighted mean of the periods' medians.
    public var steadyMemory: Double? { steadySamples > 0 ? steadyWeighted / Double(steadySamples) : nil }
    /// Disk writes per payload (one phone's day), MB.
    public var diskWritesPerDay: Double? {
        guard let megabytes = diskWriteMegabytes, let payloads = diskWritePayloads, payloads > 0 else { return nil }
        return megabytes / Double(payloads)
    }

    /// Exits of one row name per foreground hour; `nil` without foreground time.
    public func exitRate(_ name: String) -> Double? {
        guard foregroundHours > 0 else { return nil }
        return Double(exits?[name] ?? 0) / foregroundHours
    }

    /// `exitRate` for the outputs: `nil` for a build whose rows carry no exit counts at all (iOS 13
    /// payloads), which the report prints as `-` rather than as a rate of 0.
    public func countedExitRate(_ name: String) -> Double? { exits == nil ? nil : exitRate(name) }

    /// CPU time per foreground second, in percent.
    public var cpuPercent: Double? { cpuForegroundSeconds > 0 ? cpuSeconds / cpuForegroundSeconds * 100 : nil }

    // MARK: Merging

    /// Adds another part of the same build (another hour, another input, a stored summary).
    public mutating func merge(_ other: BuildFigures) {
        mergeSums(other)
        if !other.phones.isEmpty { phones = Array(Set(phones).union(other.phones)).sorted() }
        if !other.crashSignatures.isEmpty {
            crashSignatures = Array(Set(crashSignatures).union(other.crashSignatures)).sorted()
        }
    }

    /// `merge` without the phones and the crash signatures, for a caller that gathers those itself.
    /// - Parameters:
    ///   - times: how many times `other` counts (`RegressionConfidence` draws a phone k times).
    ///   - keeping: the intervals to add, every one when `nil` (a resample needs only the items').
    mutating func mergeSums(_ other: BuildFigures, times: Int = 1, keeping: Set<String>? = nil) {
        let weight = Double(times)
        rows += other.rows * times
        for (name, figures) in other.intervals where keeping?.contains(name) ?? true {
            intervals[name, default: IntervalFigures()].merge(figures, times: times)
        }
        foregroundSeconds += other.foregroundSeconds * weight
        memorySamples += other.memorySamples * times
        hangSecondsWeighted += other.hangSecondsWeighted * weight
        hangHours += other.hangHours * weight
        hitchWeighted += other.hitchWeighted * weight
        hitchHours += other.hitchHours * weight
        cpuSeconds += other.cpuSeconds * weight
        cpuForegroundSeconds += other.cpuForegroundSeconds * weight
        longHangsInHistograms += other.longHangsInHistograms * times
        longHangsDiagnosed += other.longHangsDiagnosed * times
        if let peak = other.memoryPeak { memoryPeak = Swift.max(memoryPeak ?? peak, peak) }
        steadyWeighted += other.steadyWeighted * weight
        steadySamples += other.steadySamples * times
        // The newest wins; two phones' rows of the same second give the larger growth, so the
        // figure does not depend on the order parts are merged in.
        if let at = other.growthAt, at > (growthAt ?? Int64.min) || (at == growthAt && (other.growth ?? 0) > (growth ?? 0)) {
            growthAt = at
            growth = other.growth
        }
        memoryWarnings += other.memoryWarnings * weight
        crashes += other.crashes * times
        hangDiagnostics += other.hangDiagnostics * times
        if let otherExits = other.exits {
            exits = (exits ?? [:]).merging(otherExits.mapValues { $0 * times }, uniquingKeysWith: +)
        }
        if let megabytes = other.diskWriteMegabytes { diskWriteMegabytes = (diskWriteMegabytes ?? 0) + megabytes * weight }
        if let payloads = other.diskWritePayloads { diskWritePayloads = (diskWritePayloads ?? 0) + payloads * times }
    }

    // MARK: Checks

    /// The first field no report could have written, or `nil`: a count outside 0...`largestCount`,
    /// a histogram of other than 18 counts, an interval name that is not a row name (the report
    /// prints it), a build number outside `int`. Only the summaries file needs this: figures summed
    /// from rows are in range by construction.
    func problem(largestCount: Int) -> String? {
        guard (0...Int(Int32.max)).contains(build) else { return "build \(build) is outside int" }
        func outside(_ value: Int) -> Bool { value < 0 || value > largestCount }
        let limit = "not a count from 0 to 2^\(largestCount.trailingZeroBitCount)"
        let counts: [(String, Int)] = [
            ("rows", rows), ("memorySamples", memorySamples), ("longHangsInHistograms", longHangsInHistograms),
            ("longHangsDiagnosed", longHangsDiagnosed), ("steadySamples", steadySamples), ("crashes", crashes),
            ("hangDiagnostics", hangDiagnostics),
        ]
        for (field, value) in counts where outside(value) { return "\(field) is \(value), \(limit)" }
        for (name, count) in (exits ?? [:]).sorted(by: { $0.key < $1.key }) {
            guard ExitReason.of(rowName: name) != nil else { return "exits: \(InputText.quoted(name)) is not an exit row name" }
            if outside(count) { return "exits.\(name) is \(count), \(limit)" }
        }
        if let payloads = diskWritePayloads, outside(payloads) { return "diskWritePayloads is \(payloads), \(limit)" }
        for (name, figures) in intervals.sorted(by: { $0.key < $1.key }) {
            guard ColumnPatterns.isName(name) else {
                return "intervals: \(InputText.quoted(name)) is not an interval name (^[a-z][a-z0-9_]{1,40}$)"
            }
            guard figures.counts.count == 18 else { return "intervals.\(name).counts has \(figures.counts.count) counts, not 18" }
            for (index, count) in figures.counts.enumerated() where outside(count) {
                return "intervals.\(name).counts[\(index)] is \(count), \(limit)"
            }
        }
        return nil
    }

    /// Adds a crash's signature (kept sorted and unique, so the summaries file is stable).
    public mutating func addCrashSignature(_ signature: String) {
        if !crashSignatures.contains(signature) {
            crashSignatures.append(signature)
            crashSignatures.sort()
        }
    }
}
