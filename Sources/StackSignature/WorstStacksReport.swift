import Foundation
import PayloadDecode

/// Writes a tally the three ways `payload-tool top` can: text for people, JSON for programs,
/// folded stacks for flame-graph tools.
public enum WorstStacksReport {
    /// Per build, newest first: a `build 131` header, then the `count` heaviest signatures as
    /// `  1. hang 3.6 s x3 on 2 phones (max 1.2 s)   YuiLines.parse <- ChatStore.apply` or
    /// `  2. crash 2.0 s x2, EXC_BAD_ACCESS (SIGSEGV)   ChatStore.apply <- ThreadView.body`, a
    /// blank line between builds. A crash line has no `max` (every crash weighs the same) but its
    /// reason (`countText`, `SignatureGroup.causeSummary`).
    public static func text(_ tally: WorstStacksTally, builds: [Int], count: Int) -> String {
        var out = ""
        for (index, build) in builds.enumerated() {
            if index > 0 { out += "\n" }
            out += "build \(build)\n"
            let groups = tally.ranked(build: build, limit: count)
            if groups.isEmpty {
                out += "  no hangs or crashes\n"
                continue
            }
            for (rank, group) in groups.enumerated() {
                out += "  \(rank + 1). \(line(group))\n"
            }
        }
        return out
    }

    /// One ranked line without its rank: `hang 3.6 s x3 (max 1.2 s)   A <- B`.
    public static func line(_ group: SignatureGroup) -> String {
        var head = "\(group.kind.rawValue) \(seconds(group.weight)) s \(countText(group))"
        if group.kind == .hang { head += " (max \(seconds(group.max)) s)" }
        if let cause = group.causeSummary { head += ", " + cause }
        return "\(head)   \(group.signature.text)"
    }

    /// `x3`, or `x3 on 2 phones` when the occurrences came from fewer phones than there are of them:
    /// a line without a phone count hit as many phones as times, one each (so the seed's
    /// `x3` lines keep their form; docs/report.md, "Worst stacks").
    public static func countText(_ group: SignatureGroup) -> String {
        let phones = group.phones.count
        guard phones > 0, phones < group.count else { return "x\(group.count)" }
        return "x\(group.count) on \(phones) phone\(phones == 1 ? "" : "s")"
    }

    /// Seconds with one decimal, rounded half away from zero on the value in milliseconds, so
    /// 0.25 s reads 0.3 and a sum such as 3.5999999 reads 3.6.
    /// A billion seconds and more (only a forged row file carries such a hang) read in scientific
    /// form, `1.0e+15`, rather than a clamped `9223372036854776.0`.
    public static func seconds(_ value: Double) -> String {
        if abs(value) >= 1e9 { return String(format: "%.1e", value) }  // NaN stays below: it counts as 0
        let tenths = (Double(WorstStacksTally.milliseconds(value)) / 100).rounded(.toNearestOrAwayFromZero)
        let whole = Int64(tenths) / 10
        let fraction = abs(Int64(tenths) % 10)
        let sign = tenths < 0 && whole == 0 ? "-" : ""
        return "\(sign)\(whole).\(fraction)"
    }

