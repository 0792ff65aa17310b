/// Open-addressing hash tables for the index builder, which interns every name, file and location
/// record it meets (millions of look-ups for a large binary). Swift's `Dictionary` hashes with a
/// seeded SipHash and grew by rehashing: a fifth of a build went there. These hash with a
/// multiply-and-shift mix, and store the keys in the table's own arrays.

/// Multiply-xorshift mixing of one word (a finalizer in the manner of splitmix64).
@inline(__always) private func mix(_ value: UInt64) -> UInt64 {
    var x = value &* 0x9E37_79B9_7F4A_7C15
    x ^= x >> 32
    x = x &* 0xD6E8_FEB8_6659_FD93
    return x ^ (x >> 32)
}

/// Numbers each distinct string once: `intern` returns the string's number, giving a new string the
/// next one.
struct StringInterner {
    private(set) var strings: [String] = []
    private var hashes: [UInt64] = []
    /// Slot → string number + 1 (0: empty).
    private var slots: [UInt32] = Array(repeating: 0, count: 1 << 12)

    static func hash(_ text: String) -> UInt64 {
        var text = text
        return text.withUTF8 { bytes -> UInt64 in
            var h: UInt64 = 0xCBF2_9CE4_8422_2325 ^ UInt64(bytes.count)
            var index = 0
            // Eight bytes at a time, then the rest.
            while index + 8 <= bytes.count {
                let word = UnsafeRawBufferPointer(rebasing: UnsafeRawBufferPointer(bytes)[index..<(index + 8)]).loadUnaligned(as: UInt64.self)
                h = mix(h ^ word)
                index += 8
            }
            var tail: UInt64 = 0
            var shift: UInt64 = 0
            while index < bytes.count {
                tail |= UInt64(bytes[index]) << shift
                shift += 8
                index += 1
            }
            return mix(h ^ tail)
        }
    }

    mutating func intern(_ text: String) -> UInt32 {
        let hash = Self.hash(text)
        var mask = slots.count - 1
        var slot = Int(truncatingIfNeeded: hash) & mask
        while slots[slot] != 0 {
            let number = Int(slots[slot] - 1)
            if hashes[number] == hash, strings[number] == text { return UInt32(number) }
            slot = (slot + 1) & mask
        }
        let number = strings.count
        strings.append(text)
        hashes.append(hash)
        slots[slot] = UInt32(number + 1)
        if strings.count * 2 > slots.count {
            grow()
            mask = slots.count - 1
        }
        return UInt32(number)
    }

    private mutating func grow() {
        slots = Array(repeating: 0, count: slots.count * 2)
        let mask = slots.count - 1
        for (number, hash) in hashes.enumerated() {
            var slot = Int(truncatingIfNeeded: hash) & mask
            while slots[slot] != 0 { slot = (slot + 1) & mask }
            slots[slot] = UInt32(number + 1)
        }
    }
}

/// Numbers each distinct key of three words and a byte once, as `StringInterner` does strings.
struct WordsInterner {
    private struct Key: Equatable {
        var a: UInt64
        var b: UInt64
        var c: UInt64
        var d: UInt8
    }

    /// The keys in number order, side by side so a probe reads one cache line.
    private var keys: [Key] = []
    /// Slot → key number + 1 (0: empty).
    private var slots: [UInt32] = Array(repeating: 0, count: 1 << 12)
    var count: Int { keys.count }

    @inline(__always) private static func hash(_ key: Key) -> UInt64 {
        mix(mix(mix(key.a) ^ key.b) ^ key.c ^ UInt64(key.d) << 56)
    }

    /// The key's number, and whether it is new.
    mutating func intern(_ a: UInt64, _ b: UInt64, _ c: UInt64, _ d: UInt8) -> (number: UInt32, isNew: Bool) {
        let key = Key(a: a, b: b, c: c, d: d)
        let mask = slots.count - 1
        var slot = Int(truncatingIfNeeded: Self.hash(key)) & mask
        while slots[slot] != 0 {
            let number = Int(slots[slot] - 1)
            if keys[number] == key { return (UInt32(number), false) }
            slot = (slot + 1) & mask
        }
        let number = keys.count
        keys.append(key)
        slots[slot] = UInt32(number + 1)
        if keys.count * 2 > slots.count { grow() }
        return (UInt32(number), true)
    }

    private mutating func grow() {
        slots = Array(repeating: 0, count: slots.count * 2)
        let mask = slots.count - 1
        for (number, key) in keys.enumerated() {
            var slot = Int(truncatingIfNeeded: Self.hash(key)) & mask
            while slots[slot] != 0 { slot = (slot + 1) & mask }
            slots[slot] = UInt32(number + 1)
        }
    }
}

/// A map from 64-bit keys (DIE offsets, symbol name offsets) to values, hashed as `WordsInterner`
/// hashes: `Dictionary`'s seeded SipHash was most of a cached name lookup, made for every frame of
/// every point an index build answers.
struct WordMap<Value> {
    private var keys: [UInt64] = []
    private var values: [Value] = []
    /// Slot → entry number + 1 (0: empty).
    private var slots: [UInt32] = Array(repeating: 0, count: 1 << 8)

    subscript(key: UInt64) -> Value? {
        let mask = slots.count - 1
        var slot = Int(truncatingIfNeeded: mix(key)) & mask
        while slots[slot] != 0 {
            let number = Int(slots[slot] - 1)
            if keys[number] == key { return values[number] }
            slot = (slot + 1) & mask
        }
        return nil
    }

    /// Sets the value of `key`, replacing the one it had.
    mutating func set(_ key: UInt64, _ value: Value) {
        let mask = slots.count - 1
        var slot = Int(truncatingIfNeeded: mix(key)) & mask
        while slots[slot] != 0 {
            let number = Int(slots[slot] - 1)
            if keys[number] == key {
                values[number] = value
                return
            }
            slot = (slot + 1) & mask
        }
        keys.append(key)
        values.append(value)
        slots[slot] = UInt32(keys.count)
        if keys.count * 2 > slots.count { grow() }
    }

    /// Empties the map and lets go of its storage (a batch's end releases what it read).
    mutating func removeAll() { self = WordMap() }

    /// Every key and value, in the order they were first set.
    var entries: Zip2Sequence<[UInt64], [Value]> { zip(keys, values) }

    private mutating func grow() {
        slots = Array(repeating: 0, count: slots.count * 2)
        let mask = slots.count - 1
        for (number, key) in keys.enumerated() {
            var slot = Int(truncatingIfNeeded: mix(key)) & mask
            while slots[slot] != 0 { slot = (slot + 1) & mask }
            slots[slot] = UInt32(number + 1)
        }
    }
}

extension WordMap: Sendable where Value: Sendable {}
