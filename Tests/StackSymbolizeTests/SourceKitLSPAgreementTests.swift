import Foundation
import TestSupport
import Testing

@testable import StackSymbolize
@testable import SymbolNames

/// docs/design.md, "Targets"'s corpus: the toolchain's sourcekit-lsp (a 240 MB Swift ELF, no usable aranges).
/// Slow (a debug build decodes a few hundred units), so it runs with `YUI_SLOW_TESTS=1`.
@Suite(.enabled(if: ProcessInfo.processInfo.environment["YUI_SLOW_TESTS"] == "1"))
struct SourceKitLSPAgreementTests {
    static let binary = "/opt/swift/usr/bin/sourcekit-lsp"

    /// 10,000 addresses: a function symbol drawn with a fixed seed, plus 0...24 bytes inside it.
    static func addresses() throws -> [UInt64] {
        let symbols = try DwarfReader(elfPath: binary).functionSymbols().filter { $0.size > 0 }
        var unique: [SymbolEntry] = []
        for symbol in symbols where unique.last?.address != symbol.address { unique.append(symbol) }
        var generator = SplitMix64(seed: 42)
        return (0..<10_000).map { _ in
            let symbol = unique[Int(generator.next() % UInt64(unique.count))]
            return symbol.address + min(generator.next() % 25, symbol.size - 1)
        }
    }

    static func llvmSymbolizer() -> String {
        let toolchain = "/opt/swift/usr/bin/llvm-symbolizer"
        return FileManager.default.isExecutableFile(atPath: toolchain) ? toolchain : "/usr/bin/llvm-symbolizer"
    }

    @Test func innermostFunctionAndLineAgreeWithLlvmSymbolizer() throws {
        try #require(FileManager.default.fileExists(atPath: Self.binary))
        let addresses = try Self.addresses()
        let process = Process()
        process.executableURL = URL(fileURLWithPath: Self.llvmSymbolizer())
        process.arguments = ["--output-style=JSON", "--functions=linkage", "--inlines", "--no-demangle", "--obj=\(Self.binary)"]
        let input = Pipe()
        let output = Pipe()
        process.standardInput = input
        process.standardOutput = output
        try process.run()
        let text = addresses.map { "0x" + String($0, radix: 16) }.joined(separator: "\n") + "\n"
        DispatchQueue.global().async {
            input.fileHandleForWriting.write(Data(text.utf8))
            try? input.fileHandleForWriting.close()
        }
        let data = output.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        struct Reference: Decodable {
            struct Symbol: Decodable {
                var FunctionName: String
                var Line: Int
            }
            var Symbol: [Symbol]
        }
        let references = try String(decoding: data, as: UTF8.self).split(separator: "\n")
            .map { try JSONDecoder().decode(Reference.self, from: Data($0.utf8)) }
        try #require(references.count == addresses.count)

        let symbolizer = try BuildSymbolizer(debugFiles: [Self.binary])
        let answers = try symbolizer.lookup(addresses: addresses, uuid: nil)
        var agreeing = 0
        for (answer, reference) in zip(answers, references) {
            let mine = answer.frames.first.map { "\($0.linkageName ?? $0.function):\($0.line ?? 0)" }
            let theirs = reference.Symbol.first.map { "\($0.FunctionName):\($0.Line)" }
            if mine == theirs { agreeing += 1 }
        }
        let share = Double(agreeing) / Double(addresses.count)
        #expect(share >= 0.99, "innermost function and line agree on \(agreeing) of \(addresses.count)")
    }
}
