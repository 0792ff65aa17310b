import CPayloadKernels
import Foundation

/// A parsed JSON text: the tape plus the bytes it points into. Values are addressed by tape index.
struct JSONDocument {
    let base: UnsafePointer<UInt8>
    let count: Int
    /// The parser's tape: valid until the parser parses again.
    let nodes: UnsafeBufferPointer<JSONNode>

    static let root = 0

    func kind(_ index: Int) -> JSONKind { nodes[index].kind }

    /// The value of member `key` of the object at `index`, or `nil` (also when it is not an object).
    /// The value of `key` in the object at `index`. A key given twice counts with its last value,
    /// as Python's `json`, jq and JavaScript read it (RFC 8259 leaves it open): the whole object is
    /// scanned, not stopped at the first match.
    func member(_ index: Int, _ key: StaticString) -> Int? {
        guard nodes[index].kind == .object else { return nil }
        let end = Int(nodes[index].next)
        var keyIndex = index + 1
        var found: Int?
        while keyIndex < end {
            if keyEquals(keyIndex, key) { found = keyIndex + 1 }
            keyIndex = Int(nodes[keyIndex + 1].next)
        }
        return found
    }

    func hasMember(_ index: Int, _ key: StaticString) -> Bool { member(index, key) != nil }

    /// Keys to find in one pass over an object (`members(_:_:)`), grouped by length.
    struct KeyTable: Sendable {
        let keys: [StaticString]
        /// For each length, the positions in `keys` of the keys that long.
        let byLength: [[Int]]

        init(_ keys: [StaticString]) {
            self.keys = keys
            var byLength = [[Int]](repeating: [], count: (keys.map(\.utf8CodeUnitCount).max() ?? 0) + 1)
            for (position, key) in keys.enumerated() { byLength[key.utf8CodeUnitCount].append(position) }
            self.byLength = byLength
        }
    }

    /// The value of each of `table`'s keys in the object at `index` (nil where absent), as
    /// `member` gives each, the last value of a key given twice, in one pass: a row's two dozen
    /// keys read one `member` call each scanned the object two dozen times.
    func members(_ index: Int, _ table: KeyTable) -> [Int?] {
        var found = [Int?](repeating: nil, count: table.keys.count)
        guard nodes[index].kind == .object else { return found }
        let end = Int(nodes[index].next)
        var keyIndex = index + 1
        // Objects this tool writes (row files) list their keys in the table's order, so the key
        // after the last one found is tried first: one comparison a key, where trying each key of
        // the same length was a sixth of reading a row.
        var expected = 0
        while keyIndex < end {
            let node = nodes[keyIndex]
            let length = Int(node.length)
            if node.flag {
                // An escaped key: compared decoded, as `member` does.
                for position in table.keys.indices where keyEquals(keyIndex, table.keys[position]) { found[position] = keyIndex + 1 }
            } else if expected < table.keys.count, table.keys[expected].utf8CodeUnitCount == length,
                memcmp(base + Int(node.start), table.keys[expected].utf8Start, length) == 0
            {
                found[expected] = keyIndex + 1
                expected += 1
            } else if length < table.byLength.count {
                for position in table.byLength[length] where memcmp(base + Int(node.start), table.keys[position].utf8Start, length) == 0 {
                    found[position] = keyIndex + 1
                    expected = position + 1
                }
            }
            keyIndex = Int(nodes[keyIndex + 1].next)
        }
        return found
    }

    /// Calls `body` with (key index, value index) for each member, in text order.
    func forEachMember(_ index: Int, _ body: (Int, Int) throws -> Void) rethrows {
        guard nodes[index].kind == .object else { return }
        let end = Int(nodes[index].next)
        var keyIndex = index + 1
        while keyIndex < end {
            try body(keyIndex, keyIndex + 1)
            keyIndex = Int(nodes[keyIndex + 1].next)
        }
    }

    /// The tape indices of the elements of the array at `index` (empty when it is not an array).
    func elements(_ index: Int) -> [Int] {
        var result: [Int] = []
        elements(index, into: &result)
        return result
    }

