import CPayloadKernels

/// The JSON object of a row and the `stack` column's JSON, written through a pointer into room
/// reserved for the longest text they can be. Appending to the Array value by value (a uniqueness
/// and capacity check for each key, quote and digit) was 13% of `rows`' instructions over the
/// real-shaped corpus; written this way it is 4%.
extension RowWriter {
    /// The row as a JSON object, every column, nulls included (the hot path of the default format).
    static func appendJSONObject(_ row: Row, into out: inout [UInt8]) {
        // The keys and punctuation (about 270 bytes), four numbers of at most 24 and six integers of
        // at most 20, then the texts.
        var bound = 640 + JSONCursor.bound(row.user_id) + JSONCursor.bound(row.row_key) + JSONCursor.bound(row.kind.rawValue)
        bound += JSONCursor.bound(row.name) + JSONCursor.bound(row.app_version) + JSONCursor.bound(row.os)
        bound += JSONCursor.bound(row.device) + JSONCursor.bound(row.period_start) + JSONCursor.bound(row.period_end)
        bound += JSONCursor.bound(row.bundle_id)
        bound += 21 * (row.buckets?.count ?? 0)
        if let stack = row.stack { bound += JSONCursor.bound(stack) }
        out.appendWritten(atMost: bound) { json in
            json.raw("{\"user_id\":")
            json.string(row.user_id)
            json.raw(",\"row_key\":")
            json.string(row.row_key)
            json.raw(",\"kind\":")
            json.string(row.kind.rawValue)
            json.raw(",\"name\":")
            json.string(row.name)
            json.raw(",\"app_build\":")
            json.integer(row.app_build)
            json.raw(",\"app_version\":")
            json.string(row.app_version)
            json.raw(",\"os\":")
            json.string(row.os)
            json.raw(",\"device\":")
            json.string(row.device)
            json.raw(",\"promotion\":")
            json.raw(row.promotion ? "true" : "false")
            json.raw(",\"low_power\":")
            json.raw(row.low_power ? "true" : "false")
            json.raw(",\"thermal\":")
            json.integer(row.thermal)
            json.raw(",\"period_start\":")
            json.string(row.period_start)
            json.raw(",\"period_end\":")
            json.string(row.period_end)
            json.raw(",\"n\":")
            json.integer(row.n)
            json.raw(",\"buckets\":")
            if let buckets = row.buckets {
                json.byte(UInt8(ascii: "["))
                for (k, count) in buckets.enumerated() {
                    if k > 0 { json.byte(UInt8(ascii: ",")) }
                    json.integer(count)
                }
                json.byte(UInt8(ascii: "]"))
            } else {
                json.raw("null")
            }
            json.raw(",\"p50\":")
            json.number(row.p50)
            json.raw(",\"p95\":")
            json.number(row.p95)
            json.raw(",\"max\":")
            json.number(row.max)
            json.raw(",\"value\":")
            json.number(row.value)
            json.raw(",\"stack\":")
            if let stack = row.stack { json.stack(stack) } else { json.raw("null") }
            json.raw(",\"exception_type\":")
            json.integer(row.exception_type)
            json.raw(",\"signal\":")
            json.integer(row.signal)
            json.raw(",\"termination_code\":")
            json.integer(row.termination_code)
            json.raw(",\"bundle_id\":")
            json.string(row.bundle_id)
            json.byte(UInt8(ascii: "}"))
        }
    }

    /// The `stack` column as JSON: `[{"image":"YuiApp","uuid":"…","offset":123}]`.
    public static func stackJSON(_ frames: [StackFrame], into out: inout [UInt8]) {
        out.appendWritten(atMost: JSONCursor.bound(frames)) { $0.stack(frames) }
    }
}

extension [UInt8] {
    /// Appends what `write` writes, at most `bound` bytes: the room is added (zeroed) first and
    /// what `write` left unused is removed after.
    mutating func appendWritten(atMost bound: Int, _ write: (inout JSONCursor) -> Void) {
        let start = count
        append(contentsOf: repeatElement(0, count: bound))
        let written = withUnsafeMutableBufferPointer { buffer in
            let first = buffer.baseAddress! + start
            var cursor = JSONCursor(first)
            write(&cursor)
            let written = cursor.position - first
            precondition(written <= bound, "a JSON text ran past the room measured for it")
            return written
        }
        removeLast(bound - written)
    }
}

