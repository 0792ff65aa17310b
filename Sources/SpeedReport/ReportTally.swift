import PayloadDecode

/// Sums rows into per-build figures as they stream in, one part per build, phone and UTC hour of
/// the rows' period end, so the report's window (`--days`) can be cut after every row is read
/// without keeping the rows, and the phones' figures stay apart for resampling by phone
/// (`RegressionConfidence`).
///
/// Rates are weighted by foreground time, and a payload's rate rows (`hang_rate`, `hitch_ratio`,
/// `cpu_time`) only learn their weight from the same payload's `fg_time` row, which may come
/// before or after them: they wait in `payloadRates` until `finish()`.
///
/// Sums of figures are made in the order the rows came (payloads) and of the parts' keys (hours),
/// never in a table's hash order: added in another order, the same rows' sums differed in their last
/// digits from run to run (the summaries file's `hangSecondsWeighted` and `hitchWeighted`).
public struct ReportTally: Sendable {
    struct Part: Hashable, Sendable, Comparable {
        var build: Int
        var hour: Int64
        /// The phone's place in `phoneNames`.
        var phone: Int

        static func < (left: Part, right: Part) -> Bool {
            (left.build, left.hour, left.phone) < (right.build, right.hour, right.phone)
        }
    }

    /// The rows of one payload that need its foreground time. Rows of copies of one payload (same
    /// phone and period, other row keys: a dump edited and sent again) add up, and their rates
    /// share the summed foreground time equally.
    struct PayloadRates: Sendable {
        var part: Part
        var foregroundSeconds: Double?
        var hangRates = 0.0
        var hangRows = 0
        var hitchRatios = 0.0
        var hitchRows = 0
        var cpuSeconds: Double?
    }

    private(set) var parts: [Part: BuildFigures] = [:]
    /// Interval histograms per part by device model and by OS (`report --html`'s table of the
    /// reported build by phone): kept apart from `BuildFigures`, which the summaries file stores.
    private var breakdowns: [Part: [ReportBreakdown.Key: IntervalFigures]] = [:]
    /// Whether `breakdowns` is kept: only the page shows it, and its two lookups by strings for
    /// every interval row were 2% of `report`'s CPU samples over a million rows (perf).
    private let keepsBreakdowns: Bool
    /// Crashes per part by reason (rows without one are not counted): the reported build's crashes
    /// line. Kept apart too: a stored summary counts crashes, not their reasons.
    private var crashCauses: [Part: [CrashCause: Int]] = [:]
    /// The payloads' rates in the order their first row came, and each payload's place there.
    private var payloadRates: [PayloadRates] = []
    private var payloadPlaces: [PayloadKey: Int] = [:]
    /// Phones as `user/device` (rows carry no phone identifier; docs/report.md, "Each figure"), each
    /// once, in the order first seen; `Part.phone` indexes them.
    private var phoneNames: [String] = []
    private var phoneIndex: [String: Int] = [:]
    /// The phones again, by the user and device rows carry: found without joining them.
    private var phoneByKey: [PhoneKey: Int] = [:]
    struct PhoneKey: Hashable, Sendable {
        var user: String?
        var device: String
    }
    /// The last row's phone, by its user and device: rows come a payload at a time, so most rows
    /// repeat it (joining the two into a name for every row was 5% of `report`'s reading thread).
    private var lastPhone: (user: String?, device: String, index: Int)?
    /// The last row's period end and its seconds: a payload's rows share it, and parsing it for
    /// every row was 4% of `report`'s reading thread.
    private var lastPeriodEnd: (text: String, seconds: Int64)?

    /// What the rows of one payload share; two phones' payloads never share it (user, device).
    struct PayloadKey: Hashable, Sendable {
        var user: String?
        var build: Int
        var version: String
        var os: String
        var device: String
        var periodStart: String
        var periodEnd: String
    }
    /// The newest period end of any row, seconds since 1970.
    public private(set) var newestPeriodEnd: Int64?

    /// - Parameter keepsBreakdowns: whether `breakdown(build:fromHour:)` will be asked for (the page's
    ///   table by device model and OS); without it, the breakdown is empty.
    public init(keepsBreakdowns: Bool = true) {
        self.keepsBreakdowns = keepsBreakdowns
    }

    /// Builds that have rows, newest first.
    public var builds: [Int] { Set(parts.keys.map(\.build)).sorted(by: >) }

