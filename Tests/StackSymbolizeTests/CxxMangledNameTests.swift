import Foundation
import TestSupport
import Testing

@testable import StackSymbolize
@testable import SymbolNames

/// The C++ mangling reader (`CxxMangledName`) must give every name it reads the simplified form
/// `__cxa_demangle` and the text simplification give it, and must read most names: on every C++
/// symbol of toolchain binaries that link C++ (llbuild, the LLVM support library), both ways
/// compared, and on names written here for the shapes it reads and declines.
@Suite struct CxxMangledNameTests {
    static var toolchainBinaries: [String] {
        ["swift-driver", "sourcekit-lsp", "swift-package"].map { "/opt/swift/usr/bin/" + $0 }.filter { FileManager.default.fileExists(atPath: $0) }
    }

    static func compare(_ names: some Sequence<String>) -> (read: Int, declined: Int, differing: [String]) {
        var read = 0
        var declined = 0
        var differing: [String] = []
        for name in names where SwiftNames.isCxxMangled(name) {
            let expected = SymbolName.textSimplifiedName(name)
            guard let simplified = CxxMangledName.simplifiedName(name) else {
                declined += 1
                if let path = ProcessInfo.processInfo.environment["YUI_CXX_DECLINED"] {
                    if !FileManager.default.fileExists(atPath: path) { _ = FileManager.default.createFile(atPath: path, contents: nil) }
                    if let handle = FileHandle(forWritingAtPath: path) {
                        handle.seekToEndOfFile()
                        handle.write(Data((name + "\n").utf8))
                        handle.closeFile()
                    }
                }
                continue
            }
            read += 1
            if simplified != expected { differing.append("\(name): \(simplified), expected \(expected)") }
        }
        return (read, declined, differing)
    }

    @Test(arguments: toolchainBinaries) func toolchainSymbols(_ path: String) throws {
        let image = try DebugImage(elfPath: path)
        let names = Set(image.functionSymbols.map { image.name(of: $0) })
        let (read, declined, differing) = Self.compare(names)
        for difference in differing.prefix(20) { Issue.record("\(difference)") }
        #expect(differing.isEmpty)
        #expect(read > 1_000, "C++ symbols read")
        // Most names are read without the runtime.
        #expect(read * 10 >= (read + declined) * 6, "read \(read), declined \(declined)")
    }

    @Test func shapes() {
        let read: [(String, String)] = [
            ("_ZN4llvm3sys2fs6existsERKNS_5TwineE", "fs.exists"),
            ("_ZNK4llvm9StringRef4findEcm", "StringRef.find"),
            ("_ZNSt6vectorIiSaIiEE9push_backEOi", "vector.push_back"),
            ("_ZN3fooIiEC2Ev", "foo.foo"),
            ("_ZN3fooD1Ev", "foo.~foo"),
            ("_ZL6helperv", "helper"),
            ("_Z3maxIiET_S0_S0_", ""),  // a template parameter as the return type: declined
            ("_Z3fooIiEvT_", "foo"),
            ("__ZN4llvm2cl6OptionD0Ev", "Option.~Option"),
            ("_ZN4llvm3sys4path6appendERNS_15SmallVectorImplIcEERKNS_5TwineES7_S7_S7_", "path.append"),
            // The simplification's reading of the anonymous namespace, ABI tags, clone suffixes.
            ("_ZN12_GLOBAL__N_13fooEv", "namespace).foo"),
            ("_ZN4llvm12_GLOBAL__N_13Foo3barEv", "Foo.bar"),
            ("_ZNK4llvm9StringRef5lowerB5cxx11Ev", "StringRef.lower[abi:cxx11]"),
            ("_ZN3foo3barEv.cold.1", "foo.bar"),
            ("_ZN3foo3barIiEEN3qux3BazEv", "foo.bar"),
        ]
        for (name, expected) in read {
            let simplified = CxxMangledName.simplifiedName(name)
            if expected.isEmpty {
                #expect(simplified == nil, "\(name)")
            } else {
                #expect(simplified == expected, "\(name)")
                #expect(simplified == SymbolName.textSimplifiedName(name), "\(name) as the runtime's path gives it")
            }
        }
        // Operators, the anonymous namespace, local names, special names, clone suffixes, lambdas,
        // ABI tags: declined.
        for name in [
            "_ZN3fooplERKS_", "_ZZ3foovE1x", "_ZTV3foo", "_ZN3foo3barEv.Cold", "_ZN3fooUlvE_clEv", "_ZdlPv", "_Z", "_ZN", "_ZNE",
            "_ZN3fo", "_ZN99999999999fooEv", "_ZN8_GLOBAL_3fooEv", "_Z3fooIiEPFvvEv",
        ] {
            #expect(CxxMangledName.simplifiedName(name) == nil, "\(name)")
        }
    }
}
