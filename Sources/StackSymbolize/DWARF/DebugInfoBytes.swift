import Foundation

// Units, unit DIEs and function names read over the stored `.debug_info` bytes, without libdw.
//
// Why: before libdw hands out any DIE of a unit (`dwarf_offdie`), it makes a `Dwarf_CU` for every
// unit before it and reads each one's abbreviation table from its start (to look for split DWARF
// attributes on its unit DIE). swift-help's 556 units share 144 tables; a cold batch of 10,000
// addresses spent 40 of its 300 million instructions there, only to read each touched unit's
// `DW_AT_stmt_list` and `DW_AT_comp_dir`, a few `DW_AT_ranges` and the names of its functions.
// Here each table is decoded once and a unit costs its header and its unit DIE.
//
// What this reader is not sure of (an unknown form, an indexed string without its base, a
// reference to another file, bytes that do not parse) it answers nil, and the caller asks libdw,
// which gives what it always gave. The tests compare both on every unit and every function of the
// fixtures and the toolchain's binaries.

/// The sections the byte readers read, as stored (none compressed).
struct DebugInfoSections {
    var info: UnsafeRawBufferPointer
    var abbrev: UnsafeRawBufferPointer
    /// `.debug_str`, `.debug_line_str` and `.debug_str_offsets`, when present.
    var strings: UnsafeRawBufferPointer?
    var lineStrings: UnsafeRawBufferPointer?
    var stringOffsets: UnsafeRawBufferPointer?
    var lists: RangeListSections
}

/// One unit as the byte readers see it: its header, its decoded abbreviations, and what its unit
/// DIE says about where its lines are and how its attributes are to be read. A class: every DIE
/// read refers to its unit, and a copy of this many arrays per DIE was a third of an index build.
final class UnitBytes {
    /// Where the unit's header starts in `.debug_info`.
    var start: Int
    var header: DWARFUnitHeader
    var abbreviations: AbbreviationTable
    /// `DW_AT_stmt_list`: where its line program starts in `.debug_line` (nil: it has none).
    var statementList: UInt64?
    /// `DW_AT_comp_dir`, nil when absent or empty.
    var compilationDirectory: [UInt8]?
    /// What its `DW_AT_ranges` lists need; nil when its base address cannot be read here (libdw
    /// then reads those lists).
    var lists: RangeListUnit?
    /// `DW_AT_str_offsets_base` (DWARF 5), the base of `DW_FORM_strx*` strings.
    var stringOffsetsBase: UInt64?

    /// The DIE offset of the unit DIE.
    var dieOffset: Int { header.dieOffset }

    init(start: Int, header: DWARFUnitHeader, abbreviations: AbbreviationTable) {
        self.start = start
        self.header = header
        self.abbreviations = abbreviations
    }
}

/// A DIE's names as `DwarfDIE.names()` gives them.
typealias DIENames = (linkage: String?, plain: String?)

/// A class, owned by one `DwarfReader` (one thread): its caches fill as units are read.
final class DebugInfoBytes {
    let sections: DebugInfoSections
    /// Header offsets of the units, in order, and where each ends.
    let starts: [Int]
    let ends: [Int]
    /// Decoded abbreviation tables, by what decoding and compiling them depends on (`tableKey`).
    /// Keyed by a plain integer: a dictionary of a key type of its own costs a search of every
    /// conformance in the program the first time (a third of a million instructions at start-up).
    var tables: [Int: AbbreviationTable] = [:]
    /// Units read so far, by their index in `starts` (nil: not read yet or not readable here).
    var units: [UnitBytes?]
    var unitWasRead: [Bool]

    /// The table's offset, and whether addresses, offsets and `DW_FORM_ref_addr` operands are 8
    /// bytes (else 4): what decoding and compiling a table depends on.
    static func tableKey(offset: Int, addressSize: Int, offsetSize: Int, refAddressSize: Int) -> Int {
        offset << 3 | (addressSize == 8 ? 4 : 0) | (offsetSize == 8 ? 2 : 0) | (refAddressSize == 8 ? 1 : 0)
    }

    init(sections: DebugInfoSections) {
        self.sections = sections
        // The unit headers' lengths alone chain the units: a walk of a few bytes per unit. A
        // length that does not fit ends the list (libdw reads nothing past it either).
        var starts: [Int] = []
        var ends: [Int] = []
        var offset = 0
        while offset < sections.info.count {
            var reader = ByteReader(sections.info, at: offset)
            guard var length = reader.fixed(4) else { break }
            if length == 0xffff_ffff {
                guard let long = reader.fixed(8) else { break }
                length = long
            } else if length >= 0xffff_fff0 {
                break
            }
            guard length <= UInt64(sections.info.count - reader.position) else { break }
            let end = reader.position + Int(length)
            starts.append(offset)
            ends.append(end)
            offset = end
        }
        self.starts = starts
        self.ends = ends
        units = Array(repeating: nil, count: starts.count)
        unitWasRead = Array(repeating: false, count: starts.count)
    }

