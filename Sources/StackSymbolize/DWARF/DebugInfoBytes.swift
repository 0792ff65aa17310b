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
    private let starts: [Int]
    private let ends: [Int]
    /// Decoded abbreviation tables, by what decoding and compiling them depends on (`tableKey`).
    /// Keyed by a plain integer: a dictionary of a key type of its own costs a search of every
    /// conformance in the program the first time (a third of a million instructions at start-up).
    private var tables: [Int: AbbreviationTable] = [:]
    /// Units read so far, by their index in `starts` (nil: not read yet or not readable here).
    private var units: [UnitBytes?]
    private var unitWasRead: [Bool]

    /// The table's offset, and whether addresses, offsets and `DW_FORM_ref_addr` operands are 8
    /// bytes (else 4): what decoding and compiling a table depends on.
    private static func tableKey(offset: Int, addressSize: Int, offsetSize: Int, refAddressSize: Int) -> Int {
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
    private func unitIndex(containing offset: Int) -> Int? {
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
    private var lastUnit = 0

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

    private func readUnit(at start: Int) -> UnitBytes? {
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
    private func readUnitDIE(into unit: UnitBytes) -> Bool {
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

    private static let unitAttributes: Set<UInt64> = [
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

    private static func terminated(_ section: UnsafeRawBufferPointer, at offset: UInt64) -> UnsafeRawBufferPointer? {
        guard offset < UInt64(section.count), let base = section.baseAddress else { return nil }
        let start = base + Int(offset)
        guard let end = memchr(start, 0, section.count - Int(offset)) else { return nil }
        return UnsafeRawBufferPointer(start: start, count: UnsafeRawPointer(end) - start)
    }
}

// MARK: - Names

extension DebugInfoBytes {
    /// The attributes a DIE's names come from, as found in its bytes: where each one's value is
    /// (its attribute's place in the abbreviation and its offset in `.debug_info`), -1 when absent.
    /// Small on purpose: a build reads half a million of these, and a copy of values per read was
    /// a tenth of its names' cost.
    private struct NameAttributes {
        struct Place {
            var spec: Int32 = -1
            var position: Int32 = -1
            var isPresent: Bool { spec >= 0 }
        }
        var unit: UnitBytes
        var linkage = Place()
        var mipsLinkage = Place()
        var name = Place()
        /// `DW_AT_abstract_origin`, else `DW_AT_specification`: the DIE `dwarf_attr_integrate`
        /// goes on to.
        var origin = Place()
        var specification = Place()

        init(unit: UnitBytes) { self.unit = unit }

        subscript(wanted: UInt64) -> Place {
            switch wanted {
            case DWARFAttribute.linkageName: linkage
            case DWARFAttribute.mipsLinkageName: mipsLinkage
            default: name
            }
        }
    }

    /// The form and value of an attribute found by `nameAttributes(at:)`.
    private func value(_ place: NameAttributes.Place, in unit: UnitBytes) -> (form: UInt64, value: UInt64)? {
        let form = UInt64(unit.abbreviations.specForms[Int(place.spec)])
        var reader = ByteReader(sections.info, at: Int(place.position))
        return DWARFForm.read(form, from: &reader, unit.header, implicitConstant: 0).map { (form, $0) }
    }

    private static func isNameAttribute(_ name: UInt64) -> Bool {
        switch name {
        case DWARFAttribute.linkageName, DWARFAttribute.mipsLinkageName, DWARFAttribute.name, DWARFAttribute.abstractOrigin,
            DWARFAttribute.specification:
            true
        default: false
        }
    }

    private func nameAttributes(at dieOffset: Int) -> NameAttributes? {
        guard let unit = unit(containing: dieOffset), dieOffset >= unit.dieOffset else { return nil }
        var reader = ByteReader(sections.info, at: dieOffset)
        let table = unit.abbreviations
        guard let code = reader.uleb(), code > 0, code < UInt64(table.entries.count), table.entries[Int(code)].isValid else { return nil }
        let entry = table.entries[Int(code)]
        var found = NameAttributes(unit: unit)
        for spec in Int(entry.specStart)..<Int(entry.specEnd) {
            let name = UInt64(table.specNames[spec])
            // The attributes not wanted, of fixed size, are stepped over by their size.
            let size = table.specSizes[spec]
            if size >= 0, !Self.isNameAttribute(name) {
                guard reader.skip(Int(size)) else { return nil }
                continue
            }
            let form = UInt64(table.specForms[spec])
            guard form != DWARFForm.indirect, form != DWARFForm.implicitConst || !Self.isNameAttribute(name) else { return nil }
            let position = reader.position
            guard position < Int(Int32.max), DWARFForm.read(form, from: &reader, unit.header, implicitConstant: 0) != nil else { return nil }
            let read = NameAttributes.Place(spec: Int32(spec), position: Int32(position))
            switch name {
            case DWARFAttribute.linkageName: if !found.linkage.isPresent { found.linkage = read }
            case DWARFAttribute.mipsLinkageName: if !found.mipsLinkage.isPresent { found.mipsLinkage = read }
            case DWARFAttribute.name: if !found.name.isPresent { found.name = read }
            case DWARFAttribute.abstractOrigin: if !found.origin.isPresent { found.origin = read }
            case DWARFAttribute.specification: if !found.specification.isPresent { found.specification = read }
            default: break
            }
        }
        return found
    }

    /// The DIE a reference attribute points to, as `dwarf_formref_die` finds it; nil for a form
    /// read elsewhere (a type signature, a supplementary file) or an offset outside its unit.
    private func referenced(_ reference: NameAttributes.Place, from unit: UnitBytes) -> Int? {
        guard let (form, value) = value(reference, in: unit) else { return nil }
        switch form {
        case DWARFForm.ref1, DWARFForm.ref2, DWARFForm.ref4, DWARFForm.ref8, DWARFForm.refUdata:
            // From the unit's header; libdw refuses one at or past the unit's end.
            guard value < UInt64(unit.header.end - unit.start) else { return nil }
            return unit.start + Int(value)
        case DWARFForm.refAddr:
            guard value < UInt64(sections.info.count), isInsideUnit(Int(value)) else { return nil }
            return Int(value)
        default:
            return nil
        }
    }

    private enum Integrated {
        case found(UnsafeRawBufferPointer)
        case absent
        case unknown
    }

    /// `dwarf_attr_integrate` then `dwarf_formstring`: the attribute on the DIE, else on the DIE
    /// its abstract origin (else its specification) points to, and so on for 17 DIEs at most.
    private func integrated(_ wanted: UInt64, from first: NameAttributes) -> Integrated {
        var attributes = first
        var step = 0
        while true {
            let place = attributes[wanted]
            if place.isPresent {
                guard let (form, value) = value(place, in: attributes.unit),
                    let bytes = string(form: form, value: value, position: Int(place.position), in: attributes.unit)
                else { return .unknown }
                return .found(bytes)
            }
            let reference = attributes.origin.isPresent ? attributes.origin : attributes.specification
            guard reference.isPresent else { return .absent }
            guard step < 16 else { return .absent }
            step += 1
            guard let next = referenced(reference, from: attributes.unit), let read = nameAttributes(at: next) else { return .unknown }
            attributes = read
        }
    }

    /// `DwarfDIE.names()` read over the bytes: the linkage name (`DW_AT_linkage_name`, else
    /// `DW_AT_MIPS_linkage_name`, through abstract origin and specification), else `DW_AT_name`.
    /// nil when libdw must be asked.
    func names(at dieOffset: Int) -> DIENames? {
        guard let first = nameAttributes(at: dieOffset) else { return nil }
        switch integrated(DWARFAttribute.linkageName, from: first) {
        case .found(let bytes): return (String(decoding: bytes, as: UTF8.self), nil)
        case .absent: break
        case .unknown: return nil
        }
        switch integrated(DWARFAttribute.mipsLinkageName, from: first) {
        case .found(let bytes): return (String(decoding: bytes, as: UTF8.self), nil)
        case .absent: break
        case .unknown: return nil
        }
        switch integrated(DWARFAttribute.name, from: first) {
        case .found(let bytes): return (nil, String(decoding: bytes, as: UTF8.self))
        case .absent: return (nil, nil)
        case .unknown: return nil
        }
    }

    /// `DwarfDIE.nameOrigin()` read over the bytes: `.some(nil)` when the DIE has a name of its
    /// own or no abstract origin, nil when libdw must be asked.
    func nameOrigin(at dieOffset: Int) -> UInt64?? {
        guard let attributes = nameAttributes(at: dieOffset) else { return nil }
        if attributes.linkage.isPresent || attributes.mipsLinkage.isPresent || attributes.name.isPresent { return .some(nil) }
        guard attributes.origin.isPresent else { return .some(nil) }
        guard let offset = referenced(attributes.origin, from: attributes.unit) else { return nil }
        return .some(UInt64(offset))
    }
}
