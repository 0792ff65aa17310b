import Foundation
import TestSupport
import Testing

@testable import StackSymbolize
@testable import SymbolNames

/// The mangling reader (`MangledSwiftName`) must give every name it reads the simplified form the
/// runtime's demangling and the text simplification give it, and must read most names: on every
/// Swift function symbol of toolchain binaries, both ways compared.
@Suite struct MangledSwiftNameTests {
    static var toolchainBinaries: [String] {
        ["swift-help", "swift-driver"].map { "/opt/swift/usr/bin/" + $0 }.filter { FileManager.default.fileExists(atPath: $0) }
    }

    struct Comparison {
        var read = 0
        var skipped = 0
        var skippedNames: [String] = []
        var differing: [(name: String, expected: String, read: String)] = []
    }

    static func compare(_ names: some Sequence<String>) -> Comparison {
        var reader = MangledSwiftName()
        var comparison = Comparison()
        for name in names where SwiftNames.isSwiftMangled(name) {
            let expected = SymbolName.textSimplifiedName(name)
            guard let read = reader.simplifiedName(name) else {
                comparison.skipped += 1
                let failed = reader.failedAt
                comparison.skippedNames.append(
                    failed < 0 ? "\(name)\tafter" : "\(name)\t\(name.utf8.dropFirst(failed).prefix(3).map { String(UnicodeScalar($0)) }.joined())")
                continue
            }
            comparison.read += 1
            if read != expected { comparison.differing.append((name, expected, read)) }
        }
        return comparison
    }

    @Test(arguments: toolchainBinaries) func toolchainSymbols(_ path: String) throws {
        let image = try DebugImage(elfPath: path)
        let names = Set(image.functionSymbols.map { image.name(of: $0) })
        let comparison = Self.compare(names)
        for difference in comparison.differing.prefix(20) {
            Issue.record("\(difference.name): \(difference.read), expected \(difference.expected)")
        }
        #expect(comparison.differing.isEmpty)
        // Most names are read without the runtime.
        #expect(comparison.read * 10 >= (comparison.read + comparison.skipped) * 8, "read \(comparison.read), skipped \(comparison.skipped)")
    }

    /// A larger corpus when one is at hand: `YUI_NAME_CORPUS` names a file of names, one a line
    /// (the names of every symbol index of the eight toolchain binaries, for instance).
    @Test func corpus() throws {
        guard let path = ProcessInfo.processInfo.environment["YUI_NAME_CORPUS"] else { return }
        let names = try String(contentsOfFile: path, encoding: .utf8).split(separator: "\n").map {
            String($0.split(separator: "\t").first ?? "")
        }
        let comparison = Self.compare(names)
        var report = "read \(comparison.read), skipped \(comparison.skipped), differing \(comparison.differing.count)\n"
        for difference in comparison.differing {
            report += "\(difference.name)\t\(difference.read)\t\(difference.expected)\n"
        }
        try report.write(toFile: path + ".report", atomically: true, encoding: .utf8)
        try comparison.skippedNames.joined(separator: "\n").write(toFile: path + ".skipped", atomically: true, encoding: .utf8)
        #expect(comparison.differing.isEmpty)
    }

    /// Names from debug files are untrusted bytes: damaged real names (cut, bytes changed,
    /// pieces repeated) and random operator soup must come back as an answer or `nil`, never a
    /// crash or a hang.
    @Test func damagedNamesNeverCrash() throws {
        let path = try #require(Self.toolchainBinaries.first)
        let image = try DebugImage(elfPath: path)
        let names = image.functionSymbols.map { image.name(of: $0) }.filter { $0.hasPrefix("$s") }
        try #require(names.count > 1_000)
        var random = SplitMix64(seed: 0x5EED)
        let alphabet = Array("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789_$".utf8)
        var reader = MangledSwiftName()
        var answered = 0
        for round in 0..<20_000 {
            var bytes = Array(names[Int(random.next() % UInt64(names.count))].utf8)
            switch round % 5 {
            case 0: bytes = Array(bytes.prefix(2 + Int(random.next() % UInt64(bytes.count))))
            case 1:
                for _ in 0..<(1 + random.next() % 4) {
                    bytes[2 + Int(random.next() % UInt64(bytes.count - 2))] = alphabet[Int(random.next() % UInt64(alphabet.count))]
                }
            case 2:
                let start = 2 + Int(random.next() % UInt64(bytes.count - 2))
                let piece = bytes[start..<min(bytes.count, start + 1 + Int(random.next() % 12))]
                for _ in 0..<(1 + random.next() % 40) { bytes.insert(contentsOf: piece, at: start) }
            case 3:
                bytes = Array("$s".utf8) + (0..<(1 + random.next() % 64)).map { _ in alphabet[Int(random.next() % UInt64(alphabet.count))] }
            default:
                // Deep nesting: many contexts, statics and closures on one name.
                let piece = Array(["1aV", "Z", "yycfU_", "AA", "Sg", "y_G", "SiG", "1aL_V"][Int(random.next() % 8)].utf8)
                for _ in 0..<(1 + random.next() % 2_000) { bytes.append(contentsOf: piece) }
            }
            if reader.simplifiedName(String(decoding: bytes, as: UTF8.self)) != nil { answered += 1 }
        }
        #expect(answered > 0)
    }

    @Test func handWrittenShapes() {
        var reader = MangledSwiftName()
        let cases: [(String, String)] = [
            ("$s4main3fooyyF", "foo"),
            ("$s4main3FooV3baryySiF", "Foo.bar"),
            ("$s4main3FooV1xSivg", "Foo.x"),
            ("$s4main3FooV3baryyFyycfU_", "closure in Foo.bar"),
        ]
        for (mangled, expected) in cases {
            #expect(reader.simplifiedName(mangled) == expected, "\(mangled)")
            #expect(SymbolName.textSimplifiedName(mangled) == expected, "\(mangled)")
        }
    }
}
