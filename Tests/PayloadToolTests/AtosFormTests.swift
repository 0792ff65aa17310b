import Foundation
import TestSupport
import Testing

@testable import PayloadTool

/// `symbolicate` spelled as atos and llvm-symbolizer users type it, run through the built
/// executable: a real fat dSYM from Xcode (`DSYMExample`, arm64 + x86_64, text base 0x100000000,
/// from `dsyms-fixtures/real/`), its addresses slid by 0x4000000 as ASLR would, answered with
/// `-o PATH -l LOAD -arch ARCH` and compared with llvm-symbolizer-14 given the same slide
/// (`--adjust-vma`).
@Suite struct AtosForms {
    static let object = "macsymbolicator/Embedded.app.dSYM/DSYM Example.app.dSYM/Contents/Resources/DWARF/DSYM Example"
    static let textBase: UInt64 = 0x1_0000_0000
    static let slide: UInt64 = 0x400_0000
    static let loadAddress = "0x104000000"
    static let llvmSymbolizer = URL(fileURLWithPath: "/usr/bin/llvm-symbolizer-14")

    static func path() throws -> String { try RealDebugFiles.path(object) }

    /// The slice's recorded addresses (every function start, middle and end, inlined ranges) as
    /// runtime addresses of the image loaded at `loadAddress`.
    static func runtimeAddresses(_ arch: String) throws -> [String] {
        try RealDebugFiles.addresses("DSYMExample-\(arch)").map { text in
            let address = try #require(UInt64(text.dropFirst(2), radix: 16))
            return SymbolicateOutput.hex(address + slide)
        }
    }

    /// llvm-symbolizer-14's answers for `addresses` in one slice, with the slide.
    static func llvmAnswers(_ arch: String, _ addresses: [String], demangled: Bool = false) throws -> [RealDebugFiles.Reference] {
        var arguments = [
            "--obj=\(try path()):\(arch)", "--adjust-vma=\(SymbolicateOutput.hex(slide))", "--output-style=JSON", "--functions=linkage",
            "--inlines",
        ]
        if !demangled { arguments.append("--no-demangle") }
        let run = try ToolBinary.run(arguments + addresses, executable: llvmSymbolizer)
        try #require(run.status == 0, "\(run.stderr)")
        return try JSONDecoder().decode([RealDebugFiles.Reference].self, from: Data(run.stdout.utf8))
    }

    struct Answer: Decodable {
        var address: String
        var input: String
        var lookup_address: String?
        var status: String
        var frames: [RealDebugFiles.Answer.SourceFrame]

        var chain: [RealDebugFiles.Frame] { RealDebugFiles.Answer(frames: frames).chain }
    }

    @Test(arguments: ["arm64", "x86_64"])
    func loadAddressAndArchAnswerAsLlvmSymbolizerWithTheSameSlide(arch: String) throws {
        let addresses = try Self.runtimeAddresses(arch)
        let run = try ToolBinary.run(["symbolicate", "-o", try Self.path(), "-l", Self.loadAddress, "-arch", arch, "--json"] + addresses)
        #expect(run.status == 0, "\(run.stderr)")
        #expect(ToolBinary.messages(run.stderr).isEmpty)
        let ours = try JSONDecoder().decode([Answer].self, from: Data(run.stdout.utf8))
        let theirs = try Self.llvmAnswers(arch, addresses)
        try #require(ours.count == addresses.count && theirs.count == addresses.count)
        for (index, address) in addresses.enumerated() {
            #expect(ours[index].chain == theirs[index].frames, "\(arch) \(address)")
            // The address as given stays the runtime one; the lookup is in the dSYM's own space.
            #expect(ours[index].address == address)
            let looked = try #require(UInt64(address.dropFirst(2), radix: 16)) - Self.slide
            #expect(ours[index].lookup_address == SymbolicateOutput.hex(looked), "\(address)")
        }
        // Not an empty agreement: with the slide taken off, nearly every address is in a function.
        #expect(ours.filter { $0.status != "not_found" }.count >= addresses.count - 1)
    }

