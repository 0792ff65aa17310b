import Foundation
import Testing

@testable import StackSymbolize

/// The DIE walk over the section bytes (`DIECursor`) must give the tree libdw's own walk gives:
/// same functions, inlined calls, ranges, call sites, and the same order.
@Suite struct DIECursorTests {
    /// Every field of a decoded unit's function tree, as text, for one comparison.
    static func tree(_ unit: DecodedUnit) -> [String] {
        unit.nodes.map { node in
            let ranges = unit.nodeRanges[Int(node.rangeStart)..<Int(node.rangeStart + node.rangeCount)]
                .map { "\(String($0.low, radix: 16))-\(String($0.high, radix: 16))" }.joined(separator: ",")
            return "\(node.dieOffset) parent \(node.parent) first \(node.firstChild) next \(node.nextSibling) "
                + "inlined \(node.isInlined) call \(node.callFile):\(node.callLine) ranges \(ranges)"
        } + unit.topLevel.map { "top \(String($0.low, radix: 16))-\(String($0.high, radix: 16)) \($0.node)" }
    }

    static func debugImages() throws -> [(String, DebugImage)] {
        let scan = DebugFileCatalog.scan([try Fixtures.path("builds")])
        #expect(scan.problems.isEmpty, "\(scan.problems)")
        return try scan.files.map { ("\($0.path) \($0.arch)", try DebugFileCatalog.open($0)) }
    }

    @Test func bytesWalkEqualsLibdwWalkOnEveryFixtureUnit() throws {
        let images = try Self.debugImages()
        try #require(!images.isEmpty)
        var functions = 0
        var inlined = 0
        for (name, image) in images {
            try #require(image.unitCount > 0, "\(name) has no units")
            for index in 0..<image.unitCount {
                let fromBytes = image.wholeUnit(index)
                let fromLibdw = image.wholeUnitWalkedByLibdw(index)
                #expect(Self.tree(fromBytes) == Self.tree(fromLibdw), "\(name) unit \(index)")
                functions += fromBytes.nodes.count
                inlined += fromBytes.nodes.filter(\.isInlined).count
            }
            #expect(image.unitsWalkedByLibdw == 0, "\(name): the bytes walk gave up on \(image.unitsWalkedByLibdw) units")
        }
        // The comparison means something only if there were trees to compare.
        #expect(functions > 50)
        #expect(inlined > 5)
    }

    @Test func abbreviationsAndForms() throws {
        // Abbreviation 1: DW_TAG_subprogram, children, DW_AT_name/DW_FORM_string,
        // DW_AT_low_pc/DW_FORM_addr, DW_AT_sibling/DW_FORM_ref4. Abbreviation 2: DW_TAG_variable, no
        // children, DW_AT_name/DW_FORM_strx1, DW_AT_const_value/DW_FORM_implicit_const (-3).
        let abbrev: [UInt8] = [
            1, 0x2e, 1, 0x03, 0x08, 0x11, 0x01, 0x01, 0x13, 0, 0,
            2, 0x34, 0, 0x03, 0x25, 0x1c, 0x21, 0x7d, 0, 0,
            0,
        ]
        try abbrev.withUnsafeBytes { bytes in
            let table = try #require(AbbreviationTable(bytes, at: 0))
            #expect(table.entries[1].tag == 0x2e && table.entries[1].hasChildren && table.entries[1].mayHaveCode)
            #expect(table.entries[2].tag == 0x34 && !table.entries[2].hasChildren && !table.entries[2].mayHaveCode)
        }
        // A truncated table (code, tag, no children byte) is refused, not read past its end.
        [UInt8]([1, 0x2e]).withUnsafeBytes { bytes in
            #expect(AbbreviationTable(bytes, at: 0) == nil)
        }
        // A unit header claiming more bytes than there are is refused.
        let header: [UInt8] = [0xff, 0x00, 0x00, 0x00, 5, 0, 1, 8, 0, 0, 0, 0]
        header.withUnsafeBytes { info in
            abbrev.withUnsafeBytes { abbrevBytes in
                #expect(DIECursor(info: info, abbrev: abbrevBytes, unitStart: 0) == nil)
            }
        }
    }
}
