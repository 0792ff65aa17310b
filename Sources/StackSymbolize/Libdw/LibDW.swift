internal import CElfutils
import Foundation

// Thin wrappers over libdw (this file) and libelf (`LibELF.swift`), the only two files that talk to
// elfutils. What they hand out is a Swift value (numbers, ranges, names) or `DwarfHandle`, which
// owns libdw's handle. No other file reads or writes libdw's structures: the byte walk hands its
// DIEs back through `DwarfDIE.sameUnitDIE(atByte:)`.

/// libdw's text for its last error.
func libdwMessage() -> String {
    String(cString: dwarf_errmsg(-1))
}

/// DWARF tags of the DIEs the scope walkers look at.
enum DWARFTag {
    static let compileUnit = UInt32(DW_TAG_compile_unit)
    static let partialUnit = UInt32(DW_TAG_partial_unit)
    static let skeletonUnit = UInt32(DW_TAG_skeleton_unit)
    static let subprogram = UInt32(DW_TAG_subprogram)
    static let inlinedSubroutine = UInt32(DW_TAG_inlined_subroutine)
    /// True for DIEs that hold no code themselves but may hold functions and inlined calls.
    static func isContainer(_ tag: UInt32) -> Bool {
        switch tag {
        case UInt32(DW_TAG_lexical_block), UInt32(DW_TAG_namespace), UInt32(DW_TAG_module), UInt32(DW_TAG_structure_type),
            UInt32(DW_TAG_class_type), UInt32(DW_TAG_union_type), UInt32(DW_TAG_try_block), UInt32(DW_TAG_catch_block):
            return true
        default:
            return false
        }
    }
}

/// What `dwarf_next_unit` found at an offset of `.debug_info`.
enum UnitHeaderStep {
    /// A unit: where the next one starts and the size of this one's header.
    case unit(next: UInt64, headerSize: Int)
    /// No more units.
    case end
    /// A header libdw cannot read.
    case unreadable
}

/// libdw's handle on one file's DWARF. Not thread-safe: libdw's lazy caches are unsynchronized.
final class DwarfHandle {
    private let dwarf: OpaquePointer
    /// Kept so libelf's handle outlives libdw's (`dwarf_end` runs before `elf_end`).
    private let elf: ElfHandle

    /// libdw's handle on the file's DWARF, or nil when libdw refuses it (or there is none).
    init?(elf: ElfHandle) {
        guard let dwarf = dwarf_begin_elf(elf.elf, DWARF_C_READ, nil) else { return nil }
        self.dwarf = dwarf
        self.elf = elf
    }

    deinit { dwarf_end(dwarf) }

    /// The unit header at `offset` of `.debug_info`.
    func unitHeader(at offset: UInt64) -> UnitHeaderStep {
        var next: Dwarf_Off = 0
        var headerSize = 0
        var version: Dwarf_Half = 0
        var abbrevOffset: Dwarf_Off = 0
        var addressSize: UInt8 = 0
        var offsetSize: UInt8 = 0
        // No type-signature pointer: given one, libdw walks `.debug_types` instead.
        let status = dwarf_next_unit(dwarf, offset, &next, &headerSize, &version, &abbrevOffset, &addressSize, &offsetSize, nil, nil)
        if status > 0 { return .end }
        if status < 0 { return .unreadable }
        return .unit(next: next, headerSize: headerSize)
    }

    /// The DIE at `offset` of `.debug_info`.
    func die(at offset: UInt64) -> DwarfDIE? {
        var die = Dwarf_Die()
        guard dwarf_offdie(dwarf, offset, &die) != nil else { return nil }
        return DwarfDIE(raw: die)
    }
}

@available(*, unavailable) extension DwarfHandle: Sendable {}

/// A DIE as libdw hands it out: a copy of its `Dwarf_Die`, valid while its `DwarfHandle` lives.
/// Methods are `mutating` because libdw caches the DIE's abbreviation in it on first use.
struct DwarfDIE {
    fileprivate var raw: Dwarf_Die