    /// atos's `-s SLIDE`, llvm-symbolizer's `--adjust-vma` and `-l LOAD` are one lookup, in every
    /// spelling of `--arch`.
    @Test func slideLoadAddressAndTheirSpellingsAgree() throws {
        let addresses = try Self.runtimeAddresses("arm64")
        let spellings = [
            ["-l", Self.loadAddress, "-arch", "arm64"], ["--load-address", Self.loadAddress, "--arch", "arm64"],
            ["-s", "0x4000000", "--default-arch", "arm64"], ["--adjust-vma=0x4000000", "--arch=arm64"], ["--slide", "67108864", "-arch", "arm64"],
        ]
        var outputs: [String] = []
        for spelling in spellings {
            let run = try ToolBinary.run(["symbolicate", "--obj", try Self.path()] + spelling + addresses)
            #expect(run.status == 0, "\(spelling): \(run.stderr)")
            outputs.append(run.stdout)
        }
        #expect(Set(outputs).count == 1, "\(spellings)")
        #expect(outputs[0].contains("DSYM_ExampleApp.swift:19"))
    }

    /// `--atos-style -d`: atos's line per frame, innermost first, `name (in image) (file:line)`,
    /// or `name (in image) + N` where the debug file has no line (llvm-symbolizer's start address
    /// gives N); the names as stored, so they compare with llvm-symbolizer's `--no-demangle`.
    @Test(arguments: ["arm64", "x86_64"])
    func atosStyleWritesAtosLines(arch: String) throws {
        let addresses = try Self.runtimeAddresses(arch)
        let run = try ToolBinary.run(
            ["symbolicate", "-o", try Self.path(), "-l", Self.loadAddress, "-arch", arch, "--atos-style", "-d"] + addresses)
        #expect(run.status == 0, "\(run.stderr)")
        let theirs = try Self.llvmRawAnswers(arch, addresses)
        var expected = ""
        for (index, answer) in theirs.enumerated() {
            let symbols = answer.Symbol.filter { !["", "??"].contains($0.FunctionName) }
            if symbols.isEmpty { expected += "\(addresses[index]) (in DSYM Example)\n" }
            for symbol in symbols {
                expected += "\(symbol.FunctionName) (in DSYM Example)"
                if !symbol.FileName.isEmpty {
                    expected += " (\((symbol.FileName as NSString).lastPathComponent):\(symbol.Line))"
                } else if let start = symbol.StartAddress.flatMap({ UInt64($0.dropFirst(2), radix: 16) }) {
                    expected += " + \(try #require(UInt64(answer.Address.dropFirst(2), radix: 16)) - Self.slide - start)"
                }
                expected += "\n"
            }
        }
        #expect(run.stdout == expected)
    }

    struct RawAnswer: Decodable {
        struct Symbol: Decodable {
            var FunctionName: String
            var FileName: String
            var Line: Int
            var StartAddress: String?
        }
        var Address: String
        var Symbol: [Symbol]
    }

    static func llvmRawAnswers(_ arch: String, _ addresses: [String]) throws -> [RawAnswer] {
        let run = try ToolBinary.run(
            [
                "--obj=\(try path()):\(arch)", "--adjust-vma=\(SymbolicateOutput.hex(slide))", "--output-style=JSON", "--functions=linkage",
                "--inlines", "--no-demangle",
            ] + addresses, executable: llvmSymbolizer)
        try #require(run.status == 0, "\(run.stderr)")
        return try JSONDecoder().decode([RawAnswer].self, from: Data(run.stdout.utf8))
    }

    /// Without `--atos-style`, `-d` prints the stored names in the crash-report layout too; by
    /// default that layout has the simplified names.
    @Test func noDemangleWritesStoredNames() throws {
        let address = try #require(try Self.runtimeAddresses("arm64").first)
        let plain = try ToolBinary.run(["symbolicate", "-o", try Self.path(), "-l", Self.loadAddress, "-arch", "arm64", address])
        let stored = try ToolBinary.run(["symbolicate", "-o", try Self.path(), "-l", Self.loadAddress, "-arch", "arm64", "-d", address])
        #expect(plain.stdout.contains(" closure in DSYM_ExampleApp.body + 0 (DSYM_ExampleApp.swift:19)"), "\(plain.stdout)")
        #expect(stored.stdout.contains(" $s12DSYM_Example0a1_B3AppV4bodyQrvg"), "\(stored.stdout)")
        // The address column is the address as typed, the runtime one.
        #expect(plain.stdout.hasPrefix("0   DSYM Example            0x000000010400398c "), "\(plain.stdout)")
    }