    /// The elements of the array at `index` in `result`, emptied first (its storage kept, for a
    /// caller that asks level after level).
    func elements(_ index: Int, into result: inout [Int]) {
        result.removeAll(keepingCapacity: true)
        guard nodes[index].kind == .array else { return }
        let end = Int(nodes[index].next)
        var element = index + 1
        while element < end {
            result.append(element)
            element = Int(nodes[element].next)
        }
    }

    /// Whether the string at `index` (an object key) is `key`.
    func keyIs(_ index: Int, _ key: StaticString) -> Bool { keyEquals(index, key) }

    private func keyEquals(_ index: Int, _ key: StaticString) -> Bool {
        let node = nodes[index]
        if node.flag { return string(index) == key.description }
        return Int(node.length) == key.utf8CodeUnitCount
            && memcmp(base + Int(node.start), key.utf8Start, key.utf8CodeUnitCount) == 0
    }

    /// Whether the string at `index` holds a backslash escape (its raw bytes are not its text).
    func isEscaped(_ index: Int) -> Bool { nodes[index].flag }

    /// Raw content bytes of a string or number (escapes not decoded).
    func rawBytes(_ index: Int) -> UnsafeBufferPointer<UInt8> {
        let node = nodes[index]
        return UnsafeBufferPointer(start: base + Int(node.start), count: Int(node.length))
    }

    /// The decoded content of the string at `index`, or `nil` when it is not a string.
    func string(_ index: Int) -> String? {
        guard nodes[index].kind == .string else { return nil }
        if !nodes[index].flag { return String(decoding: rawBytes(index), as: UTF8.self) }
        return String(decoding: decodedStringBytes(index), as: UTF8.self)
    }

    /// Calls `body` with the decoded UTF-8 bytes of the string at `index`; no copy when unescaped.
    func withStringBytes<T>(_ index: Int, _ body: (UnsafeBufferPointer<UInt8>) -> T) -> T {
        if !nodes[index].flag { return body(rawBytes(index)) }
        let decoded = decodedStringBytes(index)
        return decoded.withUnsafeBufferPointer(body)
    }

    func decodedStringBytes(_ index: Int) -> [UInt8] {
        let raw = rawBytes(index)
        var out: [UInt8] = []
        out.reserveCapacity(raw.count)
        var i = 0
        func hex4(_ at: Int) -> UInt32 {
            var v: UInt32 = 0
            for k in 0..<4 { v = v << 4 | UInt32(hexValue(raw[at + k]) ?? 0) }
            return v
        }
        func appendScalar(_ value: UInt32) {
            let scalar = Unicode.Scalar(value) ?? "\u{FFFD}"
            out.append(contentsOf: Array(String(Character(scalar)).utf8))
        }
        while i < raw.count {
            let c = raw[i]
            guard c == UInt8(ascii: "\\"), i + 1 < raw.count else {
                out.append(c)
                i += 1
                continue
            }
            let e = raw[i + 1]
            i += 2
            switch e {
            case UInt8(ascii: "b"): out.append(0x08)
            case UInt8(ascii: "f"): out.append(0x0c)
            case UInt8(ascii: "n"): out.append(0x0a)
            case UInt8(ascii: "r"): out.append(0x0d)
            case UInt8(ascii: "t"): out.append(0x09)
            case UInt8(ascii: "u"):
                guard i + 4 <= raw.count else {
                    i = raw.count
                    break
                }
                var value = hex4(i)
                i += 4
                if value >= 0xD800 && value < 0xDC00, i + 6 <= raw.count, raw[i] == UInt8(ascii: "\\"),
                    raw[i + 1] == UInt8(ascii: "u")
                {
                    let low = hex4(i + 2)
                    if low >= 0xDC00 && low < 0xE000 {
                        value = 0x10000 + ((value - 0xD800) << 10) + (low - 0xDC00)
                        i += 6
                    }
                }
                appendScalar(value)
            default: out.append(e)
            }
        }
        return out
    }

