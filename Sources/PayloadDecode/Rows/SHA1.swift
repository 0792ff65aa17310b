import CPayloadKernels

/// Whether the CPU has the x86 SHA instructions (checked once).
private let sha1HardwareAvailable = yui_sha1_hardware_available() != 0

/// SHA-1 (FIPS 180-4), written here because `row_key` is a version 5 UUID and the package takes
/// nothing from outside the toolchain. Used for identity, not for security. The compression runs
/// on the CPU's SHA instructions when it has them (`CPayloadKernels`, about three times the speed), else on
/// the Swift code below; both give the same digests (SHA1Tests checks them against each other).
struct SHA1 {
    private var state: (UInt32, UInt32, UInt32, UInt32, UInt32) = (0x6745_2301, 0xEFCD_AB89, 0x98BA_DCFE, 0x1032_5476, 0xC3D2_E1F0)
    /// The partial block, inline (an Array here was an allocation per hash: one per row key).
    private var block: (UInt64, UInt64, UInt64, UInt64, UInt64, UInt64, UInt64, UInt64) = (0, 0, 0, 0, 0, 0, 0, 0)
    private var blockFill = 0
    private var totalBytes: UInt64 = 0
    private let hardware: Bool

    init() { hardware = sha1HardwareAvailable }

    /// `hardware: false` always uses the Swift compression (for the tests that compare the two).
    init(hardware: Bool) { self.hardware = hardware && sha1HardwareAvailable }

    /// Whether digests here are computed with the CPU's SHA instructions.
    static var usesHardware: Bool { sha1HardwareAvailable }

    mutating func update(_ bytes: UnsafeRawBufferPointer) {
        guard var pointer = bytes.baseAddress?.assumingMemoryBound(to: UInt8.self) else { return }
        var remaining = bytes.count
        totalBytes &+= UInt64(remaining)
        if blockFill > 0 {
            let take = Swift.min(64 - blockFill, remaining)
            let fill = blockFill
            withUnsafeMutableBytes(of: &block) { (block: UnsafeMutableRawBufferPointer) in
                for k in 0..<take { block[fill + k] = pointer[k] }
            }
            blockFill += take
            pointer += take
            remaining -= take
            if blockFill == 64 {
                var full = block
                withUnsafeBytes(of: &full) { compressBlocks($0.baseAddress!.assumingMemoryBound(to: UInt8.self), 1) }
                blockFill = 0
            }
        }
        if remaining >= 64 {
            let blocks = remaining / 64
            compressBlocks(pointer, blocks)
            pointer += 64 * blocks
            remaining -= 64 * blocks
        }
        let fill = blockFill
        let rest = pointer
        withUnsafeMutableBytes(of: &block) { (block: UnsafeMutableRawBufferPointer) in
            for k in 0..<remaining { block[fill + k] = rest[k] }
        }
        blockFill += remaining
    }

    mutating func update(_ bytes: [UInt8]) { bytes.withUnsafeBytes { update($0) } }
    mutating func update(byte: UInt8) {
        var value = byte
        withUnsafeBytes(of: &value) { update($0) }
    }
    mutating func update(_ string: String) {
        var string = string
        string.withUTF8 { update(UnsafeRawBufferPointer($0)) }
    }

    mutating func finish() -> [UInt8] {
        let words = finishWords()
        return [UInt8](unsafeUninitializedCapacity: 20) { digest, initialized in
            for (k, word) in [words.0, words.1, words.2, words.3, words.4].enumerated() {
                digest[4 * k] = UInt8(word >> 24)
                digest[4 * k + 1] = UInt8(truncatingIfNeeded: word >> 16)
                digest[4 * k + 2] = UInt8(truncatingIfNeeded: word >> 8)
                digest[4 * k + 3] = UInt8(truncatingIfNeeded: word)
            }
            initialized = 20
        }
    }

