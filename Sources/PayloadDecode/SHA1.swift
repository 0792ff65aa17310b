/// SHA-1 (FIPS 180-4), written here because `row_key` is a version 5 UUID and the package takes
/// nothing from outside the toolchain. Used for identity, not for security.
struct SHA1 {
    private var state: (UInt32, UInt32, UInt32, UInt32, UInt32) = (0x6745_2301, 0xEFCD_AB89, 0x98BA_DCFE, 0x1032_5476, 0xC3D2_E1F0)
    private var block = [UInt8](repeating: 0, count: 64)
    private var blockFill = 0
    private var totalBytes: UInt64 = 0

    init() {}

    mutating func update(_ bytes: UnsafeRawBufferPointer) {
        guard var pointer = bytes.baseAddress?.assumingMemoryBound(to: UInt8.self) else { return }
        var remaining = bytes.count
        totalBytes &+= UInt64(remaining)
        if blockFill > 0 {
            let take = Swift.min(64 - blockFill, remaining)
            for k in 0..<take { block[blockFill + k] = pointer[k] }
            blockFill += take
            pointer += take
            remaining -= take
            if blockFill == 64 {
                block.withUnsafeBufferPointer { compress($0.baseAddress!) }
                blockFill = 0
            }
        }
        while remaining >= 64 {
            compress(pointer)
            pointer += 64
            remaining -= 64
        }
        for k in 0..<remaining { block[blockFill + k] = pointer[k] }
        blockFill += remaining
    }

    mutating func update(_ bytes: [UInt8]) { bytes.withUnsafeBytes { update($0) } }
    mutating func update(_ string: String) {
        var string = string
        string.withUTF8 { update(UnsafeRawBufferPointer($0)) }
    }

    mutating func finish() -> [UInt8] {
        let bitLength = totalBytes &* 8
        var padding: [UInt8] = [0x80]
        let afterPad = (blockFill + 1) % 64
        padding += [UInt8](repeating: 0, count: afterPad <= 56 ? 56 - afterPad : 120 - afterPad)
        for shift in stride(from: 56, through: 0, by: -8) { padding.append(UInt8(truncatingIfNeeded: bitLength >> UInt64(shift))) }
        let savedTotal = totalBytes
        update(padding)
        totalBytes = savedTotal
        var digest: [UInt8] = []
        for word in [state.0, state.1, state.2, state.3, state.4] {
            digest += [UInt8(word >> 24), UInt8(truncatingIfNeeded: word >> 16), UInt8(truncatingIfNeeded: word >> 8), UInt8(truncatingIfNeeded: word)]
        }
        return digest
    }

    static func digest(_ bytes: UnsafeRawBufferPointer) -> [UInt8] {
        var hasher = SHA1()
        hasher.update(bytes)
        return hasher.finish()
    }

    private mutating func compress(_ p: UnsafePointer<UInt8>) {
        // The 80-word schedule is kept as a rolling window of 16 words.
        var w: (UInt32, UInt32, UInt32, UInt32, UInt32, UInt32, UInt32, UInt32, UInt32, UInt32, UInt32, UInt32, UInt32, UInt32, UInt32, UInt32) =
            (0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0)
        var (a, b, c, d, e) = state
        withUnsafeMutableBytes(of: &w) { raw in
            let words = raw.bindMemory(to: UInt32.self)
            for t in 0..<16 {
                words[t] = UInt32(p[4 * t]) << 24 | UInt32(p[4 * t + 1]) << 16 | UInt32(p[4 * t + 2]) << 8 | UInt32(p[4 * t + 3])
            }
            @inline(__always) func schedule(_ t: Int) -> UInt32 {
                if t < 16 { return words[t] }
                let x = words[(t - 3) & 15] ^ words[(t - 8) & 15] ^ words[(t - 14) & 15] ^ words[t & 15]
                let rotated = x << 1 | x >> 31
                words[t & 15] = rotated
                return rotated
            }
            @inline(__always) func round(_ f: UInt32, _ k: UInt32, _ word: UInt32) {
                let temp = (a << 5 | a >> 27) &+ f &+ e &+ k &+ word
                e = d
                d = c
                c = b << 30 | b >> 2
                b = a
                a = temp
            }
            for t in 0..<20 { round((b & c) | (~b & d), 0x5A82_7999, schedule(t)) }
            for t in 20..<40 { round(b ^ c ^ d, 0x6ED9_EBA1, schedule(t)) }
            for t in 40..<60 { round((b & c) | (b & d) | (c & d), 0x8F1B_BCDC, schedule(t)) }
            for t in 60..<80 { round(b ^ c ^ d, 0xCA62_C1D6, schedule(t)) }
        }
        state = (state.0 &+ a, state.1 &+ b, state.2 &+ c, state.3 &+ d, state.4 &+ e)
    }
}

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
        var bytes = Array(hasher.finish().prefix(16))
        bytes[6] = (bytes[6] & 0x0f) | 0x50
        bytes[8] = (bytes[8] & 0x3f) | 0x80
        return format(bytes)
    }

    /// Lower-case 8-4-4-4-12 text of 16 bytes.
    static func format(_ bytes: [UInt8]) -> String {
        let digits = Array("0123456789abcdef".utf8)
        var out: [UInt8] = []
        out.reserveCapacity(36)
        for (k, byte) in bytes.enumerated() {
            if k == 4 || k == 6 || k == 8 || k == 10 { out.append(UInt8(ascii: "-")) }
            out.append(digits[Int(byte >> 4)])
            out.append(digits[Int(byte & 0x0f)])
        }
        return String(decoding: out, as: UTF8.self)
    }
}
