import Foundation

/// What Xcode Organizer shows beyond the seed's rows (docs/rows.md, "Exits, disk writes and
/// signposts"): terminations by reason, disk writes, CPU instructions, GPU time, and the app's own
/// MetricKit signposts as interval rows.
extension PayloadConverter {
    func appendOrganizerRows(_ document: JSONDocument, _ payload: Int, _ context: RowContext, into rows: inout [Row]) {
        appendExitRows(document, payload, context, into: &rows)
        if let disk = document.member(payload, "diskIOMetrics"), document.kind(disk) == .object {
            let key = "diskIOMetrics.cumulativeLogicalWrites"
            if let reading = measurement(document, disk, "cumulativeLogicalWrites", key),
                let megabytes = nonNegative(reading.megabytes, key, "size")
            {
                rows.append(makeRow(context, metric: .diskWrites, ordinal: 0, n: 1, value: megabytes))
            }
        }
        if let cpu = document.member(payload, "cpuMetrics"), document.kind(cpu) == .object {
            let key = "cpuMetrics.cumulativeCPUInstructions"
            if let reading = measurement(document, cpu, "cumulativeCPUInstructions", key) {
                if reading.unit == "kiloinstructions", reading.number >= 0 {
                    rows.append(makeRow(context, metric: .cpuInstructions, ordinal: 0, n: 1, value: reading.number * 1000))
                } else {
                    warn(key, "not a count of kiloinstructions (\(InputText.quoted(reading.unit))); row left out")
                }
            }
        }
        if let gpu = document.member(payload, "gpuMetrics"), document.kind(gpu) == .object {
            let key = "gpuMetrics.cumulativeGPUTime"
            if let reading = measurement(document, gpu, "cumulativeGPUTime", key),
                let seconds = nonNegative(reading.seconds, key, "duration")
            {
                rows.append(makeRow(context, metric: .gpuTime, ordinal: 0, n: 1, value: seconds))
            }
        }
        appendSignpostRows(document, payload, context, into: &rows)
    }

    /// One row per counter present, foreground then background, in `ExitReason`'s order. MetricKit
    /// leaves out counters that are zero; a zero it does write is kept.
    private func appendExitRows(_ document: JSONDocument, _ payload: Int, _ context: RowContext, into rows: inout [Row]) {
        guard let exits = document.member(payload, "applicationExitMetrics") else { return }
        guard document.kind(exits) == .object else {
            warn("applicationExitMetrics", "not an object; its rows left out")
            return
        }
        let states: [(StaticString, Bool)] = [("foregroundExitData", false), ("backgroundExitData", true)]
        for (state, background) in states {
            guard let data = document.member(exits, state) else { continue }
            guard document.kind(data) == .object else {
                warn("applicationExitMetrics.\(state)", "not an object; its rows left out")
                continue
            }
            for reason in ExitReason.allCases {
                guard let index = document.member(data, reason.payloadKey),
                    let exits = count(document, index, "applicationExitMetrics.\(state).\(reason.payloadKey)")
                else { continue }
                rows.append(
                    makeRow(
                        context, kind: .metrics, name: reason.rowName(background: background), ordinal: 0, n: exits,
                        value: Double(exits)))
            }
        }
    }

    /// One `interval` row per interval signpost: its duration histogram counted at the buckets'
    /// midpoints, as `launch_mk`, `n` the histogram's count, named by `SignpostRowName`. An event
    /// signpost (no `signpostIntervalData`) has no durations and gives no row.
    private func appendSignpostRows(_ document: JSONDocument, _ payload: Int, _ context: RowContext, into rows: inout [Row]) {
        guard let signposts = document.member(payload, "signpostMetrics") else { return }
        guard document.kind(signposts) == .array else {
            warn("signpostMetrics", "not an array; its rows left out")
            return
        }
        for (position, signpost) in document.elements(signposts).enumerated() {
            // Built only for a message: a String per signpost was a percent of `rows`.
            func key() -> String { "signpostMetrics[\(position)]" }
            guard document.kind(signpost) == .object else {
                warn(key(), "not an object; row left out")
                continue
            }
            guard let interval = document.member(signpost, "signpostIntervalData") else { continue }
            guard let nameIndex = document.member(signpost, "signpostName"), let name = document.string(nameIndex),
                let categoryIndex = document.member(signpost, "signpostCategory"), let category = document.string(categoryIndex)
            else {
                warn(key(), "no signpostName or signpostCategory string; row left out")
                continue
            }
            guard document.kind(interval) == .object else {
                warn("\(key()).signpostIntervalData", "not an object; row left out")
                continue
            }
            guard let (durations, _) = histogram(document, interval, "histogrammedSignpostDurations", "\(key()).histogrammedSignpostDurations")
            else { continue }
            rows.append(
                makeRow(
                    context, kind: .interval, name: SignpostRowName.make(category: category, name: name), ordinal: position,
                    n: durations.n, histogram: durations, value: nil))
        }
    }
}

