import Foundation
import StackSymbolize
import TestSupport
import Testing

@testable import PayloadTool

/// Real Apple-built debug files (`dsyms-fixtures/real/`, copied from public repositories; see its
/// PROVENANCE and `manifest.json`): Xcode 8 to Xcode 26, Swift 3 to Swift 6, C, C++, Objective-C,
/// arm64, armv7, x86_64, fat files, bitcode-hidden names, header-only units, an executable
/// without DWARF. Every slice must read, and its answers must agree with llvm-symbolizer's,
/// recorded in `real/expected/` by `real/regenerate.py`.
enum RealDebugFiles {
    struct Slice: Decodable {
        var uuid: String
        var arch: String
        var expected: String
        var address_count: Int
        var has_dwarf: Bool
    }

    struct Entry: Decodable {
        var name: String
        var path: String
        var format: String
        var slices: [Slice]
    }

    static func entries() -> [Entry] {
        let manifest = SymbolicateFixtures.root.appendingPathComponent("real/manifest.json")
        guard let data = try? Data(contentsOf: manifest), let entries = try? JSONDecoder().decode([Entry].self, from: data)
        else { return [] }
        return entries
    }

    /// "expected|path|uuid" for every slice.
    static func sliceKeys() -> [String] {
        entries().flatMap { entry in entry.slices.map { "\($0.expected)|\(entry.path)|\($0.uuid)" } }
    }

    static func path(_ relative: String) throws -> String { try SymbolicateFixtures.path("real/" + relative) }

    static func addresses(_ expected: String) throws -> [String] {
        try String(contentsOfFile: try path("expected/\(expected).addresses"), encoding: .utf8)
            .split(separator: "\n").map(String.init).filter { !$0.isEmpty }
    }

    /// One frame as both sides give it: name, file, line; unknowns as nil.
    struct Frame: Equatable, CustomStringConvertible {
        var name: String?
        var file: String?
        var line: Int

        var description: String { "\(name ?? "??") \(file ?? "??"):\(line)" }
    }

    struct Reference: Decodable {
        struct SymbolFrame: Decodable {
            var FunctionName: String
            var FileName: String
            var Line: Int
        }
        var Address: String
        var Symbol: [SymbolFrame]

        /// Innermost first; llvm-symbolizer writes an unknown name as "" or "??" and an unknown
        /// file as "", and a lone unknown frame means nothing was found.
        var frames: [Frame] {
            let frames = Symbol.map {
                Frame(
                    name: ["", "??"].contains($0.FunctionName) ? nil : $0.FunctionName, file: $0.FileName.isEmpty ? nil : $0.FileName,
                    line: $0.Line)
            }
            return frames == [Frame(name: nil, file: nil, line: 0)] ? [] : frames
        }
    }

    struct Answer: Decodable {
        struct SourceFrame: Decodable {
            var file: String?
            var function: String
            var line: Int?
            var linkage_name: String?
        }
        var frames: [SourceFrame]

        var chain: [Frame] {
            frames.map { Frame(name: $0.linkage_name ?? ($0.function == "??" ? nil : $0.function), file: $0.file, line: $0.line ?? 0) }
        }
    }

    static func references(_ expected: String) throws -> [Reference] {
        try String(contentsOfFile: try path("expected/\(expected).json"), encoding: .utf8)
            .split(separator: "\n").filter { !$0.isEmpty }
            .map { try JSONDecoder().decode(Reference.self, from: Data($0.utf8)) }
    }

    /// `symbolicate --object` on one slice, addresses on stdin, in direct or index mode.
    static func symbolicate(
        _ relativePath: String, uuid: String, addresses: [String], format: String, indexFolder: String?
    )
        throws -> CommandRun
    {
        var arguments = ["symbolicate", "--object", try path(relativePath), "--uuid", uuid]
        if format != "text" { arguments.append("--\(format)") }
        if let indexFolder { arguments += ["--index-folder", indexFolder] }
        return CommandRun(arguments, stdin: addresses.joined(separator: "\n") + "\n")
    }
}

/// Agreement counts over every address of every slice.
struct Agreement {
    var total = 0
    var function = 0
    var fileLine = 0
    var fullPath = 0
    var chain = 0
    var differences: [String] = []

