import Foundation
import Testing

@testable import StackSymbolize

/// The unit map read over the section bytes (`UnitRangeReader`) must be libdw's, unit for unit, on
/// real files: the toolchain's Swift binaries (DWARF 4 and 5 units, abbreviation tables shared by
/// hundreds of units, skeleton units for Clang modules), Apple-built dSYMs (DWARF 2 to 4) and the
/// fixture app's dSYMs.
@Suite struct UnitRangeReaderTests {
    static var toolchainBinaries: [String] {
        ["swift-help", "swift-driver", "swift-format", "docc"].map { "/opt/swift/usr/bin/" + $0 }
            .filter { FileManager.default.fileExists(atPath: $0) }
    }

    static func compare(_ image: DebugImage, _ name: String) -> Int {
        let (bytes, libdw, leftToLibdw) = image.unitRangesBothWays()
        #expect(bytes.map(\.unitDIEOffset) == libdw.map(\.unitDIEOffset), "\(name)")
        #expect(bytes.map(\.ranges) == libdw.map(\.ranges), "\(name)")
        #expect(leftToLibdw == 0, "\(name): \(leftToLibdw) units left to libdw")
        return bytes.count
    }

    @Test(arguments: toolchainBinaries) func toolchainBinary(_ path: String) throws {
        let units = Self.compare(try DebugImage(elfPath: path), path)
        #expect(units > 100)
    }

    /// The unit map of disjoint ranges (made directly) must be the sweep's; overlapping ones go to
    /// the sweep.
    @Test func disjointRangesMakeTheSweepsMap() throws {
        for path in Self.toolchainBinaries {
            let (ranges, _, _) = try DebugImage(elfPath: path).unitRangesBothWays()
            #expect(UnitAddressMap(ranges) == UnitAddressMap(ranges, sweeping: true), "\(path)")
        }
        func units(_ ranges: [[(UInt64, UInt64)]]) -> [UnitRanges] {
            ranges.enumerated().map { UnitRanges(unitDIEOffset: UInt64($0) * 100, ranges: $1.map { AddressRange(low: $0.0, high: $0.1) }) }
        }
        // Meeting ranges of one unit join; of two units they stay apart; overlaps, empty ranges and
        // ranges at 0 as the sweep has them.
        let cases: [[[(UInt64, UInt64)]]] = [
            [[(0x10, 0x20), (0x20, 0x30)], [(0x30, 0x40)]],
            [[(0x10, 0x20)], [(0x18, 0x40)]],
            [[(0x10, 0x20), (0x20, 0x20)], [(0x40, 0x50)]],
            [[(0, 0x20), (0x50, 0x60)], [(0x20, 0x30), (0x60, 0x70)]],
        ]
        for ranges in cases {
            #expect(UnitAddressMap(units(ranges)) == UnitAddressMap(units(ranges), sweeping: true), "\(ranges)")
        }
        let joined = UnitAddressMap(units(cases[0]))
        #expect(joined.boundaries.sorted() == [0x10, 0x30, 0x30, 0x40])
    }

    @Test func everyFixtureSlice() throws {
        let scan = DebugFileCatalog.scan([try Fixtures.path("builds"), try Fixtures.path("real")])
        try #require(scan.files.count > 10)
        var units = 0
        for file in scan.files {
            units += Self.compare(try DebugFileCatalog.open(file), "\(file.path) \(file.arch)")
        }
        #expect(units > 50)
    }
}

/// The first lookups of a run pass over the stored symbol table instead of loading and sorting it
/// (`ELFSymbolTable.Scan`): they must find what the loaded table finds, at the edges of symbols too.
@Suite struct SymbolScanTests {
    @Test(arguments: ["/opt/swift/usr/bin/swift-help", "/opt/swift/usr/bin/swift-driver", "other/yui-linux"])
    func scanFindsWhatTheTableFinds(_ name: String) throws {
        let path = name.hasPrefix("/") ? name : try Fixtures.path(name)
        try #require(FileManager.default.fileExists(atPath: path))
        let reader = try DwarfReader(elfPath: path)
        let scan = try #require(reader.symbolScan())
        let image = try DebugImage(elfPath: path)
        let symbols = image.functionSymbols
        try #require(symbols.count > 3)
        var addresses: [UInt64] = [0, 1, UInt64.max]
        let step = max(1, symbols.count / 300)
        // A sample, and every symbol sharing its address with the next (C++ `C1`/`C2` aliases):
        // the scan must pick the one the sorted table ends with.
        let aliases = symbols.indices.dropLast().filter { symbols[$0].address == symbols[$0 + 1].address }.prefix(200)
        for symbol in (Array(stride(from: 0, to: symbols.count, by: step)) + aliases).map({ symbols[$0] }) {
            addresses += [symbol.address &- 1, symbol.address, symbol.address + symbol.size / 2, symbol.address + symbol.size &- 1]
            addresses += [symbol.address + symbol.size, symbol.address + symbol.size + 1]
        }
        var found = 0
        for address in addresses {
            let fromScan = scan.symbol(containing: address)
            let fromTable = image.symbolFromTable(containing: address)
            #expect(fromScan?.address == fromTable?.address, "\(name) 0x\(String(address, radix: 16))")
            #expect(fromScan?.size == fromTable?.size, "\(name) 0x\(String(address, radix: 16))")
            #expect(fromScan?.nameOffset == fromTable?.nameOffset, "\(name) 0x\(String(address, radix: 16))")
            if fromTable != nil { found += 1 }
        }
        #expect(found >= addresses.count / 2)
    }
}

/// Line programs read over the section bytes (`LineProgram`) must give the rows and file names
/// libdw gives, unit for unit: whole units here, the cold batches' subsets through the answers.
@Suite struct LineProgramTests {
    static func lines(_ unit: DecodedUnit) -> [String] {
        zip(zip(unit.lineAddress, unit.lineNumber), unit.lineFile).map { "\(String($0.0, radix: 16)) \($0.1) \($1)" }
            + unit.lineFileNames.map { "file \($0)" } + unit.callFileNames.map { "call \($0)" }
    }

    static func compare(_ image: DebugImage, _ name: String) -> Int {
        var rows = 0
        for index in 0..<image.unitCount {
            let fromBytes = image.wholeUnit(index)
            let fromLibdw = image.wholeUnitWalkedByLibdw(index)
            #expect(Self.lines(fromBytes) == Self.lines(fromLibdw), "\(name) unit \(index)")
            rows += fromBytes.lineAddress.count
        }
        return rows
    }

    @Test(arguments: UnitRangeReaderTests.toolchainBinaries.prefix(2))
    func toolchainBinary(_ path: String) throws {
        let image = try DebugImage(elfPath: path)
        #expect(Self.compare(image, path) > 10_000)
        // The Swift units (DWARF 4) and clang's (DWARF 5: 3 in swift-help, 92 in swift-driver) are
        // all read over the bytes.
        #expect(image.unitsLinedByLibdw == 0, "\(image.unitsLinedByLibdw) of \(image.unitCount) units left to libdw")
    }

    @Test func everyFixtureSlice() throws {
        let scan = DebugFileCatalog.scan([try Fixtures.path("builds"), try Fixtures.path("real")])
        var rows = 0
        var units = 0
        var leftToLibdw = 0
        for file in scan.files {
            let image = try DebugFileCatalog.open(file)
            rows += Self.compare(image, "\(file.path) \(file.arch)")
            units += image.unitCount
            leftToLibdw += image.unitsLinedByLibdw
        }
        #expect(rows > 1_000)
        #expect(leftToLibdw * 20 < units, "\(leftToLibdw) of \(units) units left to libdw")
    }
}