    mutating func tag() -> UInt32 {
        let tag = dwarf_tag(&raw)
        return tag < 0 ? 0 : UInt32(tag)
    }

    /// The DIE's offset in `.debug_info`.
    mutating func offset() -> UInt64 { dwarf_dieoffset(&raw) }

    /// The DIE's offset from the start of its unit.
    mutating func offsetInUnit() -> UInt64 { dwarf_cuoffset(&raw) }

    /// Where libdw reads the DIE's bytes.
    var bytes: UnsafeRawPointer? { UnsafeRawPointer(raw.addr) }

    /// The DIE of the same unit whose bytes start at `address` (inside the section libdw reads).
    /// This is how the byte walk (`ByteScopeWalk`) hands a DIE it found back to libdw: the one
    /// place a `Dwarf_Die` is filled in by hand.
    func sameUnitDIE(atByte address: UnsafeRawPointer) -> DwarfDIE {
        var die = raw
        die.addr = UnsafeMutableRawPointer(mutating: address)
        die.abbrev = nil
        return DwarfDIE(raw: die)
    }

    mutating func firstChild() -> DwarfDIE? {
        var child = Dwarf_Die()
        return dwarf_child(&raw, &child) == 0 ? DwarfDIE(raw: child) : nil
    }

    mutating func nextSibling() -> DwarfDIE? {
        var sibling = Dwarf_Die()
        return dwarf_siblingof(&raw, &sibling) == 0 ? DwarfDIE(raw: sibling) : nil
    }

    /// The DIE's address ranges (`DW_AT_ranges` or low/high pc), empty ones left out.
    mutating func ranges() -> [AddressRange] {
        var result: [AddressRange] = []
        appendRanges(to: &result)
        return result
    }

    /// As `ranges()`, appended to `result` (no array of its own per DIE).
    mutating func appendRanges(to result: inout [AddressRange]) {
        var base: Dwarf_Addr = 0
        var start: Dwarf_Addr = 0
        var end: Dwarf_Addr = 0
        var offset = dwarf_ranges(&raw, 0, &base, &start, &end)
        while offset > 0 {
            if end > start { result.append(AddressRange(low: start, high: end)) }
            offset = dwarf_ranges(&raw, offset, &base, &start, &end)
        }
    }

    /// Where an inlined call was made: `DW_AT_call_file` (an index into the unit's file table, -1
    /// when absent) and `DW_AT_call_line` (0 when absent).
    mutating func callSite() -> (file: Int32, line: Int32) {
        var attribute = Dwarf_Attribute()
        var value: Dwarf_Word = 0
        var file: Int32 = -1
        var line: Int32 = 0
        if dwarf_attr(&raw, UInt32(DW_AT_call_file), &attribute) != nil, dwarf_formudata(&attribute, &value) == 0 {
            file = Int32(truncatingIfNeeded: value)
        }
        if dwarf_attr(&raw, UInt32(DW_AT_call_line), &attribute) != nil, dwarf_formudata(&attribute, &value) == 0 {
            line = Int32(truncatingIfNeeded: value)
        }
        return (file, line)
    }

    /// The DIE an inlined call's names come from: its `DW_AT_abstract_origin`, when it has no
    /// name of its own (then `names()` of both are the same, read through the same chain).
    mutating func nameOrigin() -> UInt64? {
        guard dwarf_hasattr(&raw, UInt32(DW_AT_linkage_name)) == 0, dwarf_hasattr(&raw, UInt32(DW_AT_MIPS_linkage_name)) == 0,
            dwarf_hasattr(&raw, UInt32(DW_AT_name)) == 0
        else { return nil }
        var attribute = Dwarf_Attribute()
        var origin = Dwarf_Die()
        guard dwarf_attr(&raw, UInt32(DW_AT_abstract_origin), &attribute) != nil, dwarf_formref_die(&attribute, &origin) != nil
        else { return nil }
        return dwarf_dieoffset(&origin)
    }

