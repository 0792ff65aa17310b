import PayloadDecode
import Testing

@testable import SpeedReport

/// Seed section 7, each rule on each side of its threshold.
@Suite struct WorseRulesAtTheirThresholds {
    @Test func intervalNeedsTenPercentAndEightMilliseconds() {
        // 10% and 10 ms: worse. 9%: not. 10% but 7 ms: not (70 → 77); 8 ms: worse (80 → 88).
        #expect(WorseRules.interval(new: 110, old: 100, budget: nil))
        #expect(!WorseRules.interval(new: 109, old: 100, budget: nil))
        #expect(!WorseRules.interval(new: 77, old: 70, budget: nil))
        #expect(WorseRules.interval(new: 88, old: 80, budget: nil))
        #expect(!WorseRules.interval(new: 87.9, old: 80, budget: nil))
    }

    @Test func intervalCrossingItsBudgetIsWorse() {
        // 3% and 1 ms, but past the budget of 33 from under it.
        #expect(WorseRules.interval(new: 34, old: 33, budget: 33))
        #expect(!WorseRules.interval(new: 33, old: 32, budget: 33))
        // Over before and over now by a little: OVER marks it, it is not worse again.
        #expect(!WorseRules.interval(new: 36, old: 35, budget: 33))
    }

    @Test func hangsNeedHalfASecondPerHour() {
        #expect(WorseRules.hangs(new: 1.3, old: 0.8))
        #expect(!WorseRules.hangs(new: 1.2, old: 0.8))
        #expect(WorseRules.longHangAppeared(new: 1, old: 0))
        #expect(!WorseRules.longHangAppeared(new: 0, old: 0))
        #expect(!WorseRules.longHangAppeared(new: 2, old: 1))
    }

    @Test func hitchesNeedTwoMillisecondsPerSecondOrCrossFive() {
        #expect(WorseRules.hitches(new: 3.0, old: 1.0, budget: 5))
        #expect(!WorseRules.hitches(new: 2.9, old: 1.0, budget: 5))
        #expect(WorseRules.hitches(new: 5.1, old: 4.5, budget: 5))
        #expect(!WorseRules.hitches(new: 5.0, old: 4.5, budget: 5))
    }

    @Test func memoryPeakNeedsTenPercentAndTwentyMegabytes() {
        #expect(WorseRules.memoryPeak(new: 220, old: 200))
        #expect(!WorseRules.memoryPeak(new: 219, old: 200))
        // 10% of 150 is 15 MB: under 20 MB, not worse; 20 MB on 150 is.
        #expect(!WorseRules.memoryPeak(new: 165, old: 150))
        #expect(!WorseRules.memoryPeak(new: 169, old: 150))
        #expect(WorseRules.memoryPeak(new: 170, old: 150))
        #expect(WorseRules.memorySteady(new: 301, old: 300, budget: 300))
        #expect(!WorseRules.memorySteady(new: 300, old: 290, budget: 300))
    }

    @Test func onlyNamedCrashSignaturesCanBeNew() {
        #expect(WorseRules.newCrashes(new: ["a <- b", "c"], old: ["c"]) == ["a <- b"])
        #expect(WorseRules.newCrashes(new: ["YuiApp+0x4f10 <- main"], old: []).isEmpty)
    }
}

/// Builds of rows, for the comparisons that need whole figures.
enum Figures {
    /// An interval of `n` samples all in the bucket of `milliseconds`.
    static func interval(_ n: Int, at milliseconds: Double) -> IntervalFigures {
        var counts = [Int](repeating: 0, count: 18)
        counts[BucketHistogram.bucketIndex(milliseconds)] = n
        return IntervalFigures(counts: counts, max: milliseconds)
    }

    static func build(_ number: Int, foregroundHours: Double = 3, hangRate: Double = 1, intervals: [String: IntervalFigures] = [:]) -> BuildFigures {
        var figures = BuildFigures(build: number)
        figures.rows = 10
        figures.foregroundSeconds = foregroundHours * 3600
        figures.hangSecondsWeighted = hangRate * foregroundHours
        figures.hangHours = foregroundHours
        figures.intervals = intervals
        return figures
    }
}

@Suite struct EnoughData {
    @Test func enoughIsTwentySamplesOrTwoForegroundHours() {
        #expect(Figures.build(1, foregroundHours: 2).hasEnoughData)
        #expect(!Figures.build(1, foregroundHours: 1.99).hasEnoughData)
        #expect(Figures.build(1, foregroundHours: 0, intervals: ["swipe": Figures.interval(20, at: 400)]).hasEnoughData)
        #expect(!Figures.build(1, foregroundHours: 0, intervals: ["swipe": Figures.interval(19, at: 400)]).hasEnoughData)
        // Memory samples count 30 s each: 240 samples are 2 hours.
        var samples = Figures.build(1, foregroundHours: 0)
        samples.memorySamples = 240
        #expect(samples.hasEnoughData)
    }

