import Foundation

/// The canonical text of a parsed JSON value, the input of `row_key`: no whitespace, object keys
/// sorted by their UTF-8 bytes, strings with escapes decoded and re-escaped minimally, numbers in
/// one spelling (`1.0`, `1` and `1e0` agree). So re-indenting a dump or reordering its keys, which
/// `NSJSONSerialization` does freely, never changes a row's key.
struct CanonicalForm {
    private(set) var bytes: [UInt8] = []

    /// Replaces the content with the canonical text of the value at `index` and returns its SHA-1.
    /// Recursion is bounded by the parser's nesting limit.
    mutating func digest(of document: JSONDocument, at index: Int) -> [UInt8] {
        bytes.removeAll(keepingCapacity: true)
        append(document, index)
        return bytes.withUnsafeBytes { SHA1.digest($0) }
    }

    private mutating func append(_ document: JSONDocument, _ index: Int) {
        let node = document.nodes[index]
        switch node.kind {
        case .null: bytes.append(contentsOf: [0x6e, 0x75, 0x6c, 0x6c])
        case .bool: bytes.append(contentsOf: node.flag ? Array("true".utf8) : Array("false".utf8))
        case .number: appendNumber(document.rawBytes(index))
        case .string: appendString(document, index)
        case .array:
            bytes.append(UInt8(ascii: "["))
            var first = true
            for element in document.elements(index) {
                if !first { bytes.append(UInt8(ascii: ",")) }
                first = false
                append(document, element)
            }
            bytes.append(UInt8(ascii: "]"))
        case .object:
            var members: [(key: Int, value: Int)] = []
            document.forEachMember(index) { members.append(($0, $1)) }
            // Keys are compared as decoded bytes; most are unescaped, so compare raw when both are.
            let sorted = members.sorted { lhs, rhs in
                if !document.nodes[lhs.key].flag && !document.nodes[rhs.key].flag {
                    let a = document.rawBytes(lhs.key)
                    let b = document.rawBytes(rhs.key)
                    let common = Swift.min(a.count, b.count)
                    let order = common == 0 ? 0 : memcmp(a.baseAddress!, b.baseAddress!, common)
                    return order != 0 ? order < 0 : a.count < b.count
                }
                return document.decodedStringBytes(lhs.key).lexicographicallyPrecedes(document.decodedStringBytes(rhs.key))
            }
            bytes.append(UInt8(ascii: "{"))
            var first = true
            for member in sorted {
                if !first { bytes.append(UInt8(ascii: ",")) }
                first = false
                appendString(document, member.key)
                bytes.append(UInt8(ascii: ":"))
                append(document, member.value)
            }
            bytes.append(UInt8(ascii: "}"))
        }
    }

    private mutating func appendNumber(_ raw: UnsafeBufferPointer<UInt8>) {
        let isPlainInteger = !raw.contains { $0 == UInt8(ascii: ".") || $0 == UInt8(ascii: "e") || $0 == UInt8(ascii: "E") }
        if isPlainInteger {
            if raw.count == 2 && raw[0] == UInt8(ascii: "-") && raw[1] == UInt8(ascii: "0") {
                bytes.append(UInt8(ascii: "0"))
            } else {
                bytes.append(contentsOf: raw)
            }
            return
        }
        guard let value = parseDouble(raw) else {
            bytes.append(contentsOf: raw)
            return
        }
        bytes.append(contentsOf: Array(NumberText.shortest(value).utf8))
    }

    private mutating func appendString(_ document: JSONDocument, _ index: Int) {
        bytes.append(UInt8(ascii: "\""))
        if !document.nodes[index].flag {
            bytes.append(contentsOf: document.rawBytes(index))
        } else {
            JSONText.appendEscaped(document.decodedStringBytes(index), to: &bytes)
        }
        bytes.append(UInt8(ascii: "\""))
    }
}

/// Numbers as the output formats print them: shortest text that reads back to the same Double,
/// integers without a fraction.
enum NumberText {
    static func shortest(_ value: Double) -> String {
        if value == value.rounded(.towardZero) && abs(value) < 1e15 {
            return String(Int64(value))
        }
        return value.description
    }
}

enum JSONText {
    /// Appends UTF-8 `content` escaped for a JSON string (quotes not included).
    static func appendEscaped(_ content: some Sequence<UInt8>, to out: inout [UInt8]) {
        let hex = Array("0123456789abcdef".utf8)
        for c in content {
            switch c {
            case UInt8(ascii: "\""): out.append(contentsOf: [0x5c, 0x22])
            case UInt8(ascii: "\\"): out.append(contentsOf: [0x5c, 0x5c])
            case 0x0a: out.append(contentsOf: [0x5c, UInt8(ascii: "n")])
            case 0x0d: out.append(contentsOf: [0x5c, UInt8(ascii: "r")])
            case 0x09: out.append(contentsOf: [0x5c, UInt8(ascii: "t")])
            case 0..<0x20:
                out.append(contentsOf: [0x5c, UInt8(ascii: "u"), 0x30, 0x30, hex[Int(c >> 4)], hex[Int(c & 0x0f)]])
            default: out.append(c)
            }
        }
    }
}
