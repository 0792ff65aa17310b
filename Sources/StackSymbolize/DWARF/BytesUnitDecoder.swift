/// `UnitDecoder` over the stored section bytes: `UnitRangeReader` for the unit ranges,
/// `ByteScopeWalk` for the tree, `LineProgram` for the lines and `DebugInfoBytes` for the names.
/// It declines what these readers are not sure of, and says why.
///
/// A class, owned by one `DwarfReader` (one thread): the readers' caches fill as units are read.
final class BytesUnitDecoder: UnitDecoder {
    /// `.debug_info` and what its DIEs refer to (nil when `.debug_info` or `.debug_abbrev` is
    /// compressed or absent: every question is then declined).
    let info: DebugInfoBytes?
    private var rangeReader: UnitRangeReader?
    /// `.debug_line`, `.debug_str` and `.debug_line_str` as stored, for the line programs.
    private let lineSection: UnsafeRawBufferPointer?
    private let strings: UnsafeRawBufferPointer?
    private let lineStrings: UnsafeRawBufferPointer?
    /// The tree walk's buffers, reused from unit to unit.
    private var scopeWalkStorage = ScopeWalkStorage()
    /// Asked for the code ranges of DIEs whose ranges the bytes do not give (`DIECursor.codeRanges`).
    /// `DwarfReader` swaps this handle when it drops libdw's caches.
    var libdwForCodeRanges: DwarfHandle?

    init(elf: ElfHandle, libdw: DwarfHandle?) {
        let sections = ElfSectionLookup.debugInfoSections(in: elf)
        info = sections.map { DebugInfoBytes(sections: $0) }
        rangeReader = sections.map { UnitRangeReader(sections: $0) }
        lineSection = ElfSectionLookup.rawSection(named: ".debug_line", in: elf)
        strings = ElfSectionLookup.rawSection(named: ".debug_str", in: elf)
        lineStrings = ElfSectionLookup.rawSection(named: ".debug_line_str", in: elf)
        libdwForCodeRanges = libdw
    }

    private static let sectionsUnreadable = DecodeRefusal(
        reason: "no .debug_info and .debug_abbrev stored uncompressed (GNU .zdebug sections, say), so libdw reads every unit")

    private static func unitRefusal(_ unit: UnitLocation, _ what: String) -> DecodeRefusal {
        DecodeRefusal(reason: "the unit with its DIE at offset \(unit.dieOffset) of .debug_info: \(what)")
    }

    func unitRanges(_ unit: UnitLocation) -> Result<[AddressRange], DecodeRefusal> {
        guard rangeReader != nil else { return .failure(Self.sectionsUnreadable) }
        guard let start = unit.start else { return .failure(Self.unitRefusal(unit, "its header was not found")) }
        switch rangeReader!.ranges(unitStart: Int(start), dieOffset: Int(unit.dieOffset)) {
        case .unit(let ranges): return .success(ranges)
        case .unknown:
            return .failure(
                Self.unitRefusal(unit, "its unit DIE holds a form, attribute or range list this reader does not read (split DWARF?)"))
        }
    }

    /// The unit as the byte readers see it, or why they cannot.
    private func bytesUnit(_ unit: UnitLocation) -> Result<UnitBytes, DecodeRefusal> {
        guard let info else { return .failure(Self.sectionsUnreadable) }
        guard let found = info.unit(withDIEAt: Int(unit.dieOffset)) else {
            return .failure(Self.unitRefusal(unit, "its header, abbreviations or unit DIE cannot be read here"))
        }
        return .success(found)
    }

    func readScopes(_ unit: UnitLocation, wanted: [UInt64]?, into decoded: inout DecodedUnit) -> Result<Void, DecodeRefusal> {
        let found: UnitBytes
        switch bytesUnit(unit) {
        case .success(let unitBytes): found = unitBytes
        case .failure(let refusal): return .failure(refusal)
        }
        var cursor = DIECursor(unit: found, sections: info!.sections)
        let walked = ByteScopeWalk.read(
            cursor: &cursor, unitDIEOffset: found.dieOffset, libdw: libdwForCodeRanges, wanted: wanted, storage: &scopeWalkStorage,
            into: &decoded)
        return walked ? .success(()) : .failure(Self.unitRefusal(unit, "its DIE tree holds a form or abbreviation this reader does not read"))
    }

    func readLines(_ unit: UnitLocation, wanted: [UInt64]?, into decoded: inout DecodedUnit) -> Result<Void, DecodeRefusal> {
        let found: UnitBytes
        switch bytesUnit(unit) {
        case .success(let unitBytes): found = unitBytes
        case .failure(let refusal): return .failure(refusal)
        }
        // Without DW_AT_stmt_list a unit has no line table (libdw finds none either).
        guard let offset = found.statementList else { return .success(()) }
        guard let section = lineSection else { return .failure(Self.unitRefusal(unit, ".debug_line is compressed or absent")) }
        guard offset < UInt64(section.count),
            let program = LineProgram(
                section, at: Int(offset), addressSize: found.header.addressSize, compilationDirectory: found.compilationDirectory,
                strings: strings, lineStrings: lineStrings)
        else {
            return .failure(Self.unitRefusal(unit, "its line program at offset \(offset) of .debug_line cannot be read here"))
        }
        LineTableReader.read(program: program, compDir: found.compilationDirectory, wanted: wanted, into: &decoded)
        return .success(())
    }

    func names(atDIE offset: UInt64) -> Result<DIENames, DecodeRefusal> {
        guard let info else { return .failure(Self.sectionsUnreadable) }
        guard let names = info.names(at: Int(offset)) else { return .failure(Self.nameRefusal(offset)) }
        return .success(names)
    }

    func nameOrigin(atDIE offset: UInt64) -> Result<UInt64?, DecodeRefusal> {
        guard let info else { return .failure(Self.sectionsUnreadable) }
        guard let origin = info.nameOrigin(at: Int(offset)) else { return .failure(Self.nameRefusal(offset)) }
        return .success(origin)
    }

    private static func nameRefusal(_ offset: UInt64) -> DecodeRefusal {
        DecodeRefusal(
            reason: "the DIE at offset \(offset) of .debug_info: a name form, an indexed string or a reference this reader does not read")
    }
}

@available(*, unavailable) extension BytesUnitDecoder: Sendable {}
