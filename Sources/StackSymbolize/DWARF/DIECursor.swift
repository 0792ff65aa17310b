import Foundation

// Walking a unit's DIE tree over the raw `.debug_info` and `.debug_abbrev` bytes.
//
// Why: libdw takes a reader lock on its abbreviation table for every DIE it visits
// (`dwarf_siblingof`, `dwarf_tag`), and skipping a DIE's children to reach its sibling visits every
// one of them. On sourcekit-lsp that walk was over a third of a cold batch's time, a fifth of it in
// `pthread_rwlock_*`. Here a sibling is reached by skipping attributes by form, with the unit's
// abbreviations decoded once into arrays. Only DIEs that may have code are handed back to libdw.
//
// Every read is bounds-checked; anything unexpected (an unknown form, a truncated unit) makes the
// cursor report failure and the caller falls back to libdw's walk.

/// A cursor over the DIEs of one unit.
struct DIECursor {
    let info: UnsafeRawBufferPointer
    var abbreviations: AbbreviationTable
    /// Offset of the unit header in `info`, and of the byte after the unit.
    let unitStart: Int
    let unitEnd: Int
    let addressSize: Int
    let offsetSize: Int
    /// Size of a `DW_FORM_ref_addr` operand (address-sized in DWARF 2, offset-sized after).
    let refAddressSize: Int
    /// Set when something could not be read: the caller must not trust this walk.
    private(set) var failed = false

    /// What the unit's `DW_AT_ranges` and indexed addresses need (nil: libdw reads them).
    let lists: RangeListUnit?
    let listSections: RangeListSections

    /// Reads the unit header at `unitStart` (DWARF 2 to 5).
    init?(info: UnsafeRawBufferPointer, abbrev: UnsafeRawBufferPointer, unitStart: Int) {
        guard let header = DWARFUnitHeader(info, at: unitStart), header.abbrevOffset < abbrev.count,
            var table = AbbreviationTable(abbrev, at: header.abbrevOffset)
        else { return nil }
        let refAddressSize = header.version == 2 ? header.addressSize : header.offsetSize
        table.compile(addressSize: header.addressSize, offsetSize: header.offsetSize, refAddressSize: refAddressSize)
        self.init(info: info, table: table, header: header, unitStart: unitStart, lists: nil, listSections: RangeListSections())
    }

    /// A cursor over a unit `DebugInfoBytes` has read (its table decoded and compiled once).
    init(unit: UnitBytes, sections: DebugInfoSections) {
        self.init(
            info: sections.info, table: unit.abbreviations, header: unit.header, unitStart: unit.start, lists: unit.lists,
            listSections: sections.lists)
    }

    private init(
        info: UnsafeRawBufferPointer, table: AbbreviationTable, header: DWARFUnitHeader, unitStart: Int, lists: RangeListUnit?,
        listSections: RangeListSections
    ) {
        self.info = info
        self.abbreviations = table
        self.unitStart = unitStart
        self.unitEnd = header.end
        self.addressSize = header.addressSize
        self.offsetSize = header.offsetSize
        refAddressSize = header.version == 2 ? header.addressSize : header.offsetSize
        self.lists = lists
        self.listSections = listSections
    }

    /// The DIE at `offset`: its abbreviation entry, or `nil` for a null entry (end of siblings) or
    /// a failure.
    @inline(__always) mutating func entry(at offset: Int) -> AbbreviationTable.Entry? {
        guard offset < unitEnd else {
            failed = true
            return nil
        }
        var reader = ByteReader(info, at: offset)
        guard let code = reader.uleb() else {
            failed = true
            return nil
        }
        if code == 0 { return nil }
        guard code < UInt64(abbreviations.entries.count), abbreviations.entries[Int(code)].isValid else {
            failed = true
            return nil
        }
        return abbreviations.entries[Int(code)]
    }