    /// The digest as five big-endian words (the digest's bytes are each word's, high byte first),
    /// without an Array: row keys take one per row.
    mutating func finishWords() -> (UInt32, UInt32, UInt32, UInt32, UInt32) {
        let bitLength = totalBytes &* 8
        // 0x80, zeros to 56 bytes past a block boundary, the bit length big-endian: at most 72 bytes.
        let afterPad = (blockFill + 1) % 64
        let paddingCount = 1 + (afterPad <= 56 ? 56 - afterPad : 120 - afterPad) + 8
        var padding: (UInt64, UInt64, UInt64, UInt64, UInt64, UInt64, UInt64, UInt64, UInt64) = (0, 0, 0, 0, 0, 0, 0, 0, 0)
        let savedTotal = totalBytes
        withUnsafeMutableBytes(of: &padding) { bytes in
            bytes[0] = 0x80
            for k in 0..<8 { bytes[paddingCount - 1 - k] = UInt8(truncatingIfNeeded: bitLength >> UInt64(8 * k)) }
            update(UnsafeRawBufferPointer(rebasing: bytes[..<paddingCount]))
        }
        totalBytes = savedTotal
        return state
    }

    static func digest(_ bytes: UnsafeRawBufferPointer) -> [UInt8] {
        var hasher = SHA1()
        hasher.update(bytes)
        return hasher.finish()
    }

    private mutating func compressBlocks(_ p: UnsafePointer<UInt8>, _ blocks: Int) {
        if hardware {
            withUnsafeMutableBytes(of: &state) { words in
                yui_sha1_hardware_compress(words.baseAddress!.assumingMemoryBound(to: UInt32.self), p, blocks)
            }
            return
        }
        for k in 0..<blocks { compress(p + 64 * k) }
    }