    /// The index in `starts` of the unit holding `offset` of `.debug_info`.
    func unitIndex(containing offset: Int) -> Int? {
        // Most reads are in the unit read last.
        if lastUnit < starts.count, starts[lastUnit] <= offset, offset < ends[lastUnit] { return lastUnit }
        var low = 0
        var high = starts.count
        while low < high {
            let middle = (low + high) / 2
            if starts[middle] <= offset { low = middle + 1 } else { high = middle }
        }
        guard low > 0, offset < ends[low - 1] else { return nil }
        lastUnit = low - 1
        return low - 1
    }
    var lastUnit = 0

    /// True when `offset` of `.debug_info` lies inside a unit.
    func isInsideUnit(_ offset: Int) -> Bool { unitIndex(containing: offset) != nil }

    /// The unit whose DIE is at `dieOffset`, or nil when it cannot be read here.
    func unit(withDIEAt dieOffset: Int) -> UnitBytes? {
        guard let unit = unit(containing: dieOffset), unit.dieOffset == dieOffset else { return nil }
        return unit
    }

    /// The unit holding `offset`, or nil when it cannot be read here.
    func unit(containing offset: Int) -> UnitBytes? {
        guard let index = unitIndex(containing: offset) else { return nil }
        if unitWasRead[index] { return units[index] }
        let unit = readUnit(at: starts[index])
        units[index] = unit
        unitWasRead[index] = true
        return unit
    }

    func readUnit(at start: Int) -> UnitBytes? {
        guard let header = DWARFUnitHeader(sections.info, at: start), header.abbrevOffset < sections.abbrev.count else { return nil }
        let refAddressSize = header.version == 2 ? header.addressSize : header.offsetSize
        let key = Self.tableKey(
            offset: header.abbrevOffset, addressSize: header.addressSize, offsetSize: header.offsetSize, refAddressSize: refAddressSize)
        let table: AbbreviationTable
        if let known = tables[key] {
            table = known
        } else {
            guard var decoded = AbbreviationTable(sections.abbrev, at: header.abbrevOffset) else { return nil }
            decoded.compile(addressSize: header.addressSize, offsetSize: header.offsetSize, refAddressSize: refAddressSize)
            tables[key] = decoded
            table = decoded
        }
        let unit = UnitBytes(start: start, header: header, abbreviations: table)
        return readUnitDIE(into: unit) ? unit : nil
    }