    /// The offset just past the DIE's attributes (its first child, when it has children), and its
    /// `DW_AT_sibling` when it has one.
    mutating func attributesEnd(of offset: Int) -> (end: Int, sibling: Int?)? {
        var reader = ByteReader(info, at: offset)
        guard let code = reader.uleb(), code > 0, code < UInt64(abbreviations.entries.count) else {
            failed = true
            return nil
        }
        return attributesEnd(of: abbreviations.entries[Int(code)], reader: reader)
    }

    /// A function's or inlined call's code ranges and call site read from its bytes, as libdw's
    /// `dwarf_ranges` and `DwarfDIE.callSite` give them: `DW_AT_low_pc` and `DW_AT_high_pc` (an
    /// address, an indexed address or a length) as one range, else the `DW_AT_ranges` list; the
    /// call site as plain constants. The ranges (empty ones left out) are appended to `ranges`.
    /// nil, with nothing appended, for anything else (indirect forms, implicit constants, an
    /// indexed address without its base): libdw reads those. Asking libdw for these attributes
    /// walked the DIE's attributes once per attribute asked, a tenth of a cold batch.
    struct CallSite {
        /// -1 and 0 when absent, as `DwarfDIE.callSite` has them.
        var file: Int32 = -1
        var line: Int32 = 0
        /// Where the DIE's names come from, as `DwarfReader.nameOrigin` finds it, read in the same
        /// pass: the DIE itself when it has a name of its own or no `DW_AT_abstract_origin`, else
        /// the origin it refers to within the unit; `.max` where that reader would decide otherwise
        /// (a unit-external reference, an implicit-constant name), left to it.
        var nameOrigin: UInt64 = .max
    }

    /// The value of a unit-relative reference (`DW_FORM_ref1` to `DW_FORM_ref8`, else
    /// `DW_FORM_ref_udata`), nil when it runs past the bytes.
    @inline(__always)
    private static func unitReference(form: UInt32, _ reader: inout ByteReader) -> UInt64? {
        switch form {
        case 0x11: reader.fixed(1)
        case 0x12: reader.fixed(2)
        case 0x13: reader.fixed(4)
        case 0x14: reader.fixed(8)
        default: reader.uleb()
        }
    }