    /// The linkage name (through abstract origin and specification), else `DW_AT_name`.
    mutating func names() -> (linkage: String?, plain: String?) {
        var attribute = Dwarf_Attribute()
        // Two calls rather than a loop over an array of the two: the array was allocated per name.
        if dwarf_attr_integrate(&raw, UInt32(DW_AT_linkage_name), &attribute) != nil, let string = dwarf_formstring(&attribute) {
            return (String(cString: string), nil)
        }
        if dwarf_attr_integrate(&raw, UInt32(DW_AT_MIPS_linkage_name), &attribute) != nil, let string = dwarf_formstring(&attribute) {
            return (String(cString: string), nil)
        }
        if let plain = dwarf_diename(&raw) { return (nil, String(cString: plain)) }
        return (nil, nil)
    }

    /// The unit's `DW_AT_comp_dir` as bytes, or nil when absent or empty.
    mutating func compilationDirectory() -> [UInt8]? {
        var attribute = Dwarf_Attribute()
        guard dwarf_attr_integrate(&raw, UInt32(DW_AT_comp_dir), &attribute) != nil, let text = dwarf_formstring(&attribute)
        else { return nil }
        let bytes = Array(UnsafeRawBufferPointer(start: text, count: strlen(text)))
        return bytes.isEmpty ? nil : bytes
    }

    /// `DW_AT_stmt_list`: where the unit's line program starts in `.debug_line` (for a unit DIE).
    mutating func statementListOffset() -> UInt64? {
        var attribute = Dwarf_Attribute()
        var value: Dwarf_Word = 0
        guard dwarf_attr(&raw, UInt32(DW_AT_stmt_list), &attribute) != nil, dwarf_formudata(&attribute, &value) == 0 else { return nil }
        return value
    }

    /// The unit's line table (for a unit DIE).
    mutating func lineTable() -> DwarfLineTable? {
        var lines: OpaquePointer? = nil
        var count = 0
        guard dwarf_getsrclines(&raw, &lines, &count) == 0, let lines else { return nil }
        return DwarfLineTable(lines: lines, count: count)
    }

    /// The unit's file table (for a unit DIE), which `DW_AT_call_file` indexes.
    mutating func fileTable() -> DwarfFileTable? {
        var files: OpaquePointer? = nil
        var count = 0
        guard dwarf_getsrcfiles(&raw, &files, &count) == 0, let files else { return nil }
        return DwarfFileTable(files: files, count: count)
    }
}

/// One row of a line table.
struct DwarfLineRow {
    var address: UInt64
    var line: Int32
    var endsSequence: Bool
    /// The file name as libdw joined it (owned by libdw), nil when it has none.
    var file: UnsafePointer<CChar>?
}

/// A unit's line table, owned by libdw.
struct DwarfLineTable {
    fileprivate let lines: OpaquePointer
    let count: Int

    /// The address of row `index`, 0 when the row cannot be read.
    func address(at index: Int) -> UInt64 {
        var value: Dwarf_Addr = 0
        if let line = dwarf_onesrcline(lines, index) { dwarf_lineaddr(line, &value) }
        return value
    }

    func row(at index: Int) -> DwarfLineRow? {
        guard let line = dwarf_onesrcline(lines, index) else { return nil }
        var address: Dwarf_Addr = 0
        var number: Int32 = 0
        var isEnd = false
        dwarf_lineaddr(line, &address)
        dwarf_lineno(line, &number)
        dwarf_lineendsequence(line, &isEnd)
        return DwarfLineRow(address: address, line: number, endsSequence: isEnd, file: isEnd ? nil : dwarf_linesrc(line, nil, nil))
    }
}

/// A unit's file table, owned by libdw.
struct DwarfFileTable {
    fileprivate let files: OpaquePointer
    let count: Int

    /// The file name at `index` as libdw joined it, nil when it has none.
    func name(at index: Int) -> UnsafePointer<CChar>? { dwarf_filesrc(files, index, nil, nil) }
}
