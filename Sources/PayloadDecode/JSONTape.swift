import CPayloadKernels
import Foundation

/// The kind of one JSON value on the tape.
enum JSONKind: UInt8 {
    case null, bool, number, string, array, object
}

/// One JSON value on the tape. Containers are followed by their children (objects: key string,
/// then the value's subtree, per member); `next` is the index just past the whole subtree, so a
/// reader skips a value without looking inside it. 16 bytes, so a tape stays small next to its text.
struct JSONNode {
    var kind: JSONKind
    /// Strings: the content holds a backslash escape and must be decoded before use.
    /// Booleans: the value.
    var flag: Bool
    /// Byte offset of the content (strings: after the opening quote; numbers: the first byte).
    var start: UInt32
    /// Content length in bytes (strings and numbers).
    var length: UInt32
    var next: UInt32
}

/// The parser's growable node storage: a raw buffer, because an Array's uniqueness and capacity
/// checks on every append were a fifth of the parse time. JSONNode is a plain value, so nodes
/// need no deinitialization.
struct Tape {
    private(set) var pointer: UnsafeMutablePointer<JSONNode>
    var count = 0
    private(set) var capacity: Int

    init(capacity: Int) {
        self.capacity = Swift.max(capacity, 16)
        pointer = .allocate(capacity: self.capacity)
    }

    func deallocate() { pointer.deallocate() }

    @inline(__always) mutating func append(_ node: JSONNode) {
        if count == capacity { grow(to: capacity * 2) }
        (pointer + count).initialize(to: node)
        count += 1
    }

    mutating func grow(to newCapacity: Int) {
        guard newCapacity > capacity else { return }
        let bigger = UnsafeMutablePointer<JSONNode>.allocate(capacity: newCapacity)
        bigger.moveInitialize(from: pointer, count: count)
        pointer.deallocate()
        pointer = bigger
        capacity = newCapacity
    }

    subscript(index: Int) -> JSONNode {
        get { pointer[index] }
        nonmutating set { pointer[index] = newValue }
    }
}

/// Why a text is not JSON, and where.
struct JSONSyntaxError: Error {
    var offset: Int
    var message: String
}

/// A JSON parser over raw bytes that builds a flat tape instead of a tree of Swift values: no
/// allocation per string or number, because Foundation's parsers are several times too slow on
/// Linux for the corpus sizes `rows` must handle. Nesting is tracked on an explicit stack, so a
/// hostile 100,000-deep text costs a clear error, not the native stack.
///
/// Reused across inputs so the tape's storage is allocated once per run.
final class JSONParser {
    private var tape = Tape(capacity: 1 << 12)
    private var open: [Int] = []
    let maxDepth: Int
    let maxNodes: Int

    init(maxDepth: Int = 512, maxNodes: Int = 4_000_000) {
        self.maxDepth = maxDepth
        self.maxNodes = maxNodes
    }

    deinit { tape.deallocate() }

