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
