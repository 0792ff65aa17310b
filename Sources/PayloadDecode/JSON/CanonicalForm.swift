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
    /// Members of the objects being written, innermost object's last (`memberCount` in use): each
    /// its key's tape index (the value follows it) and the key's first 8 bytes as a big-endian
    /// number, so most comparisons while sorting are one integer compare. Raw storage: an Array's
    /// uniqueness checks per append were a tenth of the canonical form's time.
    @exclusivity(unchecked) private var members: UnsafeMutablePointer<Member>
    @exclusivity(unchecked) private var memberCapacity = 256
    @exclusivity(unchecked) private var memberCount = 0
    /// The containers being written, innermost last: the writer keeps its own stack instead of
    /// recursing, so a document as deep as a caller's `maxJSONDepth` allows cannot overflow the
    /// thread's stack.
    @exclusivity(unchecked) private var open: UnsafeMutablePointer<OpenContainer>
    @exclusivity(unchecked) private var openCapacity = 64
    @exclusivity(unchecked) private var openCount = 0

    private struct Member {
        var prefix: UInt64
        var key: Int
    }

    /// An array: `next` is the next element's index, `end` the array's end. An object: `first` is
    /// where its members start in `members`, `next` the next one to write.
    private struct OpenContainer {
        var isObject: Bool
        var next: Int
        var endOrFirst: Int
    }

    /// Bytes past `capacity` that short copies may overwrite (they copy whole 16-byte chunks).
    private static let slack = 80

    init() {
        staging = .allocate(capacity: capacity + Self.slack)
        members = .allocate(capacity: memberCapacity)
        open = .allocate(capacity: openCapacity)
    }

    deinit {
        staging.deallocate()
        members.deallocate()
        open.deallocate()
    }

    /// The SHA-1 of the canonical text of the value at `index`.
    func digest(of document: JSONDocument, at index: Int) -> [UInt8] {
        count = 0
        memberCount = 0
        openCount = 0
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

    /// Copies `length` bytes from `source` to the staging area in whole 16-byte chunks when both
    /// sides have room for the overshoot (the staging area's `slack`; the source's `readable`
    /// bytes), else with memmove: most keys, numbers and UUIDs are a few chunks, and a call to
    /// memmove per value was a good part of the canonical form's time.
    @inline(__always) private func copyShort(_ source: UnsafePointer<UInt8>, _ length: Int, readable: Int) {
        let chunks = (length + 15) >> 4
        if length <= 64 && chunks << 4 <= readable {
            let from = UnsafeRawPointer(source)
            let to = UnsafeMutableRawPointer(staging + count)
            for k in 0..<chunks {
                to.storeBytes(of: from.loadUnaligned(fromByteOffset: 16 * k, as: SIMD16<UInt8>.self), toByteOffset: 16 * k, as: SIMD16<UInt8>.self)
            }
        } else {
            (staging + count).update(from: source, count: length)
        }
        count += length
    }

    /// An unescaped string of the document, in quotes, preceded by `lead` (a comma, or 0 for
    /// none) and followed by `trail` (a colon after a key, or 0).
    @inline(__always) private func quoted(_ document: JSONDocument, _ node: JSONNode, lead: UInt8, trail: UInt8) {
        let length = Int(node.length)
        guard length + 4 <= capacity else {
            if lead != 0 { byte(lead) }
            byte(UInt8(ascii: "\""))
            bytes(UnsafeBufferPointer(start: document.base + Int(node.start), count: length))
            byte(UInt8(ascii: "\""))
            if trail != 0 { byte(trail) }
            return
        }
        if length + 4 > capacity - count { flush() }
        if lead != 0 {
            staging[count] = lead
            count += 1
        }
        staging[count] = UInt8(ascii: "\"")
        count += 1
        let start = Int(node.start)
        copyShort(document.base + start, length, readable: document.count - start)
        staging[count] = UInt8(ascii: "\"")
        count += 1
        if trail != 0 {
            staging[count] = trail
            count += 1
        }
    }

    /// A member's key and colon, with a comma before it unless it is the object's first.
    @inline(__always) private func writeKey(
        _ document: JSONDocument, _ nodes: UnsafeBufferPointer<JSONNode>, _ index: Int, first: Bool
    ) {
        let node = nodes[index]
        if node.flag {
            if !first { byte(UInt8(ascii: ",")) }
            appendString(document, nodes, index)
            byte(UInt8(ascii: ":"))
        } else {
            quoted(document, node, lead: first ? 0 : UInt8(ascii: ","), trail: UInt8(ascii: ":"))
        }
    }

    @inline(__always) private func push(_ container: OpenContainer) {
        if openCount == openCapacity {
            let bigger = UnsafeMutablePointer<OpenContainer>.allocate(capacity: openCapacity * 2)
            bigger.moveInitialize(from: open, count: openCount)
            open.deallocate()
            open = bigger
            openCapacity *= 2
        }
        open[openCount] = container
        openCount += 1
    }

    @inline(__always) private func addMember(_ member: Member) {
        if memberCount == memberCapacity {
            let bigger = UnsafeMutablePointer<Member>.allocate(capacity: memberCapacity * 2)
            bigger.moveInitialize(from: members, count: memberCount)
            members.deallocate()
            members = bigger
            memberCapacity *= 2
        }
        members[memberCount] = member
        memberCount += 1
    }

    /// The first 8 bytes of an unescaped key, big-endian, zero-padded: comparing two of these
    /// orders the keys as their bytes do, except that equal prefixes need the rest compared
    /// (a key holds no zero byte unescaped, so padding sorts a shorter key first, as bytes do).
    @inline(__always) private static func prefix(_ document: JSONDocument, _ node: JSONNode) -> UInt64 {
        let start = Int(node.start)
        let length = Int(node.length)
        if length >= 8 {
            return UInt64(bigEndian: UnsafeRawPointer(document.base + start).loadUnaligned(as: UInt64.self))
        }
        var value: UInt64 = 0
        for k in 0..<length { value |= UInt64(document.base[start + k]) << (56 - 8 * UInt64(k)) }
        return value
    }

    /// Key order for two members whose keys are both unescaped.
    @inline(__always) private static func precedes(
        _ document: JSONDocument, _ nodes: UnsafeBufferPointer<JSONNode>, _ a: Member, _ b: Member
    ) -> Bool {
        if a.prefix != b.prefix { return a.prefix < b.prefix }
        let x = nodes[a.key]
        let y = nodes[b.key]
        let common = Swift.min(Int(x.length), Int(y.length))
        if common > 8 {
            let order = memcmp(document.base + Int(x.start) + 8, document.base + Int(y.start) + 8, common - 8)
            if order != 0 { return order < 0 }
        }
        return x.length < y.length
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

    private func append(_ document: JSONDocument, _ nodes: UnsafeBufferPointer<JSONNode>, _ root: Int) {
        var value = root  // the next value to write; -1 when the innermost open container goes on
        while true {
            if value >= 0 {
                let node = nodes[value]
                switch node.kind {
                case .null: bytes([0x6e, 0x75, 0x6c, 0x6c])
                case .bool: bytes(node.flag ? [0x74, 0x72, 0x75, 0x65] : [0x66, 0x61, 0x6c, 0x73, 0x65])
                case .number:
                    appendNumber(
                        UnsafeBufferPointer(start: document.base + Int(node.start), count: Int(node.length)),
                        isPlainInteger: !node.flag, readable: document.count - Int(node.start))
                case .string: appendString(document, nodes, value)
                case .array:
                    byte(UInt8(ascii: "["))
                    let element = value + 1
                    let end = Int(node.next)
                    if element < end {
                        push(OpenContainer(isObject: false, next: Int(nodes[element].next), endOrFirst: end))
                        value = element
                        continue
                    }
                    byte(UInt8(ascii: "]"))
                case .object:
                    let first = addSortedMembers(document, nodes, of: value)
                    byte(UInt8(ascii: "{"))
                    if memberCount > first {
                        writeKey(document, nodes, members[first].key, first: true)
                        push(OpenContainer(isObject: true, next: first + 1, endOrFirst: first))
                        value = members[first].key + 1
                        continue
                    }
                    byte(UInt8(ascii: "}"))
                }
                value = -1
            }
            // The value is written: go on with the innermost open container, or stop.
            guard openCount > 0 else { return }
            openCount -= 1
            let container = open[openCount]
            if !container.isObject {
                let next = container.next
                let end = container.endOrFirst
                if next < end {
                    byte(UInt8(ascii: ","))
                    push(OpenContainer(isObject: false, next: Int(nodes[next].next), endOrFirst: end))
                    value = next
                } else {
                    byte(UInt8(ascii: "]"))
                }
            } else {
                let next = container.next
                // Inner objects have removed their members, so this object's end is `memberCount`.
                if next < memberCount {
                    writeKey(document, nodes, members[next].key, first: false)
                    push(OpenContainer(isObject: true, next: next + 1, endOrFirst: container.endOrFirst))
                    value = members[next].key + 1
                } else {
                    byte(UInt8(ascii: "}"))
                    memberCount = container.endOrFirst
                }
            }
        }
    }

    /// Adds the members of the object at `object` after `memberCount`, sorted by key (NSJSONSerialization
    /// writes keys in hash order); returns where they start.
    private func addSortedMembers(_ document: JSONDocument, _ nodes: UnsafeBufferPointer<JSONNode>, of object: Int) -> Int {
        let first = memberCount
        var key = object + 1
        let end = Int(nodes[object].next)
        var sorted = true
        var escaped = false
        while key < end {
            let keyNode = nodes[key]
            escaped = escaped || keyNode.flag
            let member = Member(prefix: keyNode.flag ? 0 : Self.prefix(document, keyNode), key: key)
            if memberCount > first, sorted, !escaped, !Self.precedes(document, nodes, members[memberCount - 1], member) {
                sorted = false
            }
            addMember(member)
            key = Int(nodes[key + 1].next)
        }
        // NSJSONSerialization writes keys in hash order; sort this object's members in place.
        if escaped {
            var slice = UnsafeMutableBufferPointer(start: members + first, count: memberCount - first)
            slice.sort { Self.keyPrecedes(document, nodes, $0.key, $1.key) }
        } else if !sorted {
            sortMembers(document, nodes, first, memberCount)
        }
        return first
    }

    /// Sorts members `first..<end` (all keys unescaped): insertion sort for the few members most
    /// objects have, the standard sort beyond.
    private func sortMembers(_ document: JSONDocument, _ nodes: UnsafeBufferPointer<JSONNode>, _ first: Int, _ end: Int) {
        if end - first > 24 {
            var slice = UnsafeMutableBufferPointer(start: members + first, count: end - first)
            slice.sort { Self.precedes(document, nodes, $0, $1) }
            return
        }
        var i = first + 1
        while i < end {
            let member = members[i]
            var j = i
            while j > first, Self.precedes(document, nodes, member, members[j - 1]) {
                members[j] = members[j - 1]
                j -= 1
            }
            members[j] = member
            i += 1
        }
    }

    /// A number in its one spelling (`isPlainInteger`: no fraction or exponent, as the parser
    /// told); `readable` is how many bytes of the document follow its start.
    private func appendNumber(_ raw: UnsafeBufferPointer<UInt8>, isPlainInteger: Bool, readable: Int) {
        if isPlainInteger {
            if raw.count == 2 && raw[0] == UInt8(ascii: "-") && raw[1] == UInt8(ascii: "0") {
                byte(UInt8(ascii: "0"))
            } else if raw.count <= 64, let base = raw.baseAddress {
                if raw.count > capacity - count { flush() }
                copyShort(base, raw.count, readable: readable)
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
        if !node.flag { return quoted(document, node, lead: 0, trail: 0) }
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