    mutating func add(_ reference: RealDebugFiles.Reference, _ answer: RealDebugFiles.Answer, slice: String) {
        let theirs = reference.frames
        let ours = answer.chain
        total += 1
        // The function: the outermost frame's name (llvm-symbolizer's comes from the symbol table).
        if theirs.last?.name == ours.last?.name { function += 1 }
        // File name and line of the innermost frame.
        let baseName = { (path: String?) in path.map { ($0 as NSString).lastPathComponent } }
        if baseName(theirs.first?.file) == baseName(ours.first?.file), theirs.first?.line ?? 0 == ours.first?.line ?? 0 {
            fileLine += 1
        }
        if theirs.first?.file == ours.first?.file { fullPath += 1 }
        if theirs == ours {
            chain += 1
        } else if differences.count < 40 {
            differences.append("\(slice) \(reference.Address): llvm-symbolizer \(theirs), payload-tool \(ours)")
        }
    }

    func rate(_ count: Int) -> Double { total == 0 ? 1 : Double(count) / Double(total) }
}

@Suite(.serialized) struct RealDebugFileTests {
    @Test func theRealFixturesAreThere() throws {
        let entries = RealDebugFiles.entries()
        #expect(entries.count >= 15)
        #expect(entries.flatMap(\.slices).count >= 18)
        // Every file listed in PROVENANCE exists with its recorded size of bytes.
        let provenance = try String(contentsOfFile: try RealDebugFiles.path("PROVENANCE"), encoding: .utf8)
        let lines = provenance.split(separator: "\n").filter { !$0.hasPrefix("#") }
        #expect(lines.count >= 28)
        for line in lines {
            let fields = line.split(separator: "\t").map(String.init)
            try #require(fields.count == 5, "PROVENANCE line \(line)")
            #expect(FileManager.default.fileExists(atPath: try RealDebugFiles.path(fields[0])), "\(fields[0])")
            #expect(fields[2].count == 40 && fields[4].count == 64, "\(line)")
        }
        // Every manifest file has a PROVENANCE line.
        let listed = Set(lines.map { String($0.split(separator: "\t")[0]) })
        for entry in entries { #expect(listed.contains(entry.path), "\(entry.path) has no PROVENANCE line") }
    }

    /// The comparison with llvm-symbolizer over every function start, random addresses inside
    /// functions and inlined ranges of every slice, in direct and in `--index` mode.
    @Test(arguments: [false, true]) func agreesWithLlvmSymbolizer(indexed: Bool) throws {
        var agreement = Agreement()
        let indexFolder = FileManager.default.temporaryDirectory.appendingPathComponent("yui-real-index-\(UUID().uuidString)").path
        defer { try? FileManager.default.removeItem(atPath: indexFolder) }
        for entry in RealDebugFiles.entries() {
            for slice in entry.slices where slice.address_count > 0 {
                let addresses = try RealDebugFiles.addresses(slice.expected)
                let references = try RealDebugFiles.references(slice.expected)
                try #require(references.count == addresses.count, "\(slice.expected)")
                let run = try RealDebugFiles.symbolicate(
                    entry.path, uuid: slice.uuid, addresses: addresses, format: "json", indexFolder: indexed ? indexFolder : nil)
                try #require(run.status == 0, "\(slice.expected): \(run.stderr)")
                let answers = try JSONDecoder().decode([RealDebugFiles.Answer].self, from: Data(run.stdout.utf8))
                try #require(answers.count == references.count)
                for (reference, answer) in zip(references, answers) { agreement.add(reference, answer, slice: slice.expected) }
            }
        }
        let summary =
            "\(agreement.total) addresses: function \(agreement.function), file:line \(agreement.fileLine), full path \(agreement.fullPath), chain \(agreement.chain); first differences:\n"
            + agreement.differences.joined(separator: "\n")
        #expect(agreement.total >= 15_000, "\(summary)")
        #expect(agreement.rate(agreement.function) >= 0.995, "\(summary)")
        #expect(agreement.fileLine == agreement.total, "\(summary)")
        #expect(agreement.rate(agreement.fullPath) >= 0.995, "\(summary)")
        #expect(agreement.rate(agreement.chain) >= 0.995, "\(summary)")
    }

    /// A slice with no code still opens and answers "not found", in both modes; the executable
    /// without DWARF answers from its symbol table.
    @Test(arguments: RealDebugFiles.sliceKeys()) func everySliceReads(_ key: String) throws {
        let parts = key.split(separator: "|").map(String.init)
        let (expected, path, uuid) = (parts[0], parts[1], parts[2])
        let indexFolder = FileManager.default.temporaryDirectory.appendingPathComponent("yui-real-read-\(UUID().uuidString)").path
        defer { try? FileManager.default.removeItem(atPath: indexFolder) }
        let addresses = Array(try RealDebugFiles.addresses(expected).prefix(50)) + ["0x0", "0xffffffffffffffff"]
        for folder in [nil, indexFolder] {
            let run = try RealDebugFiles.symbolicate(path, uuid: uuid, addresses: addresses, format: "json", indexFolder: folder)
            #expect(run.status == 0, "\(expected) (index: \(folder != nil)): \(run.stderr)")
            #expect(run.stderr.isEmpty, "\(expected): \(run.stderr)")
            struct Status: Decodable { var status: String }
            let statuses = try JSONDecoder().decode([Status].self, from: Data(run.stdout.utf8)).map(\.status)
            // 0 lies in the Mach-O header and 2^64 - 1 past every section: neither is a function.
            #expect(statuses.suffix(2) == ["not_found", "not_found"], "\(expected)")
            if expected == "crash-binary" { #expect(statuses.dropLast(2).allSatisfy { $0 == "symbol_table" }) }
        }
    }

    /// `dsyms` calls every real file usable, and `symbolicate --build` uses each of them.
    @Test func dsymsAndSymbolicateAgree() throws {
        let root = try RealDebugFiles.path("")
        for build in ["swift-dwarf", "symbolic-macos", "sentry-ios-1.4.1", "electron-1.8.1", "macsymbolicator"] {
            let run = CommandRun(["dsyms", "--dsyms", root, "--json", build])
            #expect(run.status == 0, "\(build): \(run.stderr)")
            struct Report: Decodable {
                struct File: Decodable {
                    var path: String
                    var problem: String?
                    var uuids: [String]
                }
                var debug_files: [File]
                var problems: [String]
            }
            let report = try JSONDecoder().decode(Report.self, from: Data(run.stdout.utf8))
            #expect(!report.debug_files.isEmpty && report.problems.isEmpty, "\(build)")
            #expect(report.debug_files.allSatisfy { $0.problem == nil }, "\(build)")
        }
    }
}

/// Symbol-table answers are bounded: past the last function, before the first, or below the
/// image, an address is "not found" (never `_fini + 18446744073700395379`).
@Suite struct SymbolBoundsTests {
    @Test func addressesOutsideEveryFunctionAreNotFound() throws {
        let elf = CommandRun(["symbolicate", "--object", try SymbolicateFixtures.path("other/yui-linux"), "0xffffffffffffffff", "0x1"])
        #expect(elf.status == 0)
        #expect(
            elf.stdout.split(separator: "\n").map(String.init) == [
                "0   yui-linux               0xffffffffffffffff yui-linux + 18446744073707454463 [no symbol at 0xffffffffffffffff]",
                "1   yui-linux               0x0000000000000001 yui-linux - 2097151 [no symbol at 0x1]",
            ])
        let binary = CommandRun(["symbolicate", "--object", try RealDebugFiles.path("symbolic-macos/binary/crash"), "0x100000000", "0x100001000"])
        #expect(
            binary.stdout.split(separator: "\n").map(String.init) == [
                "0   crash                   0x0000000100000000 crash + 0 [no symbol at 0x100000000]",
                "1   crash                   0x0000000100001000 MinidumpFileWriter.CopyStringToMDString + 16 [symbol table]",
            ])
    }
}