    /// The hour (since 1970) a row belongs to: that of its period end.
    public static func hour(of row: Row) -> Int64 {
        (Timestamp.parseISO(row.period_end) ?? 0) / 3600
    }

    public mutating func add(_ row: Row) {
        let end: Int64
        if let last = lastPeriodEnd, last.text == row.period_end {
            end = last.seconds
        } else {
            end = Timestamp.parseISO(row.period_end) ?? 0
            lastPeriodEnd = (row.period_end, end)
        }
        newestPeriodEnd = Swift.max(newestPeriodEnd ?? end, end)
        let part = Part(build: row.app_build, hour: end / 3600, phone: phone(of: row))
        let topic = RowTopic(row)
        let interval = topic.hasIntervalHistogram ? row.buckets.map { IntervalFigures(counts: $0, max: row.max) } : nil
        // Changed in place, in the table: one lookup a row, where taking the figures out and putting
        // them back was two and a deletion (`report` over a million rows, whose parts change on most
        // rows). The default is made from the part: made from the row, its closure copied the whole
        // row for every row (perf: 1% of `report`'s CPU samples).
        Self.count(
            row, topic: topic, interval: interval, end: end, phoneName: phoneNames[part.phone],
            into: &parts[part, default: BuildFigures(build: part.build)])
        if keepsBreakdowns, let interval {
            for key in [
                ReportBreakdown.Key(by: .device, value: row.device, interval: row.name),
                ReportBreakdown.Key(by: .os, value: row.os, interval: row.name),
            ] {
                breakdowns[part, default: [:]][key, default: IntervalFigures()].merge(interval)
            }
        }
        switch topic {
        case .metric(.foregroundTime):
            if let seconds = row.value, seconds > 0 {
                updatePayload(row, part) { $0.foregroundSeconds = ($0.foregroundSeconds ?? 0) + seconds }
            }
        case .metric(.hangRate):
            if let rate = row.value {
                updatePayload(row, part) {
                    $0.hangRates += rate
                    $0.hangRows += 1
                }
            }
        case .metric(.hitchRatio):
            if let ratio = row.value {
                updatePayload(row, part) {
                    $0.hitchRatios += ratio
                    $0.hitchRows += 1
                }
            }
        case .metric(.cpuTime):
            if let seconds = row.value { updatePayload(row, part) { $0.cpuSeconds = ($0.cpuSeconds ?? 0) + seconds } }
        case .diagnostic(.crash):
            if let cause = CrashCause(row: row) { crashCauses[part, default: [:]][cause, default: 0] += 1 }
        default:
            break
        }
    }

    /// What one row adds to its part's figures; `interval` is its histogram when it has one.
    private static func count(
        _ row: Row, topic: RowTopic, interval: IntervalFigures?, end: Int64, phoneName: String, into figures: inout BuildFigures
    ) {
        figures.rows += 1
        if figures.phones.isEmpty { figures.phones = [phoneName] }
        if let interval { figures.intervals[row.name, default: IntervalFigures()].merge(interval) }
        switch topic {
        case .metric(.foregroundTime):
            if let seconds = row.value, seconds > 0 { figures.foregroundSeconds += seconds }
        case .metric(.hangRate):
            if let buckets = row.buckets { figures.longHangsInHistograms += buckets.dropFirst(ReportRules.longHangBucket).reduce(0, +) }
        case .metric(.diskWrites):
            if let megabytes = row.value {
                figures.diskWriteMegabytes = (figures.diskWriteMegabytes ?? 0) + megabytes
                figures.diskWritePayloads = (figures.diskWritePayloads ?? 0) + 1
            }
        case .exit:
            // A forged row's count past 2^31 is the table's to refuse; here it is clamped, not trapped on.
            let count = Int(Swift.max(0, Swift.min(row.value ?? Double(row.n), Double(Int32.max))))
            figures.exits = figures.exits ?? [:]
            figures.exits![row.name, default: 0] += count
        case .metric(.memoryPeak):
            if let megabytes = row.value { figures.memoryPeak = Swift.max(figures.memoryPeak ?? megabytes, megabytes) }
        case .memory(.footprint):
            figures.memorySamples += row.n
            if let median = row.value ?? row.p50 {
                let weight = Swift.max(row.n, 1)
                figures.steadyWeighted += median * Double(weight)
                figures.steadySamples += weight
            }
            if let peak = row.max ?? row.value { figures.memoryPeak = Swift.max(figures.memoryPeak ?? peak, peak) }
        case .memory(.warning):
            figures.memoryWarnings += row.value ?? Double(row.n)
        case .memory(.growth):
            if let megabytes = row.value, end >= (figures.growthAt ?? Int64.min) {
                figures.growthAt = end
                figures.growth = megabytes
            }
        case .diagnostic(.crash):
            figures.crashes += 1
        case .diagnostic(.hang):
            figures.hangDiagnostics += 1
            if let seconds = row.value, seconds >= ReportRules.longHangSeconds { figures.longHangsDiagnosed += 1 }
        default:
            break
        }
    }

