import Testing

@testable import PayloadDecode

@Suite struct SHA1Tests {
    func hex(_ bytes: [UInt8]) -> String {
        bytes.map { String($0, radix: 16).count == 1 ? "0" + String($0, radix: 16) : String($0, radix: 16) }.joined()
    }

    @Test(arguments: [
        ("", "da39a3ee5e6b4b0d3255bfef95601890afd80709"),
        ("abc", "a9993e364706816aba3e25717850c26c9cd0d89d"),
        ("abcdbcdecdefdefgefghfghighijhijkijkljklmklmnlmnomnopnopq", "84983e441c3bd26ebaae4aa1f95129e5e54670f1"),
    ])
    func knownVectors(input: String, expected: String) {
        var hasher = SHA1()
        hasher.update(input)
        #expect(hex(hasher.finish()) == expected)
        var portable = SHA1(hardware: false)
        portable.update(input)
        #expect(hex(portable.finish()) == expected)
    }

    /// The SHA-instruction compression (used where the CPU has it) and the Swift one agree on every
    /// length around the block size and on inputs fed in uneven pieces.
    @Test func hardwareAndPortableAgree() {
        var generator = SystemRandomNumberGenerator()
        for length in Array(0...140) + [1000, 4096, 65_536 + 17] {
            let bytes = (0..<length).map { _ in UInt8.random(in: 0...255, using: &generator) }
            var hardware = SHA1()
            var portable = SHA1(hardware: false)
            var start = 0
            while start < length {
                let end = min(length, start + Int.random(in: 1...150, using: &generator))
                hardware.update(Array(bytes[start..<end]))
                portable.update(Array(bytes[start..<end]))
                start = end
            }
            #expect(hardware.finish() == portable.finish(), "length \(length)")
        }
    }

    @Test func millionAs() {
        var hasher = SHA1()
        let chunk = [UInt8](repeating: UInt8(ascii: "a"), count: 1000)
        for _ in 0..<1000 { hasher.update(chunk) }
        #expect(hex(hasher.finish()) == "34aa973cd4c4daa4f61eeb2bdbad27316534016f")
    }

    /// RFC 9562 appendix A.4: UUIDv5 of "www.example.com" in the DNS namespace.
    @Test func version5UUID() {
        let dns: [UInt8] = [0x6b, 0xa7, 0xb8, 0x10, 0x9d, 0xad, 0x11, 0xd1, 0x80, 0xb4, 0x00, 0xc0, 0x4f, 0xd4, 0x30, 0xc8]
        #expect(NameBasedUUID.make(namespace: dns, name: Array("www.example.com".utf8)) == "2ed6657d-e927-568b-95e1-2665a8aea6a2")
    }
}
