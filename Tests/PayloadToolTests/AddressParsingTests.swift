import Foundation
import Testing

@testable import PayloadTool

/// `symbolicate` reads an address as atos and llvm-symbolizer do: `0x` (either case) and hex
/// digits (either case), or decimal digits; anything else, and values past 2^64, is no address.
/// The reader's fast hex path and its general loop against the standard library's parsing.
@Suite struct AddressParsingTests {
    static func expected(_ text: String) -> UInt64? {
        if text.count > 2, text.hasPrefix("0x") || text.hasPrefix("0X") {
            let digits = text.dropFirst(2)
            guard digits.allSatisfy({ $0.isASCII && $0.isHexDigit }) else { return nil }
            return UInt64(digits, radix: 16)
        }
        guard !text.isEmpty, text.allSatisfy({ $0.isASCII && $0.isNumber }) else { return nil }
        return UInt64(text, radix: 10)
    }

    @Test func readsAsTheStandardLibrary() {
        var random = SystemRandomNumberGenerator()
        let alphabet = Array("0123456789abcdefABCDEFxXg -+_".utf8)
        var cases = [
            "0x", "0X", "0x0", "0xffffffffffffffff", "0x10000000000000000", "0x0000000000000000001", "18446744073709551615",
            "18446744073709551616", "0x1g", "0xG", "0x/", "0x:", "0x@", "0x`", "0x`1", "x12", "", "12a", "0xABCdef", "0x 1",
        ]
        for _ in 0..<20_000 {
            let length = Int.random(in: 1...20, using: &random)
            var text = (0..<length).map { _ in alphabet[Int.random(in: 0..<alphabet.count, using: &random)] }
            if Bool.random(using: &random) { text = Array("0x".utf8) + text.filter { $0 != UInt8(ascii: "x") && $0 != UInt8(ascii: "X") } }
            cases.append(String(decoding: text, as: UTF8.self))
        }
        for text in cases {
            #expect(SymbolicateObject.parseAddress(Array(text.utf8)[...]) == Self.expected(text), "\(text)")
        }
    }
}
