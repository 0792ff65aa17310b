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
    /// Booleans: the value. Numbers: the text has a fraction or an exponent (not a plain integer).
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

/// The tape indices of the containers open while parsing, innermost last: raw storage, as the
/// tape's, because an Array's uniqueness check on every push and pop was a twentieth of the parse.
struct OpenContainers {
    private(set) var pointer: UnsafeMutablePointer<Int>
    private(set) var count = 0
    private var capacity = 64

    init() { pointer = .allocate(capacity: capacity) }

    func deallocate() { pointer.deallocate() }

    @inline(__always) mutating func push(_ index: Int) {
        if count == capacity {
            let bigger = UnsafeMutablePointer<Int>.allocate(capacity: capacity * 2)
            bigger.moveInitialize(from: pointer, count: count)
            pointer.deallocate()
            pointer = bigger
            capacity *= 2
        }
        pointer[count] = index
        count += 1
    }

    /// The innermost open container's index; nil when none is open.
    @inline(__always) var last: Int? { count > 0 ? pointer[count - 1] : nil }

    @inline(__always) mutating func removeLast() -> Int {
        precondition(count > 0)
        count -= 1
        return pointer[count]
    }

    mutating func removeAll() { count = 0 }
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
    private var open = OpenContainers()
    let maxDepth: Int
    let maxNodes: Int

    init(maxDepth: Int = 512, maxNodes: Int = 4_000_000) {
        self.maxDepth = maxDepth
        self.maxNodes = maxNodes
    }

    deinit {
        tape.deallocate()
        open.deallocate()
    }

    /// Parses exactly one JSON value (surrounding whitespace allowed) and returns the document.
    /// The document points into `bytes`; use it only while `bytes` is alive and before the next parse.
    func parse(_ bytes: UnsafeRawBufferPointer) throws(JSONSyntaxError) -> JSONDocument {
        // Work on locals: class properties would pay a dynamic exclusivity check per append.
        var nodes = tape
        var open = self.open
        defer {
            tape = nodes
            self.open = open
        }
        nodes.count = 0
        open.removeAll()
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
                    open.push(nodes.count)
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
                default:
                    i = try parseScalar(c, base, i, count, &nodes)
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
                _ = open.removeLast()
                i += 1
            } else {
                throw JSONSyntaxError(
                    offset: i, message: "unexpected \(describe(c)), expected ',' or '\(isObject ? "}" : "]")'")
            }
        }
    }

    /// A string, number, `true`, `false` or `null` starting with `c` at `i`; the index after it.
    @inline(__always)
    private func parseScalar(
        _ c: UInt8, _ base: UnsafePointer<UInt8>, _ i: Int, _ count: Int, _ nodes: inout Tape
    ) throws(JSONSyntaxError) -> Int {
        switch c {
        case UInt8(ascii: "\""): return try parseString(base, i, count, &nodes)
        case UInt8(ascii: "-"), UInt8(ascii: "0")...UInt8(ascii: "9"): return try parseNumber(base, i, count, &nodes)
        case UInt8(ascii: "t"): return try parseLiteral(base, i, count, "true", .bool, true, &nodes)
        case UInt8(ascii: "f"): return try parseLiteral(base, i, count, "false", .bool, false, &nodes)
        case UInt8(ascii: "n"): return try parseLiteral(base, i, count, "null", .null, false, &nodes)
        default: throw JSONSyntaxError(offset: i, message: "unexpected character \(describe(c)), a value was expected")
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
        var fractionOrExponent = false
        if i < count, base[i] == UInt8(ascii: ".") {
            fractionOrExponent = true
            i += 1
            guard isDigit(i) else { throw JSONSyntaxError(offset: from, message: "invalid number: no digit after '.'") }
            while isDigit(i) { i += 1 }
        }
        if i < count, base[i] == UInt8(ascii: "e") || base[i] == UInt8(ascii: "E") {
            fractionOrExponent = true
            i += 1
            if i < count, base[i] == UInt8(ascii: "+") || base[i] == UInt8(ascii: "-") { i += 1 }
            guard isDigit(i) else { throw JSONSyntaxError(offset: from, message: "invalid number: no digit in the exponent") }
            while isDigit(i) { i += 1 }
        }
        nodes.append(
            JSONNode(kind: .number, flag: fractionOrExponent, start: UInt32(from), length: UInt32(i - from), next: UInt32(nodes.count + 1)))
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