/// Writes JSON text at a pointer, unchecked: the caller has measured the room (`bound`).
struct JSONCursor {
    private(set) var position: UnsafeMutablePointer<UInt8>

    init(_ position: UnsafeMutablePointer<UInt8>) { self.position = position }

    /// The most a string can take: every byte escaped as `\u00XX`, and its quotes (`null` for nil).
    static func bound(_ text: String?) -> Int {
        guard let text else { return 4 }
        return 6 * text.utf8.count + 2
    }

    /// The most a stack can take: brackets, and per frame its keys and punctuation (29 bytes), an
    /// offset of at most 20 digits and its two texts.
    static func bound(_ frames: [StackFrame]) -> Int {
        var bound = 2
        for frame in frames { bound += 49 + Self.bound(frame.image) + Self.bound(frame.uuid) }
        return bound
    }

    @inline(__always) mutating func byte(_ value: UInt8) {
        position.pointee = value
        position += 1
    }

    mutating func raw(_ text: StaticString) {
        position.update(from: text.utf8Start, count: text.utf8CodeUnitCount)
        position += text.utf8CodeUnitCount
    }

    /// A string in quotes, escaped for JSON; `null` for nil.
    mutating func string(_ value: String?) {
        guard var value else { return raw("null") }
        byte(UInt8(ascii: "\""))
        value.withUTF8 { bytes in
            guard var next = bytes.baseAddress else { return }
            let end = next + bytes.count
            while next < end {
                // Most texts need no escape: copy the run up to the next byte that does at once.
                let run = yui_json_string_run(next, end - next)
                position.update(from: next, count: run)
                position += run
                next += run
                guard next < end else { break }
                escape(next.pointee)
                next += 1
            }
        }
        byte(UInt8(ascii: "\""))
    }

    private mutating func escape(_ c: UInt8) {
        switch c {
        case 0x0a: raw("\\n")
        case 0x0d: raw("\\r")
        case 0x09: raw("\\t")
        case 0..<0x20:
            raw("\\u00")
            byte(Self.hexDigit(c >> 4))
            byte(Self.hexDigit(c & 0x0f))
        default:  // a quote or a backslash
            byte(0x5c)
            byte(c)
        }
    }

    mutating func integer<T: BinaryInteger>(_ value: T) {
        if value < 0 { byte(UInt8(ascii: "-")) }
        DecimalDigits.with(UInt64(value.magnitude)) { digits in
            position.update(from: digits.baseAddress!.assumingMemoryBound(to: UInt8.self), count: digits.count)
            position += digits.count
        }
    }

    mutating func integer(_ value: Int?) {
        if let value { integer(value) } else { raw("null") }
    }

    /// The shortest text that reads back as the same double (`NumberText`); `null` for nil.
    mutating func number(_ value: Double?) {
        guard let value else { return raw("null") }
        // A whole number's digits straight in, as `NumberText` spells it, without its String.
        if value == value.rounded(.towardZero) && abs(value) < 1e15 { return integer(Int64(value)) }
        var text = NumberText.shortest(value)
        text.withUTF8 { bytes in
            position.update(from: bytes.baseAddress!, count: bytes.count)
            position += bytes.count
        }
    }

    mutating func stack(_ frames: [StackFrame]) {
        byte(UInt8(ascii: "["))
        for (k, frame) in frames.enumerated() {
            if k > 0 { byte(UInt8(ascii: ",")) }
            raw("{\"image\":")
            string(frame.image)
            raw(",\"uuid\":")
            string(frame.uuid)
            raw(",\"offset\":")
            integer(frame.offset)
            byte(UInt8(ascii: "}"))
        }
        byte(UInt8(ascii: "]"))
    }

    private static func hexDigit(_ value: UInt8) -> UInt8 {
        value < 10 ? UInt8(ascii: "0") + value : UInt8(ascii: "a") - 10 + value
    }
}