    /// llvm-symbolizer's own spellings (`--obj=`, `--output-style=JSON`, `--functions=linkage`,
    /// `--inlines`, `-i`) give what `--object --json` gives.
    @Test func llvmSymbolizerSpellingsMapToOurs() throws {
        let addresses = try RealDebugFiles.addresses("DSYMExample-x86_64")
        let ours = try ToolBinary.run(["symbolicate", "--object", try Self.path(), "--arch", "x86_64", "--json"] + addresses)
        let theirs = try ToolBinary.run(
            ["symbolicate", "--obj=\(try Self.path())", "--default-arch=x86_64", "--output-style=JSON", "--functions=linkage", "--inlines", "-i"]
                + addresses)
        #expect(ours.status == 0 && theirs.status == 0, "\(ours.stderr) \(theirs.stderr)")
        #expect(ours.stdout == theirs.stdout)
        #expect(ours.stdout.hasPrefix("[{\"address\":\"0x100003a90\""))
    }

    /// `arm64e` takes the arm64e slice where there is one (`other/YuiCore64`: arm64 + arm64e of
    /// different code) and the arm64 slice where there is none (DSYMExample).
    @Test func arm64eTakesItsOwnSliceElseArm64() throws {
        let fat = try SymbolicateFixtures.path("other/YuiCore64")
        let addresses = try String(contentsOfFile: try SymbolicateFixtures.path("expected/YuiCore-fat64-arm64e.addresses"), encoding: .utf8)
            .split(separator: "\n").prefix(20).map(String.init)
        let byArch = try ToolBinary.run(["symbolicate", "-o", fat, "-arch", "arm64e", "--json"] + addresses)
        let byUUID = try ToolBinary.run(["symbolicate", "-o", fat, "--uuid", "4C4C4C4C-5555-3144-A1B2-0000000C0004", "--json"] + addresses)
        let arm64 = try ToolBinary.run(["symbolicate", "-o", fat, "-arch", "arm64", "--json"] + addresses)
        #expect(byArch.status == 0, "\(byArch.stderr)")
        #expect(byArch.stdout == byUUID.stdout)
        #expect(byArch.stdout != arm64.stdout)

        let dsymExample = try Self.runtimeAddresses("arm64")
        let asArm64e = try ToolBinary.run(["symbolicate", "-o", try Self.path(), "-l", Self.loadAddress, "-arch", "arm64e"] + dsymExample)
        let asArm64 = try ToolBinary.run(["symbolicate", "-o", try Self.path(), "-l", Self.loadAddress, "-arch", "arm64"] + dsymExample)
        #expect(asArm64e.status == 0, "\(asArm64e.stderr)")
        #expect(asArm64e.stdout == asArm64.stdout)
    }