    func codeRanges(of entry: AbbreviationTable.Entry, at offset: Int, into ranges: inout [AddressRange]) -> CallSite? {
        var reader = ByteReader(info, at: offset)
        guard reader.uleb() != nil else { return nil }
        var low: UInt64?
        var high: UInt64?
        var highIsLength = false
        var list: (form: UInt32, value: UInt64)?
        var result = CallSite()
        var hasName = false
        var origin: UInt64?
        var originSeen = false
        var originReadable = true
        for spec in Int(entry.specStart)..<Int(entry.specEnd) {
            let name = abbreviations.specNames[spec]
            let form = abbreviations.specForms[spec]
            switch name {
            case 0x03, 0x6e, 0x2007:  // DW_AT_name, DW_AT_linkage_name, DW_AT_MIPS_linkage_name: skipped below
                hasName = true
                if form == 0x21 { originReadable = false }
            case 0x31 where !originSeen:  // DW_AT_abstract_origin, the first one
                originSeen = true
                // `DW_FORM_ref_addr` and the rest: skipped below, the origin left to the reader.
                if !(0x11...0x15).contains(form) { originReadable = false }
                if originReadable {
                    guard let value = Self.unitReference(form: form, &reader) else { return nil }
                    if value < UInt64(unitEnd - unitStart) { origin = UInt64(unitStart) + value } else { originReadable = false }
                    continue
                }
            case 0x11:  // DW_AT_low_pc
                guard let value = address(form, &reader) else { return nil }
                low = value
                continue
            case 0x12:  // DW_AT_high_pc
                if let value = address(form, &reader) {
                    high = value
                } else {
                    guard let value = constant(form, &reader) else { return nil }
                    high = value
                    highIsLength = true
                }
                continue
            case 0x55:  // DW_AT_ranges
                // sec_offset, rnglistx, or data4/data8 (an offset before DWARF 4): `RangeLists` checks
                // which the unit's version allows.
                let value: UInt64?
                switch form {
                case 0x17: value = reader.fixed(offsetSize)
                case 0x23: value = reader.uleb()
                case 0x06: value = reader.fixed(4)
                case 0x07: value = reader.fixed(8)
                default: return nil
                }
                guard let value else { return nil }
                list = (form, value)
                continue
            case 0x58, 0x59:  // DW_AT_call_file, DW_AT_call_line
                guard let value = constant(form, &reader) else { return nil }
                if name == 0x58 { result.file = Int32(truncatingIfNeeded: value) } else { result.line = Int32(truncatingIfNeeded: value) }
                continue
            default:
                break
            }
            let size = abbreviations.specSizes[spec]
            if size >= 0 {
                guard reader.skip(Int(size)) else { return nil }
                continue
            }
            var op = AbbreviationTable.op(form: UInt64(form), isSibling: name == 0x01)
            if form == 0x10 { op = .fixed(refAddressSize) }
            switch op {
            case .fixed(let size): guard reader.skip(size) else { return nil }
            case .addressSized: guard reader.skip(addressSize) else { return nil }
            case .offsetSized: guard reader.skip(offsetSize) else { return nil }
            case .uleb: guard reader.uleb() != nil else { return nil }
            case .sleb: guard reader.sleb() != nil else { return nil }
            case .cString: guard reader.cString() else { return nil }
            case .block1:
                guard let size = reader.fixed(1), reader.skip(Int(size)) else { return nil }
            case .block2:
                guard let size = reader.fixed(2), reader.skip(Int(size)) else { return nil }
            case .block4:
                guard let size = reader.fixed(4), reader.skip(Int(size)) else { return nil }
            case .blockULEB:
                guard let size = reader.uleb(), size < UInt64(Int.max), reader.skip(Int(size)) else { return nil }
            case .sibling(let siblingForm):
                switch siblingForm {
                case 0x11: guard reader.skip(1) else { return nil }
                case 0x12: guard reader.skip(2) else { return nil }
                case 0x13: guard reader.skip(4) else { return nil }
                case 0x14: guard reader.skip(8) else { return nil }
                default: guard reader.uleb() != nil else { return nil }
                }
            case .indirect, .unknown:
                return nil
            }
        }
        if originReadable { result.nameOrigin = hasName ? UInt64(offset) : origin ?? UInt64(offset) }
        // libdw tries the low and high pc first, then the list; a DIE with neither has no code.
        if let low, let high {
            let end = highIsLength ? low &+ high : high
            if end > low { ranges.append(AddressRange(low: low, high: end)) }
        } else if let list {
            guard let lists, RangeLists.append(form: UInt64(list.form), value: list.value, unit: lists, sections: listSections, into: &ranges)
            else { return nil }
        }
        return result
    }

    /// An address operand: `DW_FORM_addr`, or an index into `.debug_addr` when the unit's base is
    /// known; nil (the reader untouched) for another form.
    private func address(_ form: UInt32, _ reader: inout ByteReader) -> UInt64? {
        switch form {
        case 0x01:
            return reader.fixed(addressSize)
        case 0x1b, 0x29, 0x2a, 0x2b, 0x2c:  // DW_FORM_addrx, addrx1...addrx4
            guard let lists else { return nil }
            var copy = reader
            let index: UInt64?
            switch form {
            case 0x1b: index = copy.uleb()
            case 0x29: index = copy.fixed(1)
            case 0x2a: index = copy.fixed(2)
            case 0x2b: index = copy.fixed(3)
            default: index = copy.fixed(4)
            }
            guard let index, let found = RangeLists.indexedAddress(index, unit: lists, sections: listSections) else { return nil }
            reader = copy
            return found
        default:
            return nil
        }
    }

