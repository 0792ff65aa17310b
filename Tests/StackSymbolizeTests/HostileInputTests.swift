import Foundation
import TestSupport
import Testing

@testable import StackSymbolize
@testable import SymbolNames

/// Truncated and hostile debug files give errors naming the file, never a crash (docs/design.md, "Bad input").
@Suite struct HostileInputTests {
    let original: [UInt8]
    let folder: URL

    init() throws {
        let path = try Fixtures.path("builds/130/YuiApp.app.dSYM/Contents/Resources/DWARF/YuiApp")
        original = Array(try Data(contentsOf: URL(fileURLWithPath: path)))
        folder = FileManager.default.temporaryDirectory.appendingPathComponent("yui-sym-hostile-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
    }

    func write(_ bytes: [UInt8], _ name: String) -> String {
        let path = folder.appendingPathComponent(name).path
        FileManager.default.createFile(atPath: path, contents: Data(bytes))
        return path
    }

    /// Opens `path` and looks up a few addresses; returns the error text, if any.
    func exercise(_ path: String, addresses: [UInt64] = [0x1_0000_4000, 0x1_0000_40ac, 0]) -> String? {
        do {
            let symbolizer = try BuildSymbolizer(debugFiles: [path])
            for file in symbolizer.debugFiles {
                _ = try? symbolizer.lookup(addresses: addresses, uuid: file.uuids[0])
            }
            return symbolizer.problems.first?.description
        } catch {
            return error.description
        }
    }

    func u32(_ bytes: [UInt8], _ at: Int) -> UInt32 {
        bytes[at..<(at + 4)].reversed().reduce(0) { $0 << 8 | UInt32($1) }
    }

    func put32(_ bytes: inout [UInt8], _ at: Int, _ value: UInt32, bigEndian: Bool = false) {
        for index in 0..<4 {
            let shift = bigEndian ? (3 - index) * 8 : index * 8
            bytes[at + index] = UInt8(truncatingIfNeeded: value >> UInt32(shift))
        }
    }

    @Test func truncatedFilesAreErrorsNamingTheFile() {
        defer { try? FileManager.default.removeItem(at: folder) }
        for length in [0, 3, 8, 31, 100, 700, original.count / 3, original.count / 2, original.count - 1] {
            let path = write(Array(original.prefix(length)), "cut-\(length)")
            let problem = exercise(path)
            if length < original.count / 3 {
                #expect(problem?.contains(path) == true, "length \(length)")
            }
        }
    }

    @Test func loadCommandsPastTheEndAreRefused() {
        defer { try? FileManager.default.removeItem(at: folder) }
        var bytes = original
        put32(&bytes, 20, 0x7fff_ffff)  // sizeofcmds
        let path = write(bytes, "sizeofcmds")
        #expect(exercise(path)?.contains("load commands") == true)
        bytes = original
        put32(&bytes, 32 + 4, 0xffff_fff0)  // the first command's cmdsize
        #expect(exercise(write(bytes, "cmdsize"))?.contains("load command 0") == true)
    }

    @Test func sectionOffsetsPastTheEndAreRefused() throws {
        defer { try? FileManager.default.removeItem(at: folder) }
        // Find __debug_info's section header and point it far past the end.
        let name = Array("__debug_info".utf8)
        let header = try #require(
            (0..<(original.count - 16)).first { original[$0..<($0 + name.count)].elementsEqual(name) && original[$0 + name.count] == 0 })
        var bytes = original
        put32(&bytes, header + 48, 0x7fff_0000)
        #expect(exercise(write(bytes, "section"))?.contains("__debug_info") == true)
    }

    @Test func overlappingFatSlicesAreRefused() {
        defer { try? FileManager.default.removeItem(at: folder) }
        var fat = [UInt8](repeating: 0, count: 4096)
        put32(&fat, 0, 0xcafe_babe, bigEndian: true)
        put32(&fat, 4, 2, bigEndian: true)
        for slice in 0..<2 {
            let entry = 8 + slice * 20
            put32(&fat, entry, 0x0100_000c, bigEndian: true)
            put32(&fat, entry + 8, 4096, bigEndian: true)
            put32(&fat, entry + 12, UInt32(original.count), bigEndian: true)
        }
        let path = write(fat + original, "overlap")
        #expect(exercise(path)?.contains("overlaps") == true)
    }