    /// A build below enough data is never compared, however much worse its numbers look.
    @Test func aBuildBelowEnoughDataIsNeverCompared() {
        let old = Figures.build(1, foregroundHours: 5, hangRate: 0.1, intervals: ["swipe": Figures.interval(100, at: 380)])
        let thin = Figures.build(2, foregroundHours: 1.5, hangRate: 9, intervals: ["swipe": Figures.interval(19, at: 900)])
        #expect(BuildComparison.regressions(current: thin, previous: old, budgets: .seed).isEmpty)
        #expect(BuildComparison.regressions(current: old, previous: thin, budgets: .seed).isEmpty)
        // The same numbers with enough data are worse twice over.
        let enough = Figures.build(2, foregroundHours: 2, hangRate: 9, intervals: ["swipe": Figures.interval(20, at: 900)])
        #expect(BuildComparison.regressions(current: enough, previous: old, budgets: .seed).map(\.what) == ["interval:swipe", "hangs"])
    }

    /// An interval under 20 samples in either build is not compared, even when the build has enough data.
    @Test func anIntervalUnderTwentySamplesIsNotCompared() {
        let old = Figures.build(1, intervals: ["swipe": Figures.interval(19, at: 380)])
        let new = Figures.build(2, intervals: ["swipe": Figures.interval(50, at: 900)])
        #expect(BuildComparison.regressions(current: new, previous: old, budgets: .seed).isEmpty)
    }
}

@Suite struct Merging {
    /// Histograms merge by adding counts; p95 comes from the merged counts, capped at the merged max.
    @Test func percentilesComeFromTheMergedHistogram() {
        var merged = Figures.interval(95, at: 10)
        merged.merge(Figures.interval(5, at: 1500))
        #expect(merged.n == 100)
        // Rank 50 lands in (8, 12], which holds 95: 8 + 4 × 50/95.
        #expect(merged.p50.map { abs($0 - (8 + 4 * 50.0 / 95)) < 1e-9 } == true)
        #expect(merged.p95 == 12)  // rank 95 lands on the last sample of (8, 12]
        merged.merge(Figures.interval(1, at: 1500))
        #expect(merged.p95.map { $0 > 1000 && $0 <= 1500 } == true)
    }

    /// Rates are weighted by foreground time: 1 s/h over 1 hour and 4 s/h over 3 hours is 3.25 s/h.
    @Test func ratesAreWeightedByForegroundTime() {
        var tally = ReportTally()
        for (phone, hours, rate) in [("iPhone15,2", 1.0, 1.0), ("iPhone16,1", 3.0, 4.0)] {
            tally.add(Self.row("fg_time", phone: phone, value: hours * 3600))
            tally.add(Self.row("hang_rate", phone: phone, value: rate))
        }
        tally.finish()
        let figures = tally.figures(build: 130)
        #expect(figures?.hangRate == 3.25)
        #expect(figures?.foregroundHours == 4)
        #expect(figures?.phones.count == 2)
    }

    /// Two copies of one payload (same phone and period, other row keys) add up: their CPU with
    /// their foreground time, and their rates share it.
    @Test func copiesOfOnePayloadAddUp() {
        var tally = ReportTally()
        for _ in 0..<2 {
            tally.add(Self.row("fg_time", phone: "iPhone15,2", value: 3600))
            tally.add(Self.row("cpu_time", phone: "iPhone15,2", value: 36))
            tally.add(Self.row("hang_rate", phone: "iPhone15,2", value: 2))
        }
        tally.finish()
        let figures = tally.figures(build: 130)
        #expect(figures?.cpuPercent == 1)
        #expect(figures?.hangRate == 2)
        #expect(figures?.foregroundHours == 2)
    }

    static func row(_ name: String, phone: String, value: Double) -> Row {
        Row(
            user_id: nil, row_key: "00000000-0000-4000-8000-00000000000\(name.count % 10)", kind: .metrics, name: name,
            app_build: 130, app_version: "1.0", os: "26.1", device: phone, promotion: false, low_power: false, thermal: 0,
            period_start: "2026-11-28T08:00:00Z", period_end: "2026-11-29T07:59:00Z", n: 1, buckets: nil, p50: nil,
            p95: nil, max: nil, value: value, stack: nil)
    }
}