    /// A constant operand (`DW_FORM_data1/2/4/8`, `udata`), or `nil` for another form.
    private func constant(_ form: UInt32, _ reader: inout ByteReader) -> UInt64? {
        switch form {
        case 0x0b: return reader.fixed(1)
        case 0x05: return reader.fixed(2)
        case 0x06: return reader.fixed(4)
        case 0x07: return reader.fixed(8)
        case 0x0f: return reader.uleb()
        default: return nil
        }
    }

    /// What a walk meets at an offset: the end of a sibling list, or a DIE with the offset just
    /// past its attributes and its `DW_AT_sibling`.
    enum Step {
        case endOfSiblings(next: Int)
        case entry(AbbreviationTable.Entry, end: Int, sibling: Int?)
        case failed
    }

    /// `entry(at:)` and `attributesEnd(of:)` at once, the abbreviation code read once (a walk over
    /// every DIE of clang's units read it three times).
    @inline(__always) mutating func step(at offset: Int) -> Step {
        guard offset < unitEnd else {
            failed = true
            return .failed
        }
        var reader = ByteReader(info, at: offset)
        guard let code = reader.uleb() else {
            failed = true
            return .failed
        }
        if code == 0 { return .endOfSiblings(next: reader.position) }
        guard code < UInt64(abbreviations.entries.count), abbreviations.entries[Int(code)].isValid else {
            failed = true
            return .failed
        }
        let entry = abbreviations.entries[Int(code)]
        if entry.fixedSize >= 0 {
            let end = reader.position + Int(entry.fixedSize)
            guard end <= unitEnd else {
                failed = true
                return .failed
            }
            return .entry(entry, end: end, sibling: nil)
        }
        guard let (end, sibling) = attributesEnd(of: entry, reader: reader) else { return .failed }
        return .entry(entry, end: end, sibling: sibling)
    }

    @inline(__always) private mutating func attributesEnd(of entry: AbbreviationTable.Entry, reader: ByteReader) -> (end: Int, sibling: Int?)? {
        var reader = reader
        var sibling: Int?
        var ok = true
        var opIndex = Int(entry.opStart)
        let opEnd = Int(entry.opEnd)
        while ok, opIndex < opEnd {
            var op = abbreviations.ops[opIndex]
            opIndex += 1
            if case .indirect = op {
                guard let form = reader.uleb() else {
                    ok = false
                    break
                }
                op = AbbreviationTable.op(form: form, isSibling: false)
                if form == 0x10 { op = .fixed(refAddressSize) }  // DW_FORM_ref_addr
                if case .addressSized = op { op = .fixed(addressSize) }
                if case .offsetSized = op { op = .fixed(offsetSize) }
            }
            switch op {
            case .fixed(let size): ok = reader.skip(size)
            case .uleb: ok = reader.uleb() != nil
            case .sleb: ok = reader.sleb() != nil
            case .cString: ok = reader.cString()
            case .block1: ok = reader.fixed(1).map { reader.skip(Int($0)) } ?? false
            case .block2: ok = reader.fixed(2).map { reader.skip(Int($0)) } ?? false
            case .block4: ok = reader.fixed(4).map { reader.skip(Int($0)) } ?? false
            case .blockULEB:
                if let length = reader.uleb(), length < UInt64(info.count) { ok = reader.skip(Int(length)) } else { ok = false }
            case .sibling(let form):
                if let value = Self.unitReference(form: form, &reader) {
                    if value < UInt64(unitEnd - unitStart) { sibling = unitStart + Int(value) }
                } else {
                    ok = false
                }
            case .addressSized, .offsetSized, .indirect, .unknown: ok = false
            }
        }
        guard ok, reader.position <= unitEnd else {
            failed = true
            return nil
        }
        return (reader.position, sibling)
    }
}