    /// Reads the unit DIE's attributes into `unit`; false for a unit this reader leaves to libdw
    /// (split DWARF, an unknown form, bytes that do not parse).
    func readUnitDIE(into unit: UnitBytes) -> Bool {
        let header = unit.header
        var reader = ByteReader(sections.info, at: header.dieOffset)
        guard let code = reader.uleb(), code > 0, code < UInt64(unit.abbreviations.entries.count) else { return false }
        let entry = unit.abbreviations.entries[Int(code)]
        guard entry.isValid, entry.tag == DWARFTag.compileUnit || entry.tag == DWARFTag.partialUnit else { return false }
        var lowPC: (form: UInt64, value: UInt64)?
        var entryPC: (form: UInt64, value: UInt64)?
        var compilationDirectory: (form: UInt64, value: UInt64, position: Int)?
        var addressBase: UInt64?
        var rangeListsBase: UInt64?
        for spec in Int(entry.specStart)..<Int(entry.specEnd) {
            let name = UInt64(unit.abbreviations.specNames[spec])
            let form = UInt64(unit.abbreviations.specForms[spec])
            // Indirect forms and implicit constants (whose values the decoded table does not keep)
            // are libdw's.
            guard form != DWARFForm.indirect, form != DWARFForm.implicitConst || !Self.unitAttributes.contains(name) else { return false }
            let position = reader.position
            guard let value = DWARFForm.read(form, from: &reader, header, implicitConstant: 0) else { return false }
            // libdw's `dwarf_attr` takes an attribute's first occurrence.
            switch name {
            case DWARFAttribute.statementList:
                guard unit.statementList == nil else { break }
                // `dwarf_formudata`: an offset or a constant.
                guard form == DWARFForm.secOffset || DWARFForm.isConstant(form) else { return false }
                unit.statementList = value
            case DWARFAttribute.compilationDirectory:
                if compilationDirectory == nil { compilationDirectory = (form, value, position) }
            case DWARFAttribute.lowPC:
                if lowPC == nil { lowPC = (form, value) }
            case DWARFAttribute.entryPC:
                if entryPC == nil { entryPC = (form, value) }
            case DWARFAttribute.addrBase:
                if addressBase == nil { addressBase = value }
            case DWARFAttribute.rnglistsBase:
                if rangeListsBase == nil { rangeListsBase = value }
            case DWARFAttribute.stringOffsetsBase:
                if unit.stringOffsetsBase == nil { unit.stringOffsetsBase = value }
            case DWARFAttribute.dwoName, DWARFAttribute.gnuDWOName, DWARFAttribute.gnuDWOID, DWARFAttribute.gnuRangesBase,
                DWARFAttribute.gnuAddrBase:
                return false  // split DWARF: libdw knows its bases
            default:
                break
            }
        }
        if let (form, value, position) = compilationDirectory {
            guard let bytes = string(form: form, value: value, position: position, in: unit) else { return false }
            unit.compilationDirectory = bytes.isEmpty ? nil : Array(bytes)
        }
        // The base of range lists, as libdw's `__libdw_cu_base_address` finds it: the low pc, else
        // the entry pc, else 0. One that cannot be read here leaves the lists to libdw.
        var lists = RangeListUnit(
            version: header.version, addressSize: header.addressSize, offsetSize: header.offsetSize, base: 0, addressBase: addressBase,
            rangeListsBase: rangeListsBase)
        var base: UInt64? = 0
        if let pc = lowPC ?? entryPC { base = address(form: pc.form, value: pc.value, lists: lists) }
        if let base {
            lists.base = base
            unit.lists = lists
        }
        return true
    }

    static let unitAttributes: Set<UInt64> = [
        DWARFAttribute.statementList, DWARFAttribute.compilationDirectory, DWARFAttribute.lowPC, DWARFAttribute.entryPC,
        DWARFAttribute.addrBase, DWARFAttribute.rnglistsBase, DWARFAttribute.stringOffsetsBase,
    ]

    /// An address attribute's value: the address itself or an entry of `.debug_addr`.
    func address(form: UInt64, value: UInt64, lists: RangeListUnit) -> UInt64? {
        switch form {
        case DWARFForm.addr: return value
        case DWARFForm.addrx, DWARFForm.addrx1, DWARFForm.addrx2, DWARFForm.addrx3, DWARFForm.addrx4:
            return RangeLists.indexedAddress(value, unit: lists, sections: sections.lists)
        default: return nil
        }
    }

    /// The bytes of a string attribute (without its NUL), as `dwarf_formstring` finds them; nil
    /// for a form read elsewhere or a string that does not end inside its section.
    func string(form: UInt64, value: UInt64, position: Int, in unit: UnitBytes) -> UnsafeRawBufferPointer? {
        switch form {
        case DWARFForm.string:
            return Self.terminated(sections.info, at: UInt64(position))
        case DWARFForm.strp:
            return sections.strings.flatMap { Self.terminated($0, at: value) }
        case DWARFForm.lineStrp:
            return sections.lineStrings.flatMap { Self.terminated($0, at: value) }
        case DWARFForm.strx, DWARFForm.strx1, DWARFForm.strx2, DWARFForm.strx3, DWARFForm.strx4:
            guard let offsets = sections.stringOffsets, let base = unit.stringOffsetsBase, let strings = sections.strings else { return nil }
            let size = UInt64(unit.header.offsetSize)
            let (entry, overflow) = value.multipliedReportingOverflow(by: size)
            guard !overflow, base <= UInt64(offsets.count), entry <= UInt64(offsets.count) - base else { return nil }
            var reader = ByteReader(offsets, at: Int(base + entry))
            guard let offset = reader.fixed(unit.header.offsetSize) else { return nil }
            return Self.terminated(strings, at: offset)
        default:
            return nil
        }
    }

    static func terminated(_ section: UnsafeRawBufferPointer, at offset: UInt64) -> UnsafeRawBufferPointer? {
        guard offset < UInt64(section.count), let base = section.baseAddress else { return nil }
        let start = base + Int(offset)
        guard let end = memchr(start, 0, section.count - Int(offset)) else { return nil }
        return UnsafeRawBufferPointer(start: start, count: UnsafeRawPointer(end) - start)
    }
}

// MARK: - Names
