import Foundation
import TestSupport
import Testing

@testable import SymbolNames

/// One entry point per question and one language detection (`Mangling`): on every function name of
/// real binaries, the one route per language gives what trying the three readers in turn gave
/// (the Swift reader, then the C++ reader, then the text of the full name), and `Mangling` agrees
/// with what each reader accepts.
@Suite struct SymbolNameTests {
    /// Function and data symbol names of the toolchain's binaries and the fixture dSYMs, from llvm-nm.
    static func names() throws -> [String] {
        var files = ["swift-help", "swift-driver"].map { "/opt/swift/usr/bin/" + $0 }
            .filter { FileManager.default.fileExists(atPath: $0) }
        files.append(Repository.checkedInDsymsFixtures.appendingPathComponent("builds/130/YuiApp.app.dSYM/Contents/Resources/DWARF/YuiApp").path)
        var names: Set<String> = []
        for file in files {
            let nm = Process()
            nm.executableURL = URL(fileURLWithPath: "/usr/bin/llvm-nm-14")
            nm.arguments = ["--defined-only", "--just-symbol-name", file]
            let pipe = Pipe()
            nm.standardOutput = pipe
            nm.standardError = FileHandle.nullDevice
            try nm.run()
            let output = pipe.fileHandleForReading.readDataToEndOfFile()
            nm.waitUntilExit()
            for line in String(decoding: output, as: UTF8.self).split(separator: "\n") { names.insert(String(line)) }
        }
        return names.sorted()
    }

    @Test func theOneRouteGivesWhatTheTrialGave() throws {
        let names = try Self.names()
        try #require(names.count > 20_000, "only \(names.count) names")
        var reader = MangledSwiftName()
        var counts: [String: Int] = [:]
        for name in names {
            let trial = reader.simplifiedName(name) ?? CxxMangledName.simplifiedName(name) ?? SymbolName.textSimplifiedName(name)
            #expect(SymbolName.simplifiedName(name, using: &reader) == trial, "\(name)")
            let mangling = Mangling(of: name)
            counts["\(mangling)", default: 0] += 1
            // Each reader reads only its own language.
            if reader.simplifiedName(name) != nil { #expect(mangling == .swift, "\(name)") }
            if CxxMangledName.simplifiedName(name) != nil { #expect(mangling == .cxx, "\(name)") }
            #expect(SymbolName.fullName(name) == (SwiftNames.demangle(name) ?? name))
        }
        // The binaries hold all three kinds, so each route was taken.
        #expect((counts["swift"] ?? 0) > 10_000 && (counts["cxx"] ?? 0) > 1_000 && (counts["none"] ?? 0) > 1_000, "\(counts)")
    }
}
