import Foundation
import PayloadDecode

/// How sure each worse item is (docs/report.md, "Confidence"): the share of resamples in which the
/// rule still fires when each build's phones are drawn again.
///
/// A phone's rows stay together: one phone's samples are not independent (the same device, the
/// same person, the same threads), so the unit that varies from build to build is the phone. Each
/// resample takes every phone of a build k times, k drawn from Poisson(1) (the Poisson bootstrap:
/// as many phones on average as the build has, each phone drawn independently), for both builds,
/// and applies the same rule, its floors included (20 samples, 2 foreground hours), to the summed
/// figures. A resample left without enough data does not fire. So with few phones the confidence
/// stays low whatever the step: with three phones of eight samples each, one resample in three or
/// so keeps 20 samples in both builds.
///
/// The work is on the phones' merged figures, never on rows: a resample adds a few hundred numbers
/// per phone, and only the figures of the items that fired.
public enum RegressionConfidence {
    /// Resamples per report: the confidence is a multiple of 1/500, within about ±0.013 of the
    /// share an endless number would give at 0.9.
    public static let resamples = 500
    /// The same rows give the same confidence in every run.
    static let seed: UInt64 = 0x79_7569_7065_7266

    /// One build as the resampling sees it: its figures per phone, or one whole figure that stays
    /// as it is (a build known only by its stored summary, whose phones are gone).
    public struct Phones: Sendable {
        public var figures: [BuildFigures]
        public var resampled: Bool

        public static func byPhone(_ figures: [BuildFigures]) -> Phones { Phones(figures: figures, resampled: true) }
        public static func fixed(_ figures: BuildFigures) -> Phones { Phones(figures: [figures], resampled: false) }
    }

    /// The confidence of each regression, in their order; `nil` for all of them when neither build
    /// can be resampled.
    static func confidences(
        of regressions: [Regression], current: Phones, previous: Phones, budgets: ReportBudgets
    ) -> [Double?] {
        guard !regressions.isEmpty else { return [] }
        guard current.resampled || previous.resampled else { return regressions.map { _ in nil } }
        let build = current.figures.first?.build ?? 0
        let previousBuild = previous.figures.first?.build ?? 0
        let needs = Needs(regressions)
        var random = SplitMix64(seed: seed)
        var fired = [Int](repeating: 0, count: regressions.count)
        for _ in 0..<resamples {
            let currentWeights = weights(current, &random)
            let previousWeights = weights(previous, &random)
            let new = needs.figures(build: build, phones: current.figures, weights: currentWeights, crashes: true)
            let old = needs.figures(build: previousBuild, phones: previous.figures, weights: previousWeights, crashes: false)
            let found = Set(BuildComparison.regressions(current: new, previous: old, budgets: budgets).map(\.identity))
            for (index, regression) in regressions.enumerated() where found.contains(regression.identity) {
                fired[index] += 1
            }
        }
        return fired.map { Double($0) / Double(resamples) }
    }

    /// How many times each phone is taken: Poisson(1) each, or once each for a fixed build.
    private static func weights(_ phones: Phones, _ random: inout SplitMix64) -> [Int] {
        guard phones.resampled else { return [Int](repeating: 1, count: phones.figures.count) }
        return phones.figures.map { _ in random.poissonOne() }
    }

    /// The figures a resample must sum: the intervals the items name (every interval when a crash
    /// item needs to know whether the build has enough data), and the crash signatures that are new.
    private struct Needs {
        var intervals: Set<String>?
        var signatures: Set<String>

        init(_ regressions: [Regression]) {
            var names: Set<String> = []
            var signatures: Set<String> = []
            for regression in regressions {
                if let name = regression.intervalName { names.insert(name) }
                if let signature = regression.signature { signatures.insert(signature) }
            }
            intervals = signatures.isEmpty ? names : nil
            self.signatures = signatures
        }

        /// The build's figures with each phone counted `weights[i]` times, as far as the rules
        /// read them. The previous build's signatures are left out: a new signature is one that
        /// build never had, so its resamples cannot have it either.
        func figures(build: Int, phones: [BuildFigures], weights: [Int], crashes: Bool) -> BuildFigures {
            var sum = BuildFigures(build: build)
            var signaturesSeen: Set<String> = []
            for (phone, weight) in zip(phones, weights) where weight > 0 {
                sum.mergeSums(phone, times: weight, keeping: intervals)
                if crashes, !signatures.isEmpty {
                    for signature in phone.crashSignatures where signatures.contains(signature) { signaturesSeen.insert(signature) }
                }
            }
            sum.crashSignatures = signaturesSeen.sorted()
            return sum
        }
    }
}

extension Regression {
    /// At or above `minimum`, or of unknown confidence (kept: nothing says it is noise).
    public func isConfident(_ minimum: Double) -> Bool {
        (confidence ?? 1) >= minimum - ReportRules.tolerance
    }

    /// What makes two findings the same item: the rule, and for a crash its signature (an
    /// interval's text carries its numbers, which differ from resample to resample).
    var identity: String { what == "crash" ? "crash\n" + (signature ?? "") : what }

    /// The interval an `interval:NAME` item is about.
    var intervalName: String? { what.hasPrefix("interval:") ? String(what.dropFirst("interval:".count)) : nil }
}

/// A small seeded generator (SplitMix64), so a resample is the same on every machine and run.
struct SplitMix64 {
    private var state: UInt64

    init(seed: UInt64) { state = seed }

    mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }

    /// Uniform in [0, 1), from the top 53 bits.
    mutating func unit() -> Double { Double(next() >> 11) * 0x1p-53 }

    /// A draw from Poisson(1), by inversion of its distribution function.
    mutating func poissonOne() -> Int {
        let draw = unit()
        var probability = exp(-1.0)
        var cumulative = probability
        var k = 0
        while draw >= cumulative && k < 20 {
            k += 1
            probability /= Double(k)
            cumulative += probability
        }
        return k
    }
}

/// How the outputs name a worse item and its confidence.
enum ConfidenceWords {
    /// `send_bubble p95`, `hangs`, `new crash YuiLines.parse <- main`.
    static func label(_ regression: Regression) -> String {
        if let name = regression.intervalName { return "\(name) p95" }
        if regression.what.hasPrefix("exit:"), let (reason, background) = ExitReason.of(rowName: String(regression.what.dropFirst(5))) {
            return "\(background ? "background" : "foreground") \(reason.words) exits"
        }
        switch regression.what {
        case "long_hangs": return "long hangs"
        case "hitches": return "scroll hitches"
        case "memory_peak": return "memory peak"
        case "memory_steady": return "steady memory"
        case "crash": return "new crash " + (regression.signature ?? "")
        default: return regression.what
        }
    }

    /// Two decimals: `0.98`, `1.00`.
    static func number(_ value: Double) -> String { String(format: "%.2f", value) }
}