    func bool(_ index: Int) -> Bool? { nodes[index].kind == .bool ? nodes[index].flag : nil }

    /// The number at `index` as a Double (may be infinite for 1e400), or `nil` when not a number.
    func double(_ index: Int) -> Double? {
        guard nodes[index].kind == .number else { return nil }
        return parseDouble(rawBytes(index))
    }

    /// The number at `index` when it is a non-negative integer that fits 64 bits.
    func unsignedInteger(_ index: Int) -> UnsignedReading {
        guard nodes[index].kind == .number else { return .notANumber }
        return readUnsigned(rawBytes(index))
    }
}

enum UnsignedReading: Equatable {
    case value(UInt64)
    case notANumber
    case negative
    case notInteger
    case tooLarge
}

/// Reads a JSON number token as a non-negative integer: `12`, also `12.0` or `1.2e1`, refusing
/// negatives, fractions and anything past 2^64 − 1 instead of trapping.
func readUnsigned(_ bytes: UnsafeBufferPointer<UInt8>) -> UnsignedReading {
    guard !bytes.isEmpty else { return .notANumber }
    if bytes[0] == UInt8(ascii: "-") {
        // "-0" is zero; every other negative is refused.
        if bytes.dropFirst().allSatisfy({ $0 == UInt8(ascii: "0") || $0 == UInt8(ascii: ".") }) { return .value(0) }
        return .negative
    }
    var value: UInt64 = 0
    var i = 0
    while i < bytes.count, bytes[i] >= 0x30, bytes[i] <= 0x39 {
        let (times, o1) = value.multipliedReportingOverflow(by: 10)
        let (plus, o2) = times.addingReportingOverflow(UInt64(bytes[i] - 0x30))
        if o1 || o2 { return .tooLarge }
        value = plus
        i += 1
    }
    if i == bytes.count { return .value(value) }
    // A fraction or an exponent: go through Double, accepting only exact integers.
    guard let d = parseDouble(bytes), d.isFinite else { return .tooLarge }
    if d != d.rounded(.towardZero) { return .notInteger }
    if d >= 18446744073709551616.0 { return .tooLarge }
    if d > 9007199254740992.0 { return .notInteger }  // beyond 2^53 a Double is no longer exact
    return .value(UInt64(d))
}

/// Parses a JSON-style number (digits, optional fraction and exponent) from bytes.
func parseDouble(_ bytes: UnsafeBufferPointer<UInt8>) -> Double? {
    guard !bytes.isEmpty, bytes.count < 400 else { return nil }
    // Fast path: a short plain integer is exact as a Double.
    var negative = false
    var i = 0
    if bytes[0] == UInt8(ascii: "-") {
        negative = true
        i = 1
    }
    if bytes.count - i <= 15, i < bytes.count {
        var value: Int64 = 0
        var plain = true
        while i < bytes.count {
            let c = bytes[i]
            guard c >= 0x30, c <= 0x39 else {
                plain = false
                break
            }
            value = value * 10 + Int64(c - 0x30)
            i += 1
        }
        if plain { return Double(negative ? -value : value) }
    }
    return withUnsafeTemporaryAllocation(of: CChar.self, capacity: bytes.count + 1) { buffer in
        for k in 0..<bytes.count { buffer[k] = CChar(bitPattern: bytes[k]) }
        buffer[bytes.count] = 0
        var end: UnsafeMutablePointer<CChar>?
        let value = strtod(buffer.baseAddress!, &end)
        guard let end, end - buffer.baseAddress! == bytes.count else { return nil }
        return value
    }
}

extension JSONSyntaxError {
    /// `line 3, column 17` for the error's offset in `bytes`.
    func position(in bytes: UnsafeRawBufferPointer) -> String {
        var line = 1
        var lineStart = 0
        let end = Swift.min(offset, bytes.count)
        for k in 0..<end where bytes[k] == 0x0a {
            line += 1
            lineStart = k + 1
        }
        return "line \(line), column \(end - lineStart + 1)"
    }
}
