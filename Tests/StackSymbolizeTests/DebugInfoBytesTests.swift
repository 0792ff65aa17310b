import Foundation
import Testing

@testable import StackSymbolize

/// Function names read over the section bytes (`DebugInfoBytes`) must be libdw's, DIE for DIE: the
/// linkage name through abstract origins and specifications, else the plain name, and where an
/// inlined call's names come from. Every function and inlined call of the fixtures' dSYMs (DWARF 2
/// to 4, Apple-built and ours) and of toolchain binaries (Swift's DWARF 4, clang's DWARF 5 with
/// indexed strings).
@Suite struct DebugInfoBytesTests {
    /// Compares every DIE of the image's function trees; returns how many were compared, and how
    /// many inlined calls there were and had their origin read by the walk. The origin the unit's
    /// walk read in passing (`ScopeNode.nameOrigin`, what the index build names inlined calls by)
    /// must be the one read from the DIE on its own.
    static func compareNames(_ image: DebugImage, _ name: String) -> (compared: Int, inlined: Int, originsRead: Int) {
        var compared = 0
        var inlined = 0
        var originsRead = 0
        for index in 0..<image.unitCount {
            for node in image.wholeUnit(index).nodes {
                let both = image.namesBothWays(node.dieOffset)
                #expect(both.bytes.linkage == both.libdw.linkage, "\(name) DIE \(node.dieOffset)")
                #expect(both.bytes.plain == both.libdw.plain, "\(name) DIE \(node.dieOffset)")
                #expect(both.bytesOrigin == both.libdwOrigin, "\(name) DIE \(node.dieOffset)")
                if node.nameOrigin != .max {
                    #expect(node.nameOrigin == both.libdwOrigin ?? node.dieOffset, "\(name) DIE \(node.dieOffset): walk's origin")
                    if node.isInlined { originsRead += 1 }
                }
                if node.isInlined { inlined += 1 }
                compared += 1
            }
        }
        return (compared, inlined, originsRead)
    }

    @Test func everyFixtureSlice() throws {
        let scan = DebugFileCatalog.scan([try Fixtures.path("builds"), try Fixtures.path("real")])
        try #require(scan.files.count > 10)
        var compared = 0
        var leftToLibdw = 0
        for file in scan.files {
            let image = try DebugFileCatalog.open(file)
            compared += Self.compareNames(image, "\(file.path) \(file.arch)").compared
            leftToLibdw += image.namesReadByLibdw
        }
        #expect(compared > 1_000)
        #expect(leftToLibdw == 0, "\(leftToLibdw) names left to libdw")
    }

    @Test(arguments: UnitRangeReaderTests.toolchainBinaries.prefix(2))
    func toolchainBinary(_ path: String) throws {
        let image = try DebugImage(elfPath: path)
        let counts = Self.compareNames(image, path)
        #expect(counts.compared > 10_000)
        // On the toolchain's ELF files the walk reads nearly every inlined call's origin (the
        // dSYM fixtures' calls, whose ranges libdw reads, are left to the lookup).
        #expect(counts.inlined > 1_000 && counts.originsRead * 10 >= counts.inlined * 9, "\(counts)")
        #expect(image.namesReadByLibdw == 0, "\(image.namesReadByLibdw) names left to libdw")
        // Every unit read over the bytes: its unit DIE, its line program and its tree.
        #expect(image.unitsLinedByLibdw == 0 && image.unitsWalkedByLibdw == 0)
    }

    /// Units cut short or with bytes changed: never a crash, and no answer read past the bytes
    /// (a unit whose header claims more than the section holds is not read at all).
    @Test func damagedUnitsNeverCrash() throws {
        let elf = try ElfHandle(path: try Fixtures.path("other/yui-linux"))
        let sections = try #require(ElfSectionLookup.debugInfoSections(in: elf))
        let info = Array(sections.info)
        try #require(info.count > 64)
        var generator = SystemRandomNumberGenerator()
        var variants: [[UInt8]] = (1..<min(info.count, 400)).map { Array(info.prefix($0)) }
        for _ in 0..<300 {
            var changed = info
            for _ in 0..<4 { changed[Int.random(in: 0..<changed.count, using: &generator)] = UInt8.random(in: 0...255, using: &generator) }
            variants.append(changed)
        }
        var answered = 0
        for variant in variants {
            variant.withUnsafeBytes { bytes in
                var damaged = sections
                damaged.info = bytes
                let reader = DebugInfoBytes(sections: damaged)
                for offset in stride(from: 0, to: bytes.count, by: 3) {
                    if let unit = reader.unit(containing: offset) {
                        #expect(unit.header.end <= bytes.count)
                    }
                    if reader.names(at: offset) != nil { answered += 1 }
                    _ = reader.nameOrigin(at: offset)
                }
            }
        }
        // The undamaged prefixes still name DIEs.
        #expect(answered > 0)
        // A prefix that cuts the first unit short leaves it unread.
        Array(info.prefix(40)).withUnsafeBytes { bytes in
            var cut = sections
            cut.info = bytes
            #expect(DebugInfoBytes(sections: cut).unit(containing: 11) == nil)
        }
    }
}