    /// Records the signature of a crash row already added.
    public mutating func addCrashSignature(_ signature: String, of row: Row) {
        let part = Part(build: row.app_build, hour: Self.hour(of: row), phone: phone(of: row))
        parts[part, default: BuildFigures(build: part.build)].addCrashSignature(signature)
    }

    /// Weighs every payload's rates by its foreground hours. Call once, after the last row.
    public mutating func finish() {
        for rates in payloadRates {
            var figures = parts[rates.part] ?? BuildFigures(build: rates.part.build)
            // A rate without its payload's foreground time (a row file that kept only some rows)
            // weighs one hour: docs/report.md, "Rates".
            if rates.hangRows > 0 {
                let hours = rates.foregroundSeconds.map { $0 / 3600 } ?? Double(rates.hangRows)
                figures.hangSecondsWeighted += rates.hangRates / Double(rates.hangRows) * hours
                figures.hangHours += hours
            }
            if rates.hitchRows > 0 {
                let hours = rates.foregroundSeconds.map { $0 / 3600 } ?? Double(rates.hitchRows)
                figures.hitchWeighted += rates.hitchRatios / Double(rates.hitchRows) * hours
                figures.hitchHours += hours
            }
            if let cpu = rates.cpuSeconds, let foreground = rates.foregroundSeconds {
                figures.cpuSeconds += cpu
                figures.cpuForegroundSeconds += foreground
            }
            parts[rates.part] = figures
        }
        payloadRates = []
        payloadPlaces = [:]
    }

    /// A build's figures over the hours from `firstHour` on (every hour when `nil`), or `nil` when it
    /// has no row there.
    public func figures(build: Int, fromHour firstHour: Int64? = nil) -> BuildFigures? {
        var merged: BuildFigures?
        var phones: Set<String> = []
        var signatures: Set<String> = []
        for (_, figures) in Self.entries(of: parts, build: build, fromHour: firstHour) {
            if merged == nil { merged = BuildFigures(build: build) }
            // The phones and signatures are gathered in sets and sorted once: merging them part by
            // part sorted the union again for each of the build's (phone, hour) parts.
            merged!.mergeSums(figures)
            phones.formUnion(figures.phones)
            signatures.formUnion(figures.crashSignatures)
        }
        merged?.phones = phones.sorted()
        merged?.crashSignatures = signatures.sorted()
        return merged
    }

    /// A build's figures over the hours from `firstHour` on, one per phone, in the order of the
    /// phones' names: what `RegressionConfidence` resamples.
    public func figuresByPhone(build: Int, fromHour firstHour: Int64? = nil) -> [BuildFigures] {
        var byPhone: [Int: BuildFigures] = [:]
        for (part, figures) in Self.entries(of: parts, build: build, fromHour: firstHour) {
            byPhone[part.phone, default: BuildFigures(build: build)].merge(figures)
        }
        return byPhone.sorted { phoneNames[$0.key] < phoneNames[$1.key] }.map(\.value)
    }

    /// A build's entries of a table by part from `firstHour` on (every hour when `nil`), in the
    /// order of their parts, so sums over them come out the same on every run.
    private static func entries<Value>(
        of table: [Part: Value], build: Int, fromHour firstHour: Int64?
    ) -> [(key: Part, value: Value)] {
        table.filter { $0.key.build == build && $0.key.hour >= (firstHour ?? Int64.min) }.sorted { $0.key < $1.key }
    }