/// The row name of a MetricKit signpost (docs/rows.md, "Signpost names"): the signpost's name in
/// snake_case, at most 25 characters, then the first 8 hex digits of the SHA-1 of its category and
/// name, then `_mk`, as `launch_mk`: `thread_open` in category `Perf` is `thread_open_5f2c0e1a_mk`.
///
/// The digest keeps two signposts apart whatever their names become in snake_case (`Load` in two
/// categories, `LoadFeed` and `load_feed`, two long names that share their first 25 characters);
/// two merge only if 32 bits of SHA-1 collide. The suffix keeps them apart from the phone's own
/// intervals, whose names never end in `_mk`, and fits the table's `^[a-z][a-z0-9_]{1,40}$`.
public enum SignpostRowName {
    public static func make(category: String, name: String) -> String {
        var hasher = SHA1()
        hasher.update(category)
        hasher.update(byte: 0x1F)
        hasher.update(name)
        let first = hasher.finishWords().0  // the digest's first 4 bytes, big-endian
        // `_`, 8 hex digits and `_mk`, as bytes (a scalar appended at a time was half of this).
        var suffix: [UInt8] = [UInt8(ascii: "_")]
        for k in (0..<8).reversed() { suffix.append(hexDigits[Int(first >> (4 * UInt32(k)) & 0xf)]) }
        suffix.append(contentsOf: "_mk".utf8)
        return snakeCase(name) + String(decoding: suffix, as: UTF8.self)
    }

    /// Lower case, a `_` where a lower-case letter or digit meets an upper-case one and for every run
    /// of other characters; it starts with a letter (`s` put before a digit; `signpost` for a name
    /// with no letter or digit) and is cut at 25 characters.
    static func snakeCase(_ name: String) -> String {
        // An ASCII name byte by byte (each byte is then one Character, and ASCII's letters and
        // digits are the only ASCII characters Character calls letters and numbers): with the
        // digest's hex through String(format:), asking each Character its properties was 9% of
        // `rows` over the real-shaped corpus, whose payloads hold 2,209 signposts.
        var name = name
        if let ascii = name.withUTF8({ bytes in bytes.allSatisfy { $0 < 0x80 } ? snakeCaseOfASCII(bytes) : nil }) { return ascii }
        return snakeCaseOfCharacters(name)
    }

    private static let hexDigits = Array("0123456789abcdef".utf8)

    private static func snakeCaseOfASCII(_ bytes: UnsafeBufferPointer<UInt8>) -> String {
        func isUpper(_ byte: UInt8) -> Bool { byte >= UInt8(ascii: "A") && byte <= UInt8(ascii: "Z") }
        func isLower(_ byte: UInt8) -> Bool { byte >= UInt8(ascii: "a") && byte <= UInt8(ascii: "z") }
        func isDigit(_ byte: UInt8) -> Bool { byte >= UInt8(ascii: "0") && byte <= UInt8(ascii: "9") }
        var out: [UInt8] = []
        out.reserveCapacity(bytes.count + 8)
        var previous: UInt8?
        var pendingGap = false
        for byte in bytes {
            guard isUpper(byte) || isLower(byte) || isDigit(byte) else {
                pendingGap = !out.isEmpty
                previous = nil
                continue
            }
            if let previous, isUpper(byte), isLower(previous) || isDigit(previous) { pendingGap = true }
            if pendingGap, !out.isEmpty { out.append(UInt8(ascii: "_")) }
            pendingGap = false
            out.append(isUpper(byte) ? byte + 32 : byte)
            previous = byte
        }
        if out.isEmpty { return "signpost" }
        if isDigit(out[0]) { out.insert(UInt8(ascii: "s"), at: 0) }
        while out.count > 25 || out.last == UInt8(ascii: "_") { out.removeLast() }
        return String(decoding: out, as: UTF8.self)
    }

    /// `snakeCase` by Characters, for a name that is not all ASCII.
    static func snakeCaseOfCharacters(_ name: String) -> String {
        var out = ""
        var previous: Character?
        var pendingGap = false
        for character in name {
            let isLetterOrDigit = character.isASCII && (character.isLetter || character.isNumber)
            guard isLetterOrDigit else {
                pendingGap = !out.isEmpty
                previous = nil
                continue
            }
            if let previous, character.isUppercase, previous.isLowercase || previous.isNumber { pendingGap = true }
            if pendingGap, !out.isEmpty { out.append("_") }
            pendingGap = false
            out.append(Character(character.lowercased()))
            previous = character
        }
        if out.isEmpty { return "signpost" }
        if let first = out.first, first.isNumber { out = "s" + out }
        while out.count > 25 || out.hasSuffix("_") { out.removeLast() }
        return out
    }
}