/// `--offsets` past 2^64 from the text base is no address: "not found", without an address, in
/// direct and index mode (it used to wrap around).
@Suite struct OffsetPastTheEndTests {
    @Test func anOffsetPastTheEndIsNotFound() throws {
        let object = try SymbolicateFixtures.path("builds/130/YuiApp.app.dSYM")
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("yui-offset-\(UUID().uuidString)").path
        defer { try? FileManager.default.removeItem(atPath: folder) }
        for extra in [[], ["--index-folder", folder]] {
            let run = CommandRun(["symbolicate", "--object", object, "--offsets", "--json", "0xffffffffffffffff", "0x4058"] + extra)
            #expect(run.status == 0)
            struct Answer: Decodable {
                var status: String
                var lookup_address: String?
            }
            let answers = try JSONDecoder().decode([Answer].self, from: Data(run.stdout.utf8))
            #expect(answers.map(\.status) == ["not_found", "symbolicated"])
            #expect(answers.map(\.lookup_address) == [nil, "0x100004058"])
        }
    }
}

/// A debug file `symbolicate` refuses is not called usable by `dsyms`, which says why.
@Suite struct DsymsUsabilityTests {
    @Test func refusedFileIsNotUsableAndSaysWhy() throws {
        let root = FileManager.default.temporaryDirectory.appendingPathComponent("yui-dsyms-usable-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: root) }
        let build = root.appendingPathComponent("7")
        try FileManager.default.createDirectory(at: build, withIntermediateDirectories: true)
        let corpus = Repository.badInputCorpus.appendingPathComponent("macho-debug-abbrev-zeroed.macho")
        let copy = build.appendingPathComponent("Broken")
        try FileManager.default.copyItem(at: corpus, to: copy)
        let refused = CommandRun(["symbolicate", "--object", copy.path, "0x4000"])
        #expect(refused.status == 1)
        let reason = try #require(refused.stderr.split(separator: "\n").first { $0.contains("corrupt DWARF") })
        let listed = CommandRun(["dsyms", "--dsyms", root.path, "7"])
        #expect(listed.status == 1)
        #expect(listed.stdout.contains("[not usable: corrupt DWARF"))
        #expect(listed.stderr.contains(String(reason.drop { $0 != "/" })))
    }
}

/// `--index` answers byte for byte what direct mode answers, on every address of every fixture:
/// the ones built here (`dsyms-fixtures/manifest.json`) and the real ones.
@Suite struct IndexEqualsDirectTests {
    static func slices() -> [String] {
        SymbolicateFixtures.slices().map { "\($0.slice.expected)|\($0.path)|\($0.slice.uuid)" }
            + RealDebugFiles.entries().flatMap { entry in entry.slices.map { "\($0.expected)|real/\(entry.path)|\($0.uuid)" } }
    }

