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
    /// The containers being written, innermost last: the writer keeps its own stack instead of
    /// recursing, so a document as deep as a caller's `maxJSONDepth` allows cannot overflow the
    /// thread's stack.
    @exclusivity(unchecked) private var open: [OpenContainer] = []

    private enum OpenContainer {
        /// An array: the next element's index and the array's end.
        case array(next: Int, end: Int)
        /// An object: where its members start in `members`, and the next one to write.
        case object(first: Int, next: Int)
    }

    init() { staging = .allocate(capacity: capacity) }
    deinit { staging.deallocate() }

    /// The SHA-1 of the canonical text of the value at `index`.
    func digest(of document: JSONDocument, at index: Int) -> [UInt8] {
        count = 0
        members.removeAll(keepingCapacity: true)
        open.removeAll(keepingCapacity: true)
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

    private func append(_ document: JSONDocument, _ nodes: UnsafeBufferPointer<JSONNode>, _ root: Int) {
        var value = root  // the next value to write; -1 when the innermost open container goes on
        while true {
            if value >= 0 {
                let node = nodes[value]
                switch node.kind {
                case .null: bytes([0x6e, 0x75, 0x6c, 0x6c])
                case .bool: bytes(node.flag ? [0x74, 0x72, 0x75, 0x65] : [0x66, 0x61, 0x6c, 0x73, 0x65])
                case .number: appendNumber(UnsafeBufferPointer(start: document.base + Int(node.start), count: Int(node.length)))
                case .string: appendString(document, nodes, value)
                case .array:
                    byte(UInt8(ascii: "["))
                    let element = value + 1
                    let end = Int(node.next)
                    if element < end {
                        open.append(.array(next: Int(nodes[element].next), end: end))
                        value = element
                        continue
                    }
                    byte(UInt8(ascii: "]"))
                case .object:
                    let first = members.count
                    var key = value + 1
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
                    if members.count > first {
                        appendString(document, nodes, members[first].key)
                        byte(UInt8(ascii: ":"))
                        open.append(.object(first: first, next: first + 1))
                        value = members[first].value
                        continue
                    }
                    byte(UInt8(ascii: "}"))
                }
                value = -1
            }
            // The value is written: go on with the innermost open container, or stop.
            guard let container = open.popLast() else { return }
            switch container {
            case .array(let next, let end):
                if next < end {
                    byte(UInt8(ascii: ","))
                    open.append(.array(next: Int(nodes[next].next), end: end))
                    value = next
                } else {
                    byte(UInt8(ascii: "]"))
                }
            case .object(let first, let next):
                // Inner objects have removed their members, so this object's end is `members.count`.
                if next < members.count {
                    byte(UInt8(ascii: ","))
                    appendString(document, nodes, members[next].key)
                    byte(UInt8(ascii: ":"))
                    open.append(.object(first: first, next: next + 1))
                    value = members[next].value
                } else {
                    byte(UInt8(ascii: "}"))
                    members.removeSubrange(first...)
                }
            }
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
