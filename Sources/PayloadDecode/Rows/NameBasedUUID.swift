/// Name-based UUIDs (RFC 9562 version 5: SHA-1 over namespace + name).
enum NameBasedUUID {
    /// The namespace of yui-perf row keys (a fixed random UUID; changing it changes every key).
    static let rowKeyNamespace: [UInt8] = [
        0x7a, 0x1e, 0x53, 0x0c, 0x9d, 0x42, 0x4b, 0x6e, 0x8f, 0x31, 0x25, 0xc4, 0x60, 0xda, 0x91, 0x07,
    ]

    static func make(namespace: [UInt8], name: [UInt8]) -> String {
        var hasher = SHA1()
        hasher.update(namespace)
        hasher.update(name)
        return make(hashed: hasher)
    }

    /// The UUID of what `hashed` has been given (the namespace, then the name): a caller that keys
    /// many names under one prefix hashes the prefix once and hands a copy per name.
    static func make(hashed: SHA1) -> String {
        var hasher = hashed
        let words = hasher.finishWords()
        // The first 16 bytes of the digest, with the version (5) and the variant (RFC 9562) set.
        let high = UInt64(words.0) << 32 | UInt64(words.1) & ~0xF000 | 0x5000
        let low = (UInt64(words.2) << 32 | UInt64(words.3)) & ~(0xC0 << 56) | 0x80 << 56
        return format(high: high, low: low)
    }

    /// Lower-case 8-4-4-4-12 text of the 16 bytes `high` then `low` (each big-endian), written
    /// straight into the string's storage.
    static func format(high: UInt64, low: UInt64) -> String {
        String(unsafeUninitializedCapacity: 36) { out in
            var position = 0
            for k in 0..<16 {
                if k == 4 || k == 6 || k == 8 || k == 10 {
                    out[position] = UInt8(ascii: "-")
                    position += 1
                }
                let byte = UInt8(truncatingIfNeeded: (k < 8 ? high : low) >> UInt64(56 - 8 * (k & 7)))
                out[position] = hexDigit(byte >> 4)
                out[position + 1] = hexDigit(byte & 0x0f)
                position += 2
            }
            return 36
        }
    }

    @inline(__always) private static func hexDigit(_ value: UInt8) -> UInt8 {
        value < 10 ? UInt8(ascii: "0") + value : UInt8(ascii: "a") - 10 + value
    }
}