    /// The stable JSON form (snake_case keys, sorted, every key always present, `null` when
    /// unknown): `{"builds": [{"build": 131, "signatures": [...]}], "crash_weight": 1, "count": 3}`.
    public static func json(_ tally: WorstStacksTally, builds: [Int], count: Int, crashWeight: Double) -> String {
        let document = JSONDocument(
            builds: builds.map { build in
                JSONBuild(
                    build: build,
                    signatures: tally.ranked(build: build, limit: count).enumerated().map { rank, group in
                        JSONSignature(rank: rank + 1, group: group)
                    })
            }, crashWeight: crashWeight, count: count)
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.prettyPrinted, .sortedKeys, .withoutEscapingSlashes]
        // Encoding these plain structs cannot fail; an empty object keeps the output valid JSON if it ever did.
        let data = (try? encoder.encode(document)) ?? Data("{}".utf8)
        return String(decoding: data, as: UTF8.self) + "\n"
    }

    /// Every hang and crash stack of the given builds, whole and root first, weighted in
    /// milliseconds, one per line. Not cut to `--count`: a flame graph shows all the time.
    public static func folded(_ tally: WorstStacksTally, builds: [Int]) -> String {
        builds.flatMap { tally.foldedLines(build: $0) }.map { $0 + "\n" }.joined()
    }

    /// Weights in JSON: seconds rounded to the millisecond, so sums carry no floating-point noise.
    static func jsonSeconds(_ value: Double) -> Double {
        Double(WorstStacksTally.milliseconds(value)) / 1000
    }
}

private struct JSONDocument: Encodable {
    var builds: [JSONBuild]
    var crashWeight: Double
    var count: Int

    enum CodingKeys: String, CodingKey {
        case builds, count
        case crashWeight = "crash_weight"
    }
}

private struct JSONBuild: Encodable {
    var build: Int
    var signatures: [JSONSignature]
}

private struct JSONSignature: Encodable {
    var rank: Int
    var group: SignatureGroup

    enum CodingKeys: String, CodingKey {
        case rank, build, kind, signature, system, weight, count, phones, causes, max, frames
        case heaviestRowKey = "heaviest_row_key"
        case rowKeys = "row_keys"
    }

    func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(rank, forKey: .rank)
        try container.encode(group.build, forKey: .build)
        try container.encode(group.kind.rawValue, forKey: .kind)
        try container.encode(group.signature.text, forKey: .signature)
        try container.encode(group.signature.isSystem, forKey: .system)
        try container.encode(WorstStacksReport.jsonSeconds(group.weight), forKey: .weight)
        try container.encode(group.count, forKey: .count)
        try container.encode(group.phones.count, forKey: .phones)
        try container.encode(group.rankedCauses.map { JSONCrashCause($0.cause, count: $0.count) }, forKey: .causes)
        try container.encode(WorstStacksReport.jsonSeconds(group.max), forKey: .max)
        try container.encode(group.heaviestFrames.map(JSONFrame.init), forKey: .frames)
        try container.encode(group.heaviestRowKey, forKey: .heaviestRowKey)
        try container.encode(group.rowKeys, forKey: .rowKeys)
    }
}

private struct JSONFrame: Encodable {
    var frame: ExpandedFrame

    enum CodingKeys: String, CodingKey {
        case name, function, image, offset, file, line, inlined, app
    }

    func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(frame.name, forKey: .name)
        try container.encode(frame.function, forKey: .function)
        try container.encode(frame.image, forKey: .image)
        try container.encode(frame.offset, forKey: .offset)
        try container.encode(frame.file, forKey: .file)
        try container.encode(frame.line, forKey: .line)
        try container.encode(frame.isInlined, forKey: .inlined)
        try container.encode(frame.isApp, forKey: .app)
    }
}

/// A crash reason in JSON, numbers and name together: `{"count": 2, "exception_type": 1,
/// "name": "EXC_BAD_ACCESS (SIGSEGV)", "signal": 11, "termination_code": null}`.
public struct JSONCrashCause: Encodable {
    var cause: CrashCause
    var count: Int

    public init(_ cause: CrashCause, count: Int) {
        self.cause = cause
        self.count = count
    }

    enum CodingKeys: String, CodingKey {
        case count, name, signal
        case exceptionType = "exception_type"
        case terminationCode = "termination_code"
    }

    public func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(count, forKey: .count)
        try container.encode(cause.description, forKey: .name)
        try container.encode(cause.exceptionType, forKey: .exceptionType)
        try container.encode(cause.signal, forKey: .signal)
        try container.encode(cause.terminationCode, forKey: .terminationCode)
    }
}