    @Test func corruptDWARFDoesNotStopTheRun() throws {
        defer { try? FileManager.default.removeItem(at: folder) }
        let name = Array("__debug_info".utf8)
        let header = try #require(
            (0..<(original.count - 16)).first { original[$0..<($0 + name.count)].elementsEqual(name) && original[$0 + name.count] == 0 })
        let offset = Int(u32(original, header + 48))
        var generator = SplitMix64(seed: 11)
        for round in 0..<20 {
            var bytes = original
            for _ in 0..<40 {
                let at = offset + Int(generator.next() % 400)
                bytes[at] = UInt8(truncatingIfNeeded: generator.next())
            }
            _ = exercise(write(bytes, "dwarf-\(round)"))
        }
    }

    @Test func truncatedAndCorruptELFFilesNeverCrash() throws {
        defer { try? FileManager.default.removeItem(at: folder) }
        let elf = Array(try Data(contentsOf: URL(fileURLWithPath: try Fixtures.path("other/yui-linux"))))
        let addresses = try String(contentsOfFile: try Fixtures.path("expected/yui-linux.addresses"), encoding: .utf8)
            .split(separator: "\n").compactMap { UInt64($0.dropFirst(2), radix: 16) }
        try #require(addresses.count > 10)
        for length in [4, 16, 63, 64, 200, elf.count / 4, elf.count / 2, elf.count - 1] {
            let path = write(Array(elf.prefix(length)), "elf-cut-\(length)")
            _ = exercise(path, addresses: addresses)
        }
        var generator = SplitMix64(seed: 5)
        for round in 0..<20 {
            var bytes = elf
            for _ in 0..<60 {
                let at = 64 + Int(generator.next() % UInt64(elf.count - 64))
                bytes[at] = UInt8(truncatingIfNeeded: generator.next())
            }
            _ = exercise(write(bytes, "elf-flip-\(round)"), addresses: addresses)
        }
        #expect(exercise(write(Array(elf.prefix(16)), "elf-16"))?.contains("elf-16") == true)
    }

    /// The line program is read over the bytes (`LineProgram`, DWARF 2 to 5): a damaged header,
    /// entry format, string offset or opcode never crashes a run; libdw reads what it cannot.
    @Test func corruptLineProgramsNeverCrash() throws {
        defer { try? FileManager.default.removeItem(at: folder) }
        let elf = Array(try Data(contentsOf: URL(fileURLWithPath: try Fixtures.path("other/yui-linux"))))
        let addresses = try String(contentsOfFile: try Fixtures.path("expected/yui-linux.addresses"), encoding: .utf8)
            .split(separator: "\n").compactMap { UInt64($0.dropFirst(2), radix: 16) }
        // The ELF64 section headers: `.debug_line` and `.debug_line_str` by name.
        func u64(_ at: Int) -> Int { (0..<8).reduce(0) { $0 | Int(elf[at + $1]) << (8 * $1) } }
        func u16(_ at: Int) -> Int { Int(elf[at]) | Int(elf[at + 1]) << 8 }
        let table = u64(0x28)
        let count = u16(0x3c)
        let names = u64(table + u16(0x3e) * 64 + 0x18)
        var sections: [String: Range<Int>] = [:]
        for index in 0..<count {
            let header = table + index * 64
            let nameStart = names + Int(UInt32(elf[header]) | UInt32(elf[header + 1]) << 8 | UInt32(elf[header + 2]) << 16)
            let name = String(decoding: elf[nameStart...].prefix { $0 != 0 }, as: UTF8.self)
            sections[name] = u64(header + 0x18)..<(u64(header + 0x18) + u64(header + 0x20))
        }
        let line = try #require(sections[".debug_line"])
        let lineStrings = try #require(sections[".debug_line_str"])
        var generator = SplitMix64(seed: 17)
        for round in 0..<40 {
            var bytes = elf
            let target = round % 4 == 3 ? lineStrings : line
            for _ in 0..<(1 + round % 6) {
                bytes[target.lowerBound + Int(generator.next() % UInt64(target.count))] = UInt8(truncatingIfNeeded: generator.next())
            }
            _ = exercise(write(bytes, "line-\(round)"), addresses: addresses)
        }
    }

    @Test func notADebugFileIsSaidSo() {
        defer { try? FileManager.default.removeItem(at: folder) }
        let path = write(Array("just some text\n".utf8), "text")
        #expect(exercise(path) == "\(path): neither a Mach-O nor an ELF file")
    }
}
