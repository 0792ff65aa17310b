import Foundation

/// The canonical text of a parsed JSON value, the input of `row_key`: no whitespace, object keys
/// sorted by their UTF-8 bytes, strings with escapes decoded and re-escaped minimally, numbers in
/// one spelling (`1.0`, `1` and `1e0` agree). So re-indenting a dump or reordering its keys, which
/// `NSJSONSerialization` does freely, never changes a row's key.
final class CanonicalForm {
    /// Staging for the hash, written through a raw pointer (no uniqueness check per byte) and
    /// hashed and emptied whenever it fills, so a large payload never needs its whole canonical
    /// text in memory.
    private let capacity = 1 << 16
    private let staging: UnsafeMutablePointer<UInt8>
    // Touched once per byte written: the dynamic exclusivity check on class properties cost more
    // than the hashing. Safe because one converter, on one thread, owns this object and no access
    // to these properties overlaps another (the static checks still apply).
    @exclusivity(unchecked) private var count = 0
    @exclusivity(unchecked) private var hasher = SHA1()
    /// Member (key, value) indices of the objects being written, innermost last; sorted in place.
    @exclusivity(unchecked) private var members: [(key: Int, value: Int)] = []

    init() { staging = .allocate(capacity: capacity) }
    deinit { staging.deallocate() }

    /// The SHA-1 of the canonical text of the value at `index`. Recursion is bounded by the
    /// parser's nesting limit.
    func digest(of document: JSONDocument, at index: Int) -> [UInt8] {
        count = 0
        members.removeAll(keepingCapacity: true)
        hasher = SHA1()
        append(document, document.nodes, index)
        flush()
        return hasher.finish()
    }

    private func flush() {
        hasher.update(UnsafeRawBufferPointer(start: staging, count: count))
        count = 0
    }

    @inline(__always) private func byte(_ value: UInt8) {
        if count == capacity { flush() }
        staging[count] = value
        count += 1
    }

    private func bytes(_ source: UnsafeBufferPointer<UInt8>) {
        if source.count > capacity - count {
            flush()
            if source.count > capacity {
                hasher.update(UnsafeRawBufferPointer(source))
                return
            }
        }
        if source.count <= 16 {
            // Most keys and numbers are short: a loop beats a memmove call.
            for k in 0..<source.count { staging[count + k] = source[k] }
        } else if let base = source.baseAddress {
            (staging + count).update(from: base, count: source.count)
        }
        count += source.count
    }

    private func bytes(_ source: [UInt8]) { source.withUnsafeBufferPointer { bytes($0) } }

    private func append(_ document: JSONDocument, _ nodes: UnsafeBufferPointer<JSONNode>, _ index: Int) {
        let node = nodes[index]
        switch node.kind {
        case .null: bytes([0x6e, 0x75, 0x6c, 0x6c])
        case .bool: bytes(node.flag ? [0x74, 0x72, 0x75, 0x65] : [0x66, 0x61, 0x6c, 0x73, 0x65])
        case .number: appendNumber(UnsafeBufferPointer(start: document.base + Int(node.start), count: Int(node.length)))
        case .string: appendString(document, nodes, index)
        case .array:
            byte(UInt8(ascii: "["))
            var element = index + 1
            let end = Int(node.next)
            while element < end {
                if element != index + 1 { byte(UInt8(ascii: ",")) }
                append(document, nodes, element)
                element = Int(nodes[element].next)
            }
            byte(UInt8(ascii: "]"))
        case .object:
            let first = members.count
            var key = index + 1
            let end = Int(node.next)
            var sorted = true
            while key < end {
                if members.count > first, sorted, !Self.keyPrecedes(document, nodes, members[members.count - 1].key, key) { sorted = false }
                members.append((key, key + 1))
                key = Int(nodes[key + 1].next)
            }
            // NSJSONSerialization writes keys in hash order; sort this object's members in place.
            if !sorted { members[first...].sort { Self.keyPrecedes(document, nodes, $0.key, $1.key) } }
            byte(UInt8(ascii: "{"))
            for position in first..<members.count {
                if position != first { byte(UInt8(ascii: ",")) }
                let member = members[position]
                appendString(document, nodes, member.key)
                byte(UInt8(ascii: ":"))
                append(document, nodes, member.value)
            }
            byte(UInt8(ascii: "}"))
            members.removeSubrange(first...)
        }
    }

    /// Byte order of decoded keys; most are unescaped, so compare raw when both are.
    private static func keyPrecedes(_ document: JSONDocument, _ nodes: UnsafeBufferPointer<JSONNode>, _ lhs: Int, _ rhs: Int) -> Bool {
        let a = nodes[lhs]
        let b = nodes[rhs]
        if !a.flag && !b.flag {
            let common = Swift.min(Int(a.length), Int(b.length))
            let order = common == 0 ? 0 : memcmp(document.base + Int(a.start), document.base + Int(b.start), common)
            return order != 0 ? order < 0 : a.length < b.length
        }
        return document.decodedStringBytes(lhs).lexicographicallyPrecedes(document.decodedStringBytes(rhs))
    }

    private func appendNumber(_ raw: UnsafeBufferPointer<UInt8>) {
        var isPlainInteger = true
        for c in raw where c == UInt8(ascii: ".") || c == UInt8(ascii: "e") || c == UInt8(ascii: "E") {
            isPlainInteger = false
            break
        }
        if isPlainInteger {
            if raw.count == 2 && raw[0] == UInt8(ascii: "-") && raw[1] == UInt8(ascii: "0") {
                byte(UInt8(ascii: "0"))
            } else {
                bytes(raw)
            }
            return
        }
        guard let value = parseDouble(raw) else { return bytes(raw) }
        bytes(Array(NumberText.shortest(value).utf8))
    }

    private func appendString(_ document: JSONDocument, _ nodes: UnsafeBufferPointer<JSONNode>, _ index: Int) {
        let node = nodes[index]
        byte(UInt8(ascii: "\""))
        if !node.flag {
            bytes(UnsafeBufferPointer(start: document.base + Int(node.start), count: Int(node.length)))
        } else {
            var escaped: [UInt8] = []
            JSONText.appendEscaped(document.decodedStringBytes(index), to: &escaped)
            bytes(escaped)
        }
        byte(UInt8(ascii: "\""))
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
