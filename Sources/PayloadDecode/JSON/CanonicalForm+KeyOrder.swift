import Foundation

/// Key order for the canonical form: each member's key prefix, comparisons, and the layouts of
/// objects whose order is kept.
extension CanonicalForm {
    /// The first 8 bytes of an unescaped key, big-endian, zero-padded: comparing two of these
    /// orders the keys as their bytes do, except that equal prefixes need the rest compared
    /// (a key holds no zero byte unescaped, so padding sorts a shorter key first, as bytes do).
    @inline(__always) static func prefix(_ document: JSONDocument, _ node: JSONNode) -> UInt64 {
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
    @inline(__always) static func precedes(
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
    static func keyPrecedes(_ document: JSONDocument, _ nodes: UnsafeBufferPointer<JSONNode>, _ lhs: Int, _ rhs: Int) -> Bool {
        let a = nodes[lhs]
        let b = nodes[rhs]
        if !a.flag && !b.flag {
            let common = Swift.min(Int(a.length), Int(b.length))
            let order = common == 0 ? 0 : memcmp(document.base + Int(a.start), document.base + Int(b.start), common)
            return order != 0 ? order < 0 : a.length < b.length
        }
        return document.decodedStringBytes(lhs).lexicographicallyPrecedes(document.decodedStringBytes(rhs))
    }
}

/// The sorted order of the last objects whose keys were out of order, one layout per slot: a
/// payload's stack frames repeat two or three key layouts in the same unsorted order (a frame
/// with `subFrames`, a leaf), so an object that lists the same key prefixes as a kept layout takes
/// its order without sorting (sorting was a sixth of the canonical form's instructions). Kept only
/// for objects of at most `limit` keys whose prefixes all differ, so the prefixes alone decide the
/// order. Raw storage, owned by one `CanonicalForm` on one thread.
final class KeyOrderLayouts {
    static let limit = 24
    private static let slots = 4
    /// Per slot: the layout's key count (0: none kept), its prefixes in document order, and for
    /// each sorted place the document place of the member that goes there.
    private let counts: UnsafeMutablePointer<Int>
    private let prefixes: UnsafeMutablePointer<UInt64>
    private let order: UnsafeMutablePointer<Int>
    private let scratch: UnsafeMutablePointer<CanonicalForm.Member>

    init() {
        counts = .allocate(capacity: Self.slots)
        counts.initialize(repeating: 0, count: Self.slots)
        prefixes = .allocate(capacity: Self.slots * Self.limit)
        order = .allocate(capacity: Self.slots * Self.limit)
        scratch = .allocate(capacity: Self.limit)
    }

    func deallocate() {
        counts.deallocate()
        prefixes.deallocate()
        order.deallocate()
        scratch.deallocate()
    }

    /// Objects of different key counts (a frame with and without `subFrames`) keep apart.
    @inline(__always) func slot(forCount count: Int) -> Int { count % Self.slots }

    /// Whether the layout kept in `slot` is that of `members`: as many keys, the same prefixes
    /// in the same order.
    @inline(__always) func matches(_ slot: Int, _ members: UnsafeMutablePointer<CanonicalForm.Member>, _ count: Int) -> Bool {
        guard counts[slot] == count else { return false }
        let kept = prefixes + slot * Self.limit
        for k in 0..<count where members[k].prefix != kept[k] { return false }
        return true
    }

    /// Puts `members` in the kept layout's order.
    func reorder(_ slot: Int, _ members: UnsafeMutablePointer<CanonicalForm.Member>, _ count: Int) {
        let places = order + slot * Self.limit
        for k in 0..<count { scratch[k] = members[places[k]] }
        members.update(from: scratch, count: count)
    }

    /// Notes `members` in document order, before they are sorted.
    func beginKeeping(_ slot: Int, _ members: UnsafeMutablePointer<CanonicalForm.Member>, _ count: Int) {
        counts[slot] = 0
        let kept = prefixes + slot * Self.limit
        for k in 0..<count {
            kept[k] = members[k].prefix
            scratch[k] = members[k]
        }
    }

    /// Keeps the order of `sorted` (the members `beginKeeping` noted, sorted), unless two prefixes
    /// are equal: then their rest decided, and another object with these prefixes may differ there.
    func keep(_ slot: Int, sorted: UnsafeMutablePointer<CanonicalForm.Member>, _ count: Int) {
        let places = order + slot * Self.limit
        for k in 0..<count {
            if k > 0, sorted[k].prefix == sorted[k - 1].prefix { return }
            var place = 0
            while scratch[place].key != sorted[k].key { place += 1 }
            places[k] = place
        }
        counts[slot] = count
    }
}