    @Test func aFatFileNeedsASliceAndNamesWhatItHas() throws {
        let none = try ToolBinary.run(["symbolicate", "-o", try Self.path(), "0x10000398c"])
        #expect(none.status == 1)
        #expect(
            none.stderr.contains(
                "has 2 slices (x86_64 28D7DD4A-43FC-36DE-ABB7-A8B9849E93C9, arm64 926D1290-1471-38FA-8C6C-114F3F3AD71D); pick one with --arch or --uuid"
            ),
            "\(none.stderr)")
        let missing = try ToolBinary.run(["symbolicate", "-o", try Self.path(), "-arch", "armv7", "0x10000398c"])
        #expect(missing.status == 1)
        #expect(missing.stderr.contains("no armv7 slice (has x86_64 28D7DD4A"), "\(missing.stderr)")
    }

    /// A slid address looked up without `-l` names nothing; one line on stderr says why, however
    /// many such addresses there are, and the answers and exit status stay as they were.
    @Test func aSlidAddressWithoutLoadAddressGetsOneHint() throws {
        let addresses = Array(try Self.runtimeAddresses("arm64").prefix(3))
        let run = try ToolBinary.run(["symbolicate", "-o", try Self.path(), "-arch", "arm64"] + addresses)
        #expect(run.status == 0)
        let hints = run.stderr.split(separator: "\n").filter { $0.hasPrefix("hint: ") }
        #expect(hints.count == 1, "\(run.stderr)")
        #expect(
            hints.first
                == "hint: 0x10400398c lies past DSYM Example (0x100000000..<0x100008100); for a runtime address give the image's load address (-l ADDRESS) or its slide (-s OFFSET)"
        )
        #expect(run.stdout.split(separator: "\n").allSatisfy { $0.contains("[no symbol at 0x1040") }, "\(run.stdout)")
        let given = try ToolBinary.run(["symbolicate", "-o", try Self.path(), "-arch", "arm64", "-l", Self.loadAddress] + addresses)
        #expect(!given.stderr.contains("hint:"))
    }

    /// The index answers runtime addresses as the debug file does (the index's own text writer
    /// subtracts the load address).
    @Test func theIndexAnswersRuntimeAddressesAsDirectly() throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("yui-atos-index-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: folder) }
        let stdin = try Self.runtimeAddresses("x86_64").joined(separator: "\n") + "\n0x103fff000\n"
        let base = ["symbolicate", "-o", try Self.path(), "-l", Self.loadAddress, "-arch", "x86_64"]
        let direct = CommandRun(base, stdin: stdin)
        let indexed = CommandRun(base + ["--index-folder", folder.path], stdin: stdin)
        #expect(direct.status == 0 && indexed.status == 0, "\(direct.stderr) \(indexed.stderr)")
        #expect(indexed.stdout == direct.stdout)
        // 0x103fff000 lies 4096 bytes below the load address: nothing there, and it says so.
        #expect(direct.stdout.hasSuffix(" 0x0000000103fff000 DSYM Example - 4096 [no symbol at 0x103fff000]\n"), "\(direct.stdout)")
    }

    @Test(arguments: [
        (["symbolicate", "-l", "0x1000", "samples/x.json"], "Option '--load-address' needs '--object'."),
        (["symbolicate", "-o", "x", "-l", "0x1000", "-s", "0x10", "0x1"], "Options '--load-address' and '--slide' cannot be combined."),
        (["symbolicate", "-o", "x", "--offsets", "-l", "0x1000", "0x1"], "Options '--offsets' and '--load-address' cannot be combined."),
        (
            ["symbolicate", "-o", "x", "--uuid", "4C4C4C4C-5555-3144-A1B2-0000000C0004", "-arch", "arm64", "0x1"],
            "Options '--uuid' and '--arch' cannot be combined"
        ),
        (["symbolicate", "-o", "x", "-arch", "sparc", "0x1"], "Invalid value 'sparc' for '--arch' (arm64, arm64e"),
        (["symbolicate", "-o", "x", "-l", "ten", "0x1"], "Invalid value 'ten' for '--load-address': an address"),
        (["symbolicate", "-o", "x", "--output-style=LLVM", "0x1"], "Invalid value 'LLVM' for '--output-style' (JSON, the same as --json)."),
        (["symbolicate", "-o", "x", "--functions", "short", "0x1"], "Invalid value 'short' for '--functions'"),
        (["symbolicate", "-o", "x", "--atos-style", "--json", "0x1"], "Options '--json' and '--atos-style' cannot be combined."),
        (["symbolicate", "--atos-style", "samples/x.json"], "Option '--atos-style' needs '--object'."),
    ])
    func misusedFormsAreUsageErrors(arguments: [String], message: String) throws {
        let run = try ToolBinary.run(arguments)
        #expect(run.status == 64)
        #expect(run.stdout.isEmpty)
        #expect(run.stderr.hasPrefix("Error: \(message)"), "\(run.stderr)")
    }
}