    @Test(arguments: slices()) func sameBytes(_ key: String) throws {
        let parts = key.split(separator: "|").map(String.init)
        let (expected, path, uuid) = (parts[0], parts[1], parts[2])
        let isReal = path.hasPrefix("real/")
        let listing = isReal ? "real/expected/\(expected).addresses" : "expected/\(expected).addresses"
        var addresses = try String(contentsOfFile: try SymbolicateFixtures.path(listing), encoding: .utf8)
            .split(separator: "\n").map(String.init).filter { !$0.isEmpty }
        addresses += ["0x0", "0x1", "0xffffffffffffffff"]
        let indexFolder = FileManager.default.temporaryDirectory.appendingPathComponent("yui-same-\(UUID().uuidString)").path
        defer { try? FileManager.default.removeItem(atPath: indexFolder) }
        let object = try SymbolicateFixtures.path(path)
        for format in ["text", "json"] {
            var arguments = ["symbolicate", "--object", object, "--uuid", uuid]
            if format == "json" { arguments.append("--json") }
            let input = addresses.joined(separator: "\n") + "\n"
            let direct = CommandRun(arguments, stdin: input)
            let building = CommandRun(arguments + ["--index-folder", indexFolder], stdin: input)
            let reading = CommandRun(arguments + ["--index-folder", indexFolder], stdin: input)
            #expect(direct.status == 0, "\(expected): \(direct.stderr)")
            #expect(building.stdout == direct.stdout, "\(expected) \(format): index build differs from direct")
            #expect(reading.stdout == direct.stdout, "\(expected) \(format): index read differs from direct")
            #expect(building.status == direct.status && reading.status == direct.status)
        }
    }
}

/// The build-folder walk follows symbolic links (a build folder or a `.dSYM` bundle linked from
/// elsewhere), visits each real file once (a link back up ends there), and names what it cannot
/// read instead of skipping it.
@Suite struct BuildFolderWalkTests {
    @Test func linkedFoldersAreFollowedOnceAndBrokenLinksNamed() throws {
        let root = FileManager.default.temporaryDirectory.appendingPathComponent("yui-walk-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: root) }
        let manager = FileManager.default
        try manager.createDirectory(at: root, withIntermediateDirectories: true)
        // Build 130 is a link to the fixtures' build folder.
        try manager.createSymbolicLink(
            atPath: root.appendingPathComponent("130").path, withDestinationPath: try SymbolicateFixtures.path("builds/130"))
        // Build 131 holds a link to a dSYM bundle, a link back to its own folder, and a broken link.
        let build131 = root.appendingPathComponent("131")
        try manager.createDirectory(at: build131, withIntermediateDirectories: true)
        try manager.createSymbolicLink(
            atPath: build131.appendingPathComponent("YuiApp.app.dSYM").path,
            withDestinationPath: try SymbolicateFixtures.path("builds/131/YuiApp.app.dSYM"))
        try manager.createSymbolicLink(atPath: build131.appendingPathComponent("loop").path, withDestinationPath: "..")
        try manager.createSymbolicLink(atPath: build131.appendingPathComponent("gone.dSYM").path, withDestinationPath: "/nonexistent/gone.dSYM")

        let linked = CommandRun(["dsyms", "--dsyms", root.path, "130"])
        #expect(linked.status == 0, "\(linked.stderr)")
        #expect(linked.stdout.contains("4C4C4C4C-5555-3144-A1B2-000000000130 arm64"))
        #expect(linked.stdout.contains("4C4C4C4C-5555-3144-A1B2-0000000B0130 arm64"))

        let mixed = CommandRun(["dsyms", "--dsyms", root.path, "131"])
        #expect(mixed.status == 1)
        #expect(mixed.stdout.components(separatedBy: "4C4C4C4C-5555-3144-A1B2-000000000131").count == 2, "\(mixed.stdout)")
        #expect(mixed.stderr.contains("gone.dSYM: cannot read: No such file or directory"), "\(mixed.stderr)")
    }
}

/// Text and folded output from an index is written straight from the index's bytes (`IndexedTextOutput`),
/// in blocks, on two threads for a large batch: the same bytes as direct mode, whichever way the
/// batch is cut, on the fixtures and the real files, with inputs that are no address, addresses
/// with nothing there, and `--offsets` past the end.
@Suite struct IndexedTextOutputTests {
    @Test(arguments: IndexEqualsDirectTests.slices(), [false, true])
    func blocksAndThreadsWriteWhatDirectModeWrites(_ key: String, offsets: Bool) throws {
        let parts = key.split(separator: "|").map(String.init)
        let (expected, path, uuid) = (parts[0], parts[1], parts[2])
        let listing = path.hasPrefix("real/") ? "real/expected/\(expected).addresses" : "expected/\(expected).addresses"
        var addresses = try String(contentsOfFile: try SymbolicateFixtures.path(listing), encoding: .utf8)
            .split(separator: "\n").map(String.init).filter { !$0.isEmpty }
        addresses += ["0x0", "0x1", "0xffffffffffffffff", "not-an-address", "18446744073709551616"]
        let object = try SymbolicateFixtures.path(path)
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("yui-indexed-text-\(UUID().uuidString)").path
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let direct = CommandRun(
            ["symbolicate", "--object", object, "--uuid", uuid] + (offsets ? ["--offsets"] : []), stdin: addresses.joined(separator: "\n") + "\n")
        #expect(direct.status == 1, "\(expected): the inputs that are no address fail the run")
        let symbolizer = try BuildSymbolizer(debugFiles: [object], indexFolder: folder)
        let frames = try #require(try symbolizer.indexedFrames(uuid: uuid))
        let batch = AddressBatch.gather(arguments: addresses, stdin: FileHandle.nullDevice)
        let image = (frames.debugFile as NSString).lastPathComponent
        let directFolded = CommandRun(
            ["symbolicate", "--object", object, "--uuid", uuid, "--folded"] + (offsets ? ["--offsets"] : []),
            stdin: addresses.joined(separator: "\n") + "\n")
        #expect(directFolded.stdout.split(separator: "\n").count == addresses.count - 2, "\(expected): a folded line per address")
        // One thread reading its own pages, then two threads on the mapping in blocks of 1, 7 and 4096.
        for (threads, blockSize) in [(1, 4096), (2, 1), (2, 7), (2, 4096)] {
            for folded in [false, true] {
                var written = ""
                let problem = IndexedTextOutput.write(
                    batch: batch, frames: frames, offsets: offsets, image: image, folded: folded, threads: threads,
                    minimumForThreads: threads > 1 ? 0 : .max, blockSize: blockSize, to: &written)
                #expect(problem == nil)
                #expect(
                    written == (folded ? directFolded.stdout : direct.stdout),
                    "\(expected): \(threads) threads, blocks of \(blockSize), \(folded ? "folded" : "text")")
            }
        }
    }
}
