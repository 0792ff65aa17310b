import Testing

@testable import StackSymbolize

@Suite struct SwiftNamesTests {
    @Test(arguments: [
        ("$s6YuiApp0A5LinesV5parseyAA3NumVAFF", "YuiLines.parse"),
        ("_$s6YuiApp0A5LinesV5parseyAA3NumVAFF", "YuiLines.parse"),
        ("$s6YuiApp9ChatStoreV5applyyAA3NumVAA0C5EventVF", "ChatStore.apply"),
        ("$s6YuiApp10ThreadViewV4bodyAA3NumVvg", "ThreadView.body"),
        ("$s6YuiApp10ThreadViewV4bodyAA3NumVvgA2FcfU_", "closure in ThreadView.body"),
        ("$s6YuiApp0A5LinesV7measure_5widthAcA3NumV_AGtFZTf4nnd_n", "YuiLines.measure"),
        ("$s6YuiApp5crashyAA5FatalOAA3NumVF", "crash"),
        ("_ZN12IndexStoreDB18CanonicalPathCacheC2Ev", "CanonicalPathCache.CanonicalPathCache"),
        ("main", "main"),
        ("cmark_parser_new", "cmark_parser_new"),
    ])
    func simplified(_ mangled: String, _ expected: String) {
        #expect(SwiftNames.simplified(mangled) == expected)
    }

    @Test func demangleGivesTheFullName() {
        #expect(SwiftNames.demangle("$s6YuiApp0A5LinesV5parseyAA3NumVAFF") == "YuiApp.YuiLines.parse(YuiApp.Num) -> YuiApp.Num")
        #expect(SwiftNames.demangle("plain_c_function") == nil)
    }

    @Test(arguments: ["$s6YuiApp8Garbage!!", "$s", "_Z", "_ZN3foo", "$s999999999999Q", "_T0"])
    func malformedNamesStayRaw(_ name: String) {
        #expect(SwiftNames.simplified(name) == name)
    }

    @Test func garbageNeverCrashes() {
        var generator = SplitMix64(seed: 7)
        let alphabet = Array("$s_Z0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz")
        for _ in 0..<3000 {
            let length = Int(generator.next() % 60)
            let prefix = ["$s", "_$s", "_Z", "$S", "_T0"][Int(generator.next() % 5)]
            let body = String((0..<length).map { _ in alphabet[Int(generator.next() % UInt64(alphabet.count))] })
            _ = SwiftNames.simplified(prefix + body)
        }
    }
}

/// A small fixed-seed generator, so every run draws the same values.
struct SplitMix64: RandomNumberGenerator {
    var state: UInt64
    init(seed: UInt64) { state = seed }
    mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }
}