    /// A build's interval histograms by device model and by OS over the hours from `firstHour` on.
    public func breakdown(build: Int, fromHour firstHour: Int64? = nil) -> ReportBreakdown {
        var merged: [ReportBreakdown.Key: IntervalFigures] = [:]
        for (_, figures) in Self.entries(of: breakdowns, build: build, fromHour: firstHour) {
            for (key, interval) in figures { merged[key, default: IntervalFigures()].merge(interval) }
        }
        return ReportBreakdown(intervals: merged)
    }

    /// A build's crashes by reason over the hours from `firstHour` on, most first (ties by the
    /// reasons' numbers).
    public func crashCauses(build: Int, fromHour firstHour: Int64? = nil) -> [(cause: CrashCause, count: Int)] {
        var merged: [CrashCause: Int] = [:]
        for (_, causes) in Self.entries(of: crashCauses, build: build, fromHour: firstHour) {
            merged.merge(causes, uniquingKeysWith: +)
        }
        return merged.map { (cause: $0.key, count: $0.value) }.sorted { $0.count != $1.count ? $0.count > $1.count : $0.cause < $1.cause }
    }

    /// The place of the row's phone in `phoneNames`, added when new.
    private mutating func phone(of row: Row) -> Int {
        if let last = lastPhone, last.user == row.user_id, last.device == row.device { return last.index }
        // Found by the row's own strings; the joined name is made once per phone, not for each row
        // whose phone differs from the last row's (most rows of a file that mixes phones).
        let key = PhoneKey(user: row.user_id, device: row.device)
        let index: Int
        if let known = phoneByKey[key] {
            index = known
        } else {
            // Two keys may join into one name (no user and an empty one): the name decides.
            let name = row.phoneName
            if let known = phoneIndex[name] {
                index = known
            } else {
                index = phoneNames.count
                phoneNames.append(name)
                phoneIndex[name] = index
            }
            phoneByKey[key] = index
        }
        lastPhone = (row.user_id, row.device, index)
        return index
    }

    private mutating func updatePayload(_ row: Row, _ part: Part, _ change: (inout PayloadRates) -> Void) {
        // A key of the row's own strings, not one string joined from them per row.
        let key = PayloadKey(
            user: row.user_id, build: row.app_build, version: row.app_version, os: row.os, device: row.device,
            periodStart: row.period_start, periodEnd: row.period_end)
        if let place = payloadPlaces[key] {
            change(&payloadRates[place])
        } else {
            payloadPlaces[key] = payloadRates.count
            payloadRates.append(PayloadRates(part: part))
            change(&payloadRates[payloadRates.count - 1])
        }
    }
}

/// What a row measures, as one value to switch on: its kind with its name's enum where the name is
/// one of a closed set.
private enum RowTopic {
    case interval
    case metric(MetricName)
    case memory(MemorySampleName)
    case diagnostic(DiagnosticName)
    /// `exit_fg_*` and `exit_bg_*` rows.
    case exit
    case other

    /// The row borrowed: an initialiser owns its argument, and the copy of the whole row made
    /// for it, then freed, was 2% of `report`'s CPU samples (perf).
    init(_ row: borrowing Row) {
        if row.kind == .interval {
            self = .interval
        } else if let metric = row.metric {
            self = .metric(metric)
        } else if let sample = row.memorySample {
            self = .memory(sample)
        } else if let diagnostic = row.diagnostic {
            self = .diagnostic(diagnostic)
        } else if row.kind == .metrics, ExitReason.of(rowName: row.name) != nil {
            self = .exit
        } else {
            self = .other
        }
    }

    /// Rows whose buckets are an interval histogram: the phone's intervals and MetricKit's launch
    /// and resume times.
    var hasIntervalHistogram: Bool {
        switch self {
        case .interval, .metric(.launchTime), .metric(.resumeTime): true
        default: false
        }
    }
}

/// The reported build's intervals by device model and by OS: the page's table of who sees what.
public struct ReportBreakdown: Sendable {
    public enum By: String, Sendable, Hashable { case device, os }
    public struct Key: Sendable, Hashable {
        public var by: By
        public var value: String
        public var interval: String
    }
    public var intervals: [Key: IntervalFigures]

    /// The values of one kind (device models, or OS versions), most samples first.
    public func values(by: By) -> [String] {
        var samples: [String: Int] = [:]
        for (key, figures) in intervals where key.by == by { samples[key.value, default: 0] += figures.n }
        return samples.sorted { $0.value != $1.value ? $0.value > $1.value : $0.key < $1.key }.map(\.key)
    }
}