    /// One 64-byte block. Over 80 lines on purpose: the 80 rounds are written out (no loop, no
    /// array of the message schedule), which is what makes the Swift fallback fast enough.
    private mutating func compress(_ p: UnsafePointer<UInt8>) {
        // Fully unrolled: the 80 rounds rotate variable roles instead of moving values, and the
        // message schedule lives in 16 locals (a loop with an array ran at a third of the speed).
        @inline(__always) func load(_ t: Int) -> UInt32 {
            UInt32(bigEndian: UnsafeRawPointer(p + 4 * t).loadUnaligned(as: UInt32.self))
        }
        @inline(__always) func rotl(_ x: UInt32, _ n: UInt32) -> UInt32 { x << n | x >> (32 - n) }
        var w0 = load(0)
        var w1 = load(1)
        var w2 = load(2)
        var w3 = load(3)
        var w4 = load(4)
        var w5 = load(5)
        var w6 = load(6)
        var w7 = load(7)
        var w8 = load(8)
        var w9 = load(9)
        var w10 = load(10)
        var w11 = load(11)
        var w12 = load(12)
        var w13 = load(13)
        var w14 = load(14)
        var w15 = load(15)
        var a = state.0, b = state.1, c = state.2, d = state.3, e = state.4
        e = e &+ rotl(a, 5) &+ ((b & c) | (~b & d)) &+ 0x5A82_7999 &+ w0
        b = rotl(b, 30)
        d = d &+ rotl(e, 5) &+ ((a & b) | (~a & c)) &+ 0x5A82_7999 &+ w1
        a = rotl(a, 30)
        c = c &+ rotl(d, 5) &+ ((e & a) | (~e & b)) &+ 0x5A82_7999 &+ w2
        e = rotl(e, 30)
        b = b &+ rotl(c, 5) &+ ((d & e) | (~d & a)) &+ 0x5A82_7999 &+ w3
        d = rotl(d, 30)
        a = a &+ rotl(b, 5) &+ ((c & d) | (~c & e)) &+ 0x5A82_7999 &+ w4
        c = rotl(c, 30)
        e = e &+ rotl(a, 5) &+ ((b & c) | (~b & d)) &+ 0x5A82_7999 &+ w5
        b = rotl(b, 30)
        d = d &+ rotl(e, 5) &+ ((a & b) | (~a & c)) &+ 0x5A82_7999 &+ w6
        a = rotl(a, 30)
        c = c &+ rotl(d, 5) &+ ((e & a) | (~e & b)) &+ 0x5A82_7999 &+ w7
        e = rotl(e, 30)
        b = b &+ rotl(c, 5) &+ ((d & e) | (~d & a)) &+ 0x5A82_7999 &+ w8
        d = rotl(d, 30)
        a = a &+ rotl(b, 5) &+ ((c & d) | (~c & e)) &+ 0x5A82_7999 &+ w9
        c = rotl(c, 30)
        e = e &+ rotl(a, 5) &+ ((b & c) | (~b & d)) &+ 0x5A82_7999 &+ w10
        b = rotl(b, 30)
        d = d &+ rotl(e, 5) &+ ((a & b) | (~a & c)) &+ 0x5A82_7999 &+ w11
        a = rotl(a, 30)
        c = c &+ rotl(d, 5) &+ ((e & a) | (~e & b)) &+ 0x5A82_7999 &+ w12
        e = rotl(e, 30)
        b = b &+ rotl(c, 5) &+ ((d & e) | (~d & a)) &+ 0x5A82_7999 &+ w13
        d = rotl(d, 30)
        a = a &+ rotl(b, 5) &+ ((c & d) | (~c & e)) &+ 0x5A82_7999 &+ w14
        c = rotl(c, 30)
        e = e &+ rotl(a, 5) &+ ((b & c) | (~b & d)) &+ 0x5A82_7999 &+ w15
        b = rotl(b, 30)
        w0 = rotl(w13 ^ w8 ^ w2 ^ w0, 1)
        d = d &+ rotl(e, 5) &+ ((a & b) | (~a & c)) &+ 0x5A82_7999 &+ w0
        a = rotl(a, 30)
        w1 = rotl(w14 ^ w9 ^ w3 ^ w1, 1)
        c = c &+ rotl(d, 5) &+ ((e & a) | (~e & b)) &+ 0x5A82_7999 &+ w1
        e = rotl(e, 30)
        w2 = rotl(w15 ^ w10 ^ w4 ^ w2, 1)
        b = b &+ rotl(c, 5) &+ ((d & e) | (~d & a)) &+ 0x5A82_7999 &+ w2
        d = rotl(d, 30)
        w3 = rotl(w0 ^ w11 ^ w5 ^ w3, 1)
        a = a &+ rotl(b, 5) &+ ((c & d) | (~c & e)) &+ 0x5A82_7999 &+ w3
        c = rotl(c, 30)
        w4 = rotl(w1 ^ w12 ^ w6 ^ w4, 1)
        e = e &+ rotl(a, 5) &+ (b ^ c ^ d) &+ 0x6ED9_EBA1 &+ w4
        b = rotl(b, 30)
        w5 = rotl(w2 ^ w13 ^ w7 ^ w5, 1)
        d = d &+ rotl(e, 5) &+ (a ^ b ^ c) &+ 0x6ED9_EBA1 &+ w5
        a = rotl(a, 30)
        w6 = rotl(w3 ^ w14 ^ w8 ^ w6, 1)
        c = c &+ rotl(d, 5) &+ (e ^ a ^ b) &+ 0x6ED9_EBA1 &+ w6
        e = rotl(e, 30)
        w7 = rotl(w4 ^ w15 ^ w9 ^ w7, 1)
        b = b &+ rotl(c, 5) &+ (d ^ e ^ a) &+ 0x6ED9_EBA1 &+ w7
        d = rotl(d, 30)
        w8 = rotl(w5 ^ w0 ^ w10 ^ w8, 1)
        a = a &+ rotl(b, 5) &+ (c ^ d ^ e) &+ 0x6ED9_EBA1 &+ w8
        c = rotl(c, 30)
        w9 = rotl(w6 ^ w1 ^ w11 ^ w9, 1)
        e = e &+ rotl(a, 5) &+ (b ^ c ^ d) &+ 0x6ED9_EBA1 &+ w9
        b = rotl(b, 30)
        w10 = rotl(w7 ^ w2 ^ w12 ^ w10, 1)
        d = d &+ rotl(e, 5) &+ (a ^ b ^ c) &+ 0x6ED9_EBA1 &+ w10
        a = rotl(a, 30)
        w11 = rotl(w8 ^ w3 ^ w13 ^ w11, 1)
        c = c &+ rotl(d, 5) &+ (e ^ a ^ b) &+ 0x6ED9_EBA1 &+ w11
        e = rotl(e, 30)
        w12 = rotl(w9 ^ w4 ^ w14 ^ w12, 1)
        b = b &+ rotl(c, 5) &+ (d ^ e ^ a) &+ 0x6ED9_EBA1 &+ w12
        d = rotl(d, 30)
        w13 = rotl(w10 ^ w5 ^ w15 ^ w13, 1)
        a = a &+ rotl(b, 5) &+ (c ^ d ^ e) &+ 0x6ED9_EBA1 &+ w13
        c = rotl(c, 30)
        w14 = rotl(w11 ^ w6 ^ w0 ^ w14, 1)
        e = e &+ rotl(a, 5) &+ (b ^ c ^ d) &+ 0x6ED9_EBA1 &+ w14
        b = rotl(b, 30)
        w15 = rotl(w12 ^ w7 ^ w1 ^ w15, 1)
        d = d &+ rotl(e, 5) &+ (a ^ b ^ c) &+ 0x6ED9_EBA1 &+ w15
        a = rotl(a, 30)
        w0 = rotl(w13 ^ w8 ^ w2 ^ w0, 1)
        c = c &+ rotl(d, 5) &+ (e ^ a ^ b) &+ 0x6ED9_EBA1 &+ w0
        e = rotl(e, 30)
        w1 = rotl(w14 ^ w9 ^ w3 ^ w1, 1)
        b = b &+ rotl(c, 5) &+ (d ^ e ^ a) &+ 0x6ED9_EBA1 &+ w1
        d = rotl(d, 30)
        w2 = rotl(w15 ^ w10 ^ w4 ^ w2, 1)
        a = a &+ rotl(b, 5) &+ (c ^ d ^ e) &+ 0x6ED9_EBA1 &+ w2
        c = rotl(c, 30)
        w3 = rotl(w0 ^ w11 ^ w5 ^ w3, 1)
        e = e &+ rotl(a, 5) &+ (b ^ c ^ d) &+ 0x6ED9_EBA1 &+ w3
        b = rotl(b, 30)
        w4 = rotl(w1 ^ w12 ^ w6 ^ w4, 1)
        d = d &+ rotl(e, 5) &+ (a ^ b ^ c) &+ 0x6ED9_EBA1 &+ w4
        a = rotl(a, 30)
        w5 = rotl(w2 ^ w13 ^ w7 ^ w5, 1)
        c = c &+ rotl(d, 5) &+ (e ^ a ^ b) &+ 0x6ED9_EBA1 &+ w5
        e = rotl(e, 30)
        w6 = rotl(w3 ^ w14 ^ w8 ^ w6, 1)
        b = b &+ rotl(c, 5) &+ (d ^ e ^ a) &+ 0x6ED9_EBA1 &+ w6
        d = rotl(d, 30)
        w7 = rotl(w4 ^ w15 ^ w9 ^ w7, 1)
        a = a &+ rotl(b, 5) &+ (c ^ d ^ e) &+ 0x6ED9_EBA1 &+ w7
        c = rotl(c, 30)
        w8 = rotl(w5 ^ w0 ^ w10 ^ w8, 1)
        e = e &+ rotl(a, 5) &+ ((b & c) | (b & d) | (c & d)) &+ 0x8F1B_BCDC &+ w8
        b = rotl(b, 30)
        w9 = rotl(w6 ^ w1 ^ w11 ^ w9, 1)
        d = d &+ rotl(e, 5) &+ ((a & b) | (a & c) | (b & c)) &+ 0x8F1B_BCDC &+ w9
        a = rotl(a, 30)
        w10 = rotl(w7 ^ w2 ^ w12 ^ w10, 1)
        c = c &+ rotl(d, 5) &+ ((e & a) | (e & b) | (a & b)) &+ 0x8F1B_BCDC &+ w10
        e = rotl(e, 30)
        w11 = rotl(w8 ^ w3 ^ w13 ^ w11, 1)
        b = b &+ rotl(c, 5) &+ ((d & e) | (d & a) | (e & a)) &+ 0x8F1B_BCDC &+ w11
        d = rotl(d, 30)
        w12 = rotl(w9 ^ w4 ^ w14 ^ w12, 1)
        a = a &+ rotl(b, 5) &+ ((c & d) | (c & e) | (d & e)) &+ 0x8F1B_BCDC &+ w12
        c = rotl(c, 30)
        w13 = rotl(w10 ^ w5 ^ w15 ^ w13, 1)
        e = e &+ rotl(a, 5) &+ ((b & c) | (b & d) | (c & d)) &+ 0x8F1B_BCDC &+ w13
        b = rotl(b, 30)
        w14 = rotl(w11 ^ w6 ^ w0 ^ w14, 1)
        d = d &+ rotl(e, 5) &+ ((a & b) | (a & c) | (b & c)) &+ 0x8F1B_BCDC &+ w14
        a = rotl(a, 30)
        w15 = rotl(w12 ^ w7 ^ w1 ^ w15, 1)
        c = c &+ rotl(d, 5) &+ ((e & a) | (e & b) | (a & b)) &+ 0x8F1B_BCDC &+ w15
        e = rotl(e, 30)
        w0 = rotl(w13 ^ w8 ^ w2 ^ w0, 1)
        b = b &+ rotl(c, 5) &+ ((d & e) | (d & a) | (e & a)) &+ 0x8F1B_BCDC &+ w0
        d = rotl(d, 30)
        w1 = rotl(w14 ^ w9 ^ w3 ^ w1, 1)
        a = a &+ rotl(b, 5) &+ ((c & d) | (c & e) | (d & e)) &+ 0x8F1B_BCDC &+ w1
        c = rotl(c, 30)
        w2 = rotl(w15 ^ w10 ^ w4 ^ w2, 1)
        e = e &+ rotl(a, 5) &+ ((b & c) | (b & d) | (c & d)) &+ 0x8F1B_BCDC &+ w2
        b = rotl(b, 30)
        w3 = rotl(w0 ^ w11 ^ w5 ^ w3, 1)
        d = d &+ rotl(e, 5) &+ ((a & b) | (a & c) | (b & c)) &+ 0x8F1B_BCDC &+ w3
        a = rotl(a, 30)
        w4 = rotl(w1 ^ w12 ^ w6 ^ w4, 1)
        c = c &+ rotl(d, 5) &+ ((e & a) | (e & b) | (a & b)) &+ 0x8F1B_BCDC &+ w4
        e = rotl(e, 30)
        w5 = rotl(w2 ^ w13 ^ w7 ^ w5, 1)
        b = b &+ rotl(c, 5) &+ ((d & e) | (d & a) | (e & a)) &+ 0x8F1B_BCDC &+ w5
        d = rotl(d, 30)
        w6 = rotl(w3 ^ w14 ^ w8 ^ w6, 1)
        a = a &+ rotl(b, 5) &+ ((c & d) | (c & e) | (d & e)) &+ 0x8F1B_BCDC &+ w6
        c = rotl(c, 30)
        w7 = rotl(w4 ^ w15 ^ w9 ^ w7, 1)
        e = e &+ rotl(a, 5) &+ ((b & c) | (b & d) | (c & d)) &+ 0x8F1B_BCDC &+ w7
        b = rotl(b, 30)
        w8 = rotl(w5 ^ w0 ^ w10 ^ w8, 1)
        d = d &+ rotl(e, 5) &+ ((a & b) | (a & c) | (b & c)) &+ 0x8F1B_BCDC &+ w8
        a = rotl(a, 30)
        w9 = rotl(w6 ^ w1 ^ w11 ^ w9, 1)
        c = c &+ rotl(d, 5) &+ ((e & a) | (e & b) | (a & b)) &+ 0x8F1B_BCDC &+ w9
        e = rotl(e, 30)
        w10 = rotl(w7 ^ w2 ^ w12 ^ w10, 1)
        b = b &+ rotl(c, 5) &+ ((d & e) | (d & a) | (e & a)) &+ 0x8F1B_BCDC &+ w10
        d = rotl(d, 30)
        w11 = rotl(w8 ^ w3 ^ w13 ^ w11, 1)
        a = a &+ rotl(b, 5) &+ ((c & d) | (c & e) | (d & e)) &+ 0x8F1B_BCDC &+ w11
        c = rotl(c, 30)
        w12 = rotl(w9 ^ w4 ^ w14 ^ w12, 1)
        e = e &+ rotl(a, 5) &+ (b ^ c ^ d) &+ 0xCA62_C1D6 &+ w12
        b = rotl(b, 30)
        w13 = rotl(w10 ^ w5 ^ w15 ^ w13, 1)
        d = d &+ rotl(e, 5) &+ (a ^ b ^ c) &+ 0xCA62_C1D6 &+ w13
        a = rotl(a, 30)
        w14 = rotl(w11 ^ w6 ^ w0 ^ w14, 1)
        c = c &+ rotl(d, 5) &+ (e ^ a ^ b) &+ 0xCA62_C1D6 &+ w14
        e = rotl(e, 30)
        w15 = rotl(w12 ^ w7 ^ w1 ^ w15, 1)
        b = b &+ rotl(c, 5) &+ (d ^ e ^ a) &+ 0xCA62_C1D6 &+ w15
        d = rotl(d, 30)
        w0 = rotl(w13 ^ w8 ^ w2 ^ w0, 1)
        a = a &+ rotl(b, 5) &+ (c ^ d ^ e) &+ 0xCA62_C1D6 &+ w0
        c = rotl(c, 30)
        w1 = rotl(w14 ^ w9 ^ w3 ^ w1, 1)
        e = e &+ rotl(a, 5) &+ (b ^ c ^ d) &+ 0xCA62_C1D6 &+ w1
        b = rotl(b, 30)
        w2 = rotl(w15 ^ w10 ^ w4 ^ w2, 1)
        d = d &+ rotl(e, 5) &+ (a ^ b ^ c) &+ 0xCA62_C1D6 &+ w2
        a = rotl(a, 30)
        w3 = rotl(w0 ^ w11 ^ w5 ^ w3, 1)
        c = c &+ rotl(d, 5) &+ (e ^ a ^ b) &+ 0xCA62_C1D6 &+ w3
        e = rotl(e, 30)
        w4 = rotl(w1 ^ w12 ^ w6 ^ w4, 1)
        b = b &+ rotl(c, 5) &+ (d ^ e ^ a) &+ 0xCA62_C1D6 &+ w4
        d = rotl(d, 30)
        w5 = rotl(w2 ^ w13 ^ w7 ^ w5, 1)
        a = a &+ rotl(b, 5) &+ (c ^ d ^ e) &+ 0xCA62_C1D6 &+ w5
        c = rotl(c, 30)
        w6 = rotl(w3 ^ w14 ^ w8 ^ w6, 1)
        e = e &+ rotl(a, 5) &+ (b ^ c ^ d) &+ 0xCA62_C1D6 &+ w6
        b = rotl(b, 30)
        w7 = rotl(w4 ^ w15 ^ w9 ^ w7, 1)
        d = d &+ rotl(e, 5) &+ (a ^ b ^ c) &+ 0xCA62_C1D6 &+ w7
        a = rotl(a, 30)
        w8 = rotl(w5 ^ w0 ^ w10 ^ w8, 1)
        c = c &+ rotl(d, 5) &+ (e ^ a ^ b) &+ 0xCA62_C1D6 &+ w8
        e = rotl(e, 30)
        w9 = rotl(w6 ^ w1 ^ w11 ^ w9, 1)
        b = b &+ rotl(c, 5) &+ (d ^ e ^ a) &+ 0xCA62_C1D6 &+ w9
        d = rotl(d, 30)
        w10 = rotl(w7 ^ w2 ^ w12 ^ w10, 1)
        a = a &+ rotl(b, 5) &+ (c ^ d ^ e) &+ 0xCA62_C1D6 &+ w10
        c = rotl(c, 30)
        w11 = rotl(w8 ^ w3 ^ w13 ^ w11, 1)
        e = e &+ rotl(a, 5) &+ (b ^ c ^ d) &+ 0xCA62_C1D6 &+ w11
        b = rotl(b, 30)
        w12 = rotl(w9 ^ w4 ^ w14 ^ w12, 1)
        d = d &+ rotl(e, 5) &+ (a ^ b ^ c) &+ 0xCA62_C1D6 &+ w12
        a = rotl(a, 30)
        w13 = rotl(w10 ^ w5 ^ w15 ^ w13, 1)
        c = c &+ rotl(d, 5) &+ (e ^ a ^ b) &+ 0xCA62_C1D6 &+ w13
        e = rotl(e, 30)
        w14 = rotl(w11 ^ w6 ^ w0 ^ w14, 1)
        b = b &+ rotl(c, 5) &+ (d ^ e ^ a) &+ 0xCA62_C1D6 &+ w14
        d = rotl(d, 30)
        w15 = rotl(w12 ^ w7 ^ w1 ^ w15, 1)
        a = a &+ rotl(b, 5) &+ (c ^ d ^ e) &+ 0xCA62_C1D6 &+ w15
        c = rotl(c, 30)
        state = (state.0 &+ a, state.1 &+ b, state.2 &+ c, state.3 &+ d, state.4 &+ e)
    }
}