    /// Parses exactly one JSON value (surrounding whitespace allowed) and returns the document.
    /// The document points into `bytes`; use it only while `bytes` is alive and before the next parse.
    func parse(_ bytes: UnsafeRawBufferPointer) throws(JSONSyntaxError) -> JSONDocument {
        // Work on locals: class properties would pay a dynamic exclusivity check per append.
        var nodes = tape
        var open = self.open
        self.open = []
        defer {
            tape = nodes
            self.open = open
        }
        nodes.count = 0
        open.removeAll(keepingCapacity: true)
        let count = bytes.count
        guard count < Int(UInt32.max), let base = bytes.baseAddress?.assumingMemoryBound(to: UInt8.self) else {
            if bytes.count == 0 { throw JSONSyntaxError(offset: 0, message: "empty input, a JSON value was expected") }
            throw JSONSyntaxError(offset: 0, message: "input too large for the JSON parser")
        }
        nodes.grow(to: Swift.min(count / 24, maxNodes))
        // A UTF-8 byte order mark (editors on Windows add one) is not part of the value.
        let bom = count >= 3 && base[0] == 0xEF && base[1] == 0xBB && base[2] == 0xBF ? 3 : 0
        var i = skipWhitespace(base, bom, count)
        var expectingValue = true
        while true {
            if expectingValue {
                guard i < count else { throw JSONSyntaxError(offset: i, message: "unexpected end of input, a value was expected") }
                if nodes.count >= maxNodes {
                    throw JSONSyntaxError(offset: i, message: "more than \(maxNodes) JSON values in one input")
                }
                let c = base[i]
                switch c {
                case UInt8(ascii: "{"), UInt8(ascii: "["):
                    let isObject = c == UInt8(ascii: "{")
                    if open.count >= maxDepth {
                        throw JSONSyntaxError(offset: i, message: "JSON nested deeper than \(maxDepth) levels")
                    }
                    open.append(nodes.count)
                    nodes.append(JSONNode(kind: isObject ? .object : .array, flag: false, start: UInt32(i), length: 0, next: 0))
                    i = skipWhitespace(base, i + 1, count)
                    if i < count, base[i] == (isObject ? UInt8(ascii: "}") : UInt8(ascii: "]")) {
                        nodes[open.removeLast()].next = UInt32(nodes.count)
                        i += 1
                        expectingValue = false
                    } else if isObject {
                        i = try parseKey(base, i, count, &nodes)
                    }
                    continue
                case UInt8(ascii: "\""):
                    i = try parseString(base, i, count, &nodes)
                case UInt8(ascii: "-"), UInt8(ascii: "0")...UInt8(ascii: "9"):
                    i = try parseNumber(base, i, count, &nodes)
                case UInt8(ascii: "t"):
                    i = try parseLiteral(base, i, count, "true", .bool, true, &nodes)
                case UInt8(ascii: "f"):
                    i = try parseLiteral(base, i, count, "false", .bool, false, &nodes)
                case UInt8(ascii: "n"):
                    i = try parseLiteral(base, i, count, "null", .null, false, &nodes)
                default:
                    throw JSONSyntaxError(offset: i, message: "unexpected character \(describe(c)), a value was expected")
                }
                expectingValue = false
            }
            // After a value: a separator, the end of the enclosing container, or the end.
            i = skipWhitespace(base, i, count)
            guard let top = open.last else {
                if i < count {
                    throw JSONSyntaxError(offset: i, message: "unexpected \(describe(base[i])) after the end of the JSON value")
                }
                return JSONDocument(base: base, count: count, nodes: UnsafeBufferPointer(start: nodes.pointer, count: nodes.count))
            }
            guard i < count else {
                throw JSONSyntaxError(offset: i, message: "unexpected end of input inside an \(nodes[top].kind == .object ? "object" : "array")")
            }
            let isObject = nodes[top].kind == .object
            let c = base[i]
            if c == UInt8(ascii: ",") {
                i = skipWhitespace(base, i + 1, count)
                if isObject { i = try parseKey(base, i, count, &nodes) }
                expectingValue = true
            } else if c == (isObject ? UInt8(ascii: "}") : UInt8(ascii: "]")) {
                nodes[top].next = UInt32(nodes.count)
                open.removeLast()
                i += 1
            } else {
                throw JSONSyntaxError(
                    offset: i, message: "unexpected \(describe(c)), expected ',' or '\(isObject ? "}" : "]")'")
            }
        }
    }

    private func describe(_ c: UInt8) -> String {
        if c >= 0x20 && c < 0x7f { return "'\(Character(Unicode.Scalar(c)))'" }
        return "byte 0x" + String(c, radix: 16)
    }

    @inline(__always)
    private func skipWhitespace(_ base: UnsafePointer<UInt8>, _ from: Int, _ count: Int) -> Int {
        // Every byte that starts a JSON token is above 0x20: no whitespace at all is the common
        // case, then the lone space of `" : "`. Pretty-printed dumps are otherwise mostly a newline
        // and indentation (a frame 80 levels down is indented by 300 spaces): those runs go to
        // CPayloadKernels' 16-byte scan.
        guard from < count, base[from] <= 0x20 else { return from }
        if base[from] == 0x20, from + 1 < count, base[from + 1] > 0x20 { return from + 1 }
        return from + yui_json_whitespace_run(base + from, count - from)
    }

    /// A member's key and its colon; leaves `i` at the value.
    private func parseKey(_ base: UnsafePointer<UInt8>, _ from: Int, _ count: Int, _ nodes: inout Tape) throws(JSONSyntaxError) -> Int {
        guard from < count, base[from] == UInt8(ascii: "\"") else {
            if from >= count { throw JSONSyntaxError(offset: from, message: "unexpected end of input, an object key was expected") }
            throw JSONSyntaxError(offset: from, message: "unexpected \(describe(base[from])), an object key in quotes was expected")
        }
        var i = try parseString(base, from, count, &nodes)
        i = skipWhitespace(base, i, count)
        guard i < count, base[i] == UInt8(ascii: ":") else {
            throw JSONSyntaxError(offset: i, message: "expected ':' after an object key")
        }
        return skipWhitespace(base, i + 1, count)
    }

    private func parseString(_ base: UnsafePointer<UInt8>, _ from: Int, _ count: Int, _ nodes: inout Tape) throws(JSONSyntaxError) -> Int {
        var i = from + 1
        var escaped = false
        while true {
            // The common case: plain bytes up to the closing quote, 16 at a time while no byte is
            // a quote, a backslash or a control character (CPayloadKernels' SSE2 scan).
            i += yui_json_string_run(base + i, count - i)
            guard i < count else { throw JSONSyntaxError(offset: from, message: "unterminated string") }
            let c = base[i]
            if c == UInt8(ascii: "\"") { break }
            if c < 0x20 { throw JSONSyntaxError(offset: i, message: "control character in a string (must be escaped)") }
            escaped = true
            guard i + 1 < count else { throw JSONSyntaxError(offset: from, message: "unterminated string") }
            switch base[i + 1] {
            case UInt8(ascii: "\""), UInt8(ascii: "\\"), UInt8(ascii: "/"), UInt8(ascii: "b"), UInt8(ascii: "f"),
                UInt8(ascii: "n"), UInt8(ascii: "r"), UInt8(ascii: "t"):
                i += 2
            case UInt8(ascii: "u"):
                guard i + 5 < count, (2...5).allSatisfy({ hexValue(base[i + $0]) != nil }) else {
                    throw JSONSyntaxError(offset: i, message: "invalid \\u escape in a string")
                }
                i += 6
            default:
                throw JSONSyntaxError(offset: i, message: "invalid escape \\\(describe(base[i + 1])) in a string")
            }
        }
        nodes.append(JSONNode(kind: .string, flag: escaped, start: UInt32(from + 1), length: UInt32(i - from - 1), next: UInt32(nodes.count + 1)))
        return i + 1
    }

    private func parseNumber(_ base: UnsafePointer<UInt8>, _ from: Int, _ count: Int, _ nodes: inout Tape) throws(JSONSyntaxError) -> Int {
        var i = from
        @inline(__always) func isDigit(_ j: Int) -> Bool { j < count && base[j] >= 0x30 && base[j] <= 0x39 }
        // The common case, a plain integer not starting with 0 (addresses, offsets, counts): its
        // digits in one tight loop, then the same checks as below for what follows them.
        if base[i] >= 0x31 && base[i] <= 0x39 {
            i += 1
            while i < count, base[i] &- 0x30 < 10 { i += 1 }
            if i == count || (base[i] != UInt8(ascii: ".") && base[i] | 0x20 != UInt8(ascii: "e")) {
                nodes.append(JSONNode(kind: .number, flag: false, start: UInt32(from), length: UInt32(i - from), next: UInt32(nodes.count + 1)))
                return i
            }
            i = from
        }
        if base[i] == UInt8(ascii: "-") { i += 1 }
        guard isDigit(i) else { throw JSONSyntaxError(offset: from, message: "invalid number (NaN, Infinity and bare '-' are not JSON)") }
        if base[i] == UInt8(ascii: "0") {
            i += 1
            if isDigit(i) { throw JSONSyntaxError(offset: from, message: "invalid number: leading zero") }
        } else {
            while isDigit(i) { i += 1 }
        }
        if i < count, base[i] == UInt8(ascii: ".") {
            i += 1
            guard isDigit(i) else { throw JSONSyntaxError(offset: from, message: "invalid number: no digit after '.'") }
            while isDigit(i) { i += 1 }
        }
        if i < count, base[i] == UInt8(ascii: "e") || base[i] == UInt8(ascii: "E") {
            i += 1
            if i < count, base[i] == UInt8(ascii: "+") || base[i] == UInt8(ascii: "-") { i += 1 }
            guard isDigit(i) else { throw JSONSyntaxError(offset: from, message: "invalid number: no digit in the exponent") }
            while isDigit(i) { i += 1 }
        }
        nodes.append(JSONNode(kind: .number, flag: false, start: UInt32(from), length: UInt32(i - from), next: UInt32(nodes.count + 1)))
        return i
    }

    private func parseLiteral(
        _ base: UnsafePointer<UInt8>, _ from: Int, _ count: Int, _ word: StaticString, _ kind: JSONKind, _ value: Bool,
        _ nodes: inout Tape
    ) throws(JSONSyntaxError) -> Int {
        let length = word.utf8CodeUnitCount
        guard from + length <= count, memcmp(base + from, word.utf8Start, length) == 0 else {
            throw JSONSyntaxError(offset: from, message: "invalid literal (expected \(word))")
        }
        nodes.append(JSONNode(kind: kind, flag: value, start: UInt32(from), length: UInt32(length), next: UInt32(nodes.count + 1)))
        return from + length
    }
}

@inline(__always)
func hexValue(_ c: UInt8) -> UInt8? {
    switch c {
    case UInt8(ascii: "0")...UInt8(ascii: "9"): return c - UInt8(ascii: "0")
    case UInt8(ascii: "a")...UInt8(ascii: "f"): return c - UInt8(ascii: "a") + 10
    case UInt8(ascii: "A")...UInt8(ascii: "F"): return c - UInt8(ascii: "A") + 10
    default: return nil
    }
}

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
        guard nodes[index].kind == .array else { return [] }
        var result: [Int] = []
        let end = Int(nodes[index].next)
        var element = index + 1
        while element < end {
            result.append(element)
            element = Int(nodes[element].next)
        }
        return result
    }

    /// Whether the string at `index` (an object key) is `key`.
    func keyIs(_ index: Int, _ key: StaticString) -> Bool { keyEquals(index, key) }

    private func keyEquals(_ index: Int, _ key: StaticString) -> Bool {
        let node = nodes[index]
        if node.flag { return string(index) == key.description }
        return Int(node.length) == key.utf8CodeUnitCount
            && memcmp(base + Int(node.start), key.utf8Start, key.utf8CodeUnitCount) == 0
    }

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
