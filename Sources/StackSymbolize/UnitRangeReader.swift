/// The sections a unit DIE's address ranges come from, as stored (none compressed).
struct UnitRangeSections {
    var info: UnsafeRawBufferPointer
    var abbrev: UnsafeRawBufferPointer
    /// `.debug_ranges` (DWARF 2 to 4), `.debug_rnglists` and `.debug_addr` (DWARF 5), when present.
    var ranges: UnsafeRawBufferPointer?
    var rangeLists: UnsafeRawBufferPointer?
    var addresses: UnsafeRawBufferPointer?
}

/// Reads a unit DIE's address ranges from the section bytes, giving exactly what libdw's
/// `dwarf_ranges` gives for it (`DwarfReader.unitRanges`), or `nil` where it cannot be sure and
/// libdw reads the unit instead (split DWARF, an unknown form, a list that does not parse).
///
/// Why not libdw: building the unit map is most of a one-address run. libdw makes a `Dwarf_CU` per
/// unit and reads each unit's abbreviation table from its start into a table of its own, and
/// Swift and clang units share tables (swift-help's 556 units use a few tables; a unit DIE's
/// abbreviation is often code 68): 26,000 abbreviations read to find 556 unit DIEs, 28 of the 43
/// million instructions of one address on swift-help. Here each (table, code) is found once.
struct UnitRangeReader {
    let sections: UnitRangeSections
    /// Where each (abbreviation table, code) asked for has its tag in `.debug_abbrev`.
    private var entryOffsets: [AbbreviationKey: Int] = [:]

    private struct AbbreviationKey: Hashable {
        var table: Int
        var code: UInt64
    }

    init(sections: UnitRangeSections) {
        self.sections = sections
    }

    enum Answer: Equatable {
        /// A compile or partial unit: its ranges (empty when it has none).
        case unit([AddressRange])
        /// Not answered here: libdw reads this unit.
        case unknown
    }

    /// The ranges of the unit whose header starts at `unitStart`, its DIE at `dieOffset`.
    mutating func ranges(unitStart: Int, dieOffset: Int) -> Answer {
        guard let header = DWARFUnitHeader(sections.info, at: unitStart), header.dieOffset == dieOffset,
            let attributes = unitAttributes(header)
        else { return .unknown }
        return ranges(header, attributes) ?? .unknown
    }

    // MARK: - The unit header and DIE

    /// The attributes of the unit DIE that say where its code is.
    private struct UnitAttributes {
        var lowPC: Address?
        var highPC: HighPC?
        var entryPC: UInt64?
        var ranges: (form: UInt64, value: UInt64)?
        var addressBase: UInt64?
        var rangeListsBase: UInt64?
        /// DW_AT_GNU_dwo_name and the like: a skeleton of split DWARF (Swift's units for imported
        /// Clang modules are such skeletons, with no code).
        var isSkeleton = false
    }

    /// An address as an attribute gives it: the address itself, or an index into `.debug_addr`.
    private enum Address {
        case direct(UInt64)
        case index(UInt64)
    }

    private enum HighPC {
        case address(Address)
        /// A constant: the offset from the low address.
        case offset(UInt64)
    }

    private mutating func unitAttributes(_ header: DWARFUnitHeader) -> UnitAttributes? {
        var info = ByteReader(sections.info, at: header.dieOffset)
        guard let code = info.uleb(), code != 0, let entry = entryOffset(table: header.abbrevOffset, code: code) else { return nil }
        var abbrev = ByteReader(sections.abbrev, at: entry)
        guard let tag = abbrev.uleb(), tag == UInt64(DWARFTag.compileUnit) || tag == UInt64(DWARFTag.partialUnit), abbrev.u8() != nil else {
            return nil
        }
        var found = UnitAttributes()
        while true {
            guard let name = abbrev.uleb(), var form = abbrev.uleb() else { return nil }
            if name == 0 && form == 0 { break }
            var implicitConstant: Int64?
            if form == Form.implicitConst {
                guard let value = abbrev.sleb() else { return nil }
                implicitConstant = value
            }
            if form == Form.indirect {
                guard let actual = info.uleb(), actual != Form.indirect, actual != Form.implicitConst else { return nil }
                form = actual
            }
            guard let value = Self.read(form, from: &info, header, implicitConstant: implicitConstant) else { return nil }
            switch name {
            case Attribute.lowPC:
                guard let address = Self.address(form: form, value: value) else { return nil }
                found.lowPC = address
            case Attribute.highPC:
                if let address = Self.address(form: form, value: value) {
                    found.highPC = .address(address)
                } else if Form.isConstant(form) {
                    found.highPC = .offset(value)
                } else {
                    return nil
                }
            case Attribute.entryPC:
                if form == Form.addr { found.entryPC = value }
            case Attribute.ranges:
                found.ranges = (form, value)
            case Attribute.addrBase:
                found.addressBase = value
            case Attribute.rnglistsBase:
                found.rangeListsBase = value
            case Attribute.dwoName, Attribute.gnuDWOName, Attribute.gnuDWOID, Attribute.gnuRangesBase, Attribute.gnuAddrBase:
                found.isSkeleton = true
            default:
                break
            }
        }
        return found
    }

    private static func address(form: UInt64, value: UInt64) -> Address? {
        switch form {
        case Form.addr: return .direct(value)
        case Form.addrx, Form.addrx1, Form.addrx2, Form.addrx3, Form.addrx4: return .index(value)
        default: return nil
        }
    }

    /// Finds the abbreviation `code` of the table at `table`; each (table, code) is looked for
    /// once (units sharing a table share its unit DIE's abbreviation).
    private mutating func entryOffset(table: Int, code: UInt64) -> Int? {
        let key = AbbreviationKey(table: table, code: code)
        if let known = entryOffsets[key] { return known }
        guard table < sections.abbrev.count else { return nil }
        var reader = ByteReader(sections.abbrev, at: table)
        while true {
            // The first definition of a code wins, as in libdw's table.
            guard let found = reader.uleb(), found != 0 else { return nil }
            let entry = reader.position
            if found == code {
                entryOffsets[key] = entry
                return entry
            }
            // Tag, children flag, then (name, form) pairs up to (0, 0); an implicit constant's value
            // follows its form.
            guard reader.uleb() != nil, reader.u8() != nil else { return nil }
            while true {
                guard let name = reader.uleb(), let form = reader.uleb() else { return nil }
                if name == 0 && form == 0 { break }
                if form == Form.implicitConst, reader.sleb() == nil { return nil }
            }
        }
    }

    /// Reads one attribute value of `form`: the number it holds (an address, a constant, an
    /// offset, an index), or 0 for forms whose value is not needed here; `nil` for a form this
    /// reader does not know or bytes that run out.
    private static func read(_ form: UInt64, from reader: inout ByteReader, _ header: DWARFUnitHeader, implicitConstant: Int64?) -> UInt64? {
        switch form {
        case Form.addr: return reader.fixed(header.addressSize)
        case Form.data1, Form.ref1, Form.flag, Form.strx1, Form.addrx1: return reader.fixed(1)
        case Form.data2, Form.ref2, Form.strx2, Form.addrx2: return reader.fixed(2)
        case Form.strx3, Form.addrx3: return reader.fixed(3)
        case Form.data4, Form.ref4, Form.strx4, Form.addrx4, Form.refSup4: return reader.fixed(4)
        case Form.data8, Form.ref8, Form.refSig8, Form.refSup8: return reader.fixed(8)
        case Form.data16: return reader.skip(16) ? 0 : nil
        case Form.udata, Form.refUdata, Form.strx, Form.addrx, Form.loclistx, Form.rnglistx, Form.gnuAddrIndex, Form.gnuStrIndex:
            return reader.uleb()
        case Form.sdata: return reader.sleb().map { UInt64(bitPattern: $0) }
        case Form.strp, Form.secOffset, Form.lineStrp, Form.strpSup, Form.gnuRefAlt, Form.gnuStrpAlt:
            return reader.fixed(header.offsetSize)
        case Form.refAddr: return reader.fixed(header.version == 2 ? header.addressSize : header.offsetSize)
        case Form.string: return reader.cString() ? 0 : nil
        case Form.flagPresent: return 1
        case Form.implicitConst: return implicitConstant.map { UInt64(bitPattern: $0) }
        case Form.block1: return reader.fixed(1).flatMap { reader.skip(Int($0)) ? 0 : nil }
        case Form.block2: return reader.fixed(2).flatMap { reader.skip(Int($0)) ? 0 : nil }
        case Form.block4: return reader.fixed(4).flatMap { reader.skip(Int($0)) ? 0 : nil }
        case Form.block, Form.exprloc:
            guard let length = reader.uleb(), length <= UInt64(reader.bytes.count) else { return nil }
            return reader.skip(Int(length)) ? 0 : nil
        default: return nil
        }
    }

    // MARK: - Ranges, as libdw's dwarf_ranges gives them for a unit DIE

    private func ranges(_ header: DWARFUnitHeader, _ attributes: UnitAttributes) -> Answer? {
        // A skeleton without code has no ranges (libdw gives none); one with code is libdw's, which
        // knows split DWARF's bases.
        if attributes.isSkeleton {
            return attributes.lowPC == nil && attributes.highPC == nil && attributes.ranges == nil ? .unit([]) : nil
        }
        // Low and high pc: one range, even beside DW_AT_ranges (libdw tries them first).
        if let highPC = attributes.highPC, let lowPC = attributes.lowPC {
            guard let low = resolve(lowPC, header, attributes) else { return nil }
            let high: UInt64
            switch highPC {
            case .address(let address):
                guard let resolved = resolve(address, header, attributes) else { return nil }
                high = resolved
            case .offset(let offset):
                high = low &+ offset
            }
            return .unit(high > low ? [AddressRange(low: low, high: high)] : [])
        }
        guard let (form, value) = attributes.ranges else { return .unit([]) }
        // The base of the list's offsets: the unit's low pc, else its entry pc, else 0.
        var base: UInt64 = 0
        if let lowPC = attributes.lowPC {
            guard let low = resolve(lowPC, header, attributes) else { return nil }
            base = low
        } else if let entryPC = attributes.entryPC {
            base = entryPC
        }
        if header.version < 5 {
            // DWARF 2 and 3 give the offset as data4 or data8; DWARF 4 as sec_offset.
            let isOffset = form == Form.secOffset || (header.version < 4 && (form == Form.data4 || form == Form.data8))
            guard isOffset, let list = sections.ranges else { return nil }
            return rangeList(list, at: value, addressSize: header.addressSize, base: base).map { .unit($0) }
        }
        guard let lists = sections.rangeLists else { return nil }
        let offset: UInt64
        switch form {
        case Form.secOffset:
            offset = value
        case Form.rnglistx:
            // An index into the offsets after DW_AT_rnglists_base (relative to that base).
            guard let listsBase = attributes.rangeListsBase else { return nil }
            let (entry, overflow) = value.multipliedReportingOverflow(by: UInt64(header.offsetSize))
            guard !overflow, listsBase <= UInt64(lists.count), entry <= UInt64(lists.count) - listsBase else { return nil }
            var reader = ByteReader(lists, at: Int(listsBase + entry))
            guard let relative = reader.fixed(header.offsetSize) else { return nil }
            offset = listsBase &+ relative
        default:
            return nil
        }
        return rangeListV5(lists, at: offset, header, attributes, base: base).map { .unit($0) }
    }

    private func resolve(_ address: Address, _ header: DWARFUnitHeader, _ attributes: UnitAttributes) -> UInt64? {
        switch address {
        case .direct(let value): return value
        case .index(let index): return indexedAddress(index, header, attributes)
        }
    }

    /// Entry `index` of `.debug_addr` after the unit's DW_AT_addr_base.
    private func indexedAddress(_ index: UInt64, _ header: DWARFUnitHeader, _ attributes: UnitAttributes) -> UInt64? {
        guard let table = sections.addresses, let addressBase = attributes.addressBase else { return nil }
        let (entry, overflow) = index.multipliedReportingOverflow(by: UInt64(header.addressSize))
        guard !overflow, addressBase <= UInt64(table.count), entry <= UInt64(table.count) - addressBase else { return nil }
        var reader = ByteReader(table, at: Int(addressBase + entry))
        return reader.fixed(header.addressSize)
    }

    /// A DWARF 2-4 `.debug_ranges` list: (begin, end) pairs from `base`, a pair whose begin is all
    /// ones sets a new base, (0, 0) ends it. Empty ranges are dropped (as `DwarfDIE.ranges()` does).
    private func rangeList(_ section: UnsafeRawBufferPointer, at offset: UInt64, addressSize: Int, base: UInt64) -> [AddressRange]? {
        guard offset < UInt64(section.count) else { return nil }
        let escape: UInt64 = addressSize == 8 ? .max : 0xffff_ffff
        var reader = ByteReader(section, at: Int(offset))
        var base = base
        var result: [AddressRange] = []
        while true {
            guard let begin = reader.fixed(addressSize), let end = reader.fixed(addressSize) else { return nil }
            if begin == escape {
                base = end
                continue
            }
            if begin == 0 && end == 0 { return result }
            let low = begin &+ base
            let high = end &+ base
            if high > low { result.append(AddressRange(low: low, high: high)) }
        }
    }

    /// A DWARF 5 `.debug_rnglists` list of DW_RLE_* entries.
    private func rangeListV5(
        _ section: UnsafeRawBufferPointer, at offset: UInt64, _ header: DWARFUnitHeader, _ attributes: UnitAttributes, base: UInt64
    ) -> [AddressRange]? {
        guard offset < UInt64(section.count) else { return nil }
        var reader = ByteReader(section, at: Int(offset))
        var base = base
        var result: [AddressRange] = []
        func add(_ low: UInt64, _ high: UInt64) { if high > low { result.append(AddressRange(low: low, high: high)) } }
        while true {
            guard let kind = reader.u8() else { return nil }
            switch kind {
            case 0x00:  // DW_RLE_end_of_list
                return result
            case 0x01:  // DW_RLE_base_addressx
                guard let index = reader.uleb(), let address = indexedAddress(index, header, attributes) else { return nil }
                base = address
            case 0x02:  // DW_RLE_startx_endx
                guard let first = reader.uleb(), let second = reader.uleb(), let low = indexedAddress(first, header, attributes),
                    let high = indexedAddress(second, header, attributes)
                else { return nil }
                add(low, high)
            case 0x03:  // DW_RLE_startx_length
                guard let index = reader.uleb(), let length = reader.uleb(), let low = indexedAddress(index, header, attributes) else {
                    return nil
                }
                add(low, low &+ length)
            case 0x04:  // DW_RLE_offset_pair
                guard let begin = reader.uleb(), let end = reader.uleb() else { return nil }
                add(begin &+ base, end &+ base)
            case 0x05:  // DW_RLE_base_address
                guard let address = reader.fixed(header.addressSize) else { return nil }
                base = address
            case 0x06:  // DW_RLE_start_end
                guard let low = reader.fixed(header.addressSize), let high = reader.fixed(header.addressSize) else { return nil }
                add(low, high)
            case 0x07:  // DW_RLE_start_length
                guard let low = reader.fixed(header.addressSize), let length = reader.uleb() else { return nil }
                add(low, low &+ length)
            default:
                return nil
            }
        }
    }

    // MARK: - Numbers

    private enum Attribute {
        static let lowPC: UInt64 = 0x11
        static let highPC: UInt64 = 0x12
        static let entryPC: UInt64 = 0x52
        static let ranges: UInt64 = 0x55
        static let addrBase: UInt64 = 0x73
        static let rnglistsBase: UInt64 = 0x74
        static let dwoName: UInt64 = 0x76
        static let gnuDWOName: UInt64 = 0x2130
        static let gnuDWOID: UInt64 = 0x2131
        static let gnuRangesBase: UInt64 = 0x2132
        static let gnuAddrBase: UInt64 = 0x2133
    }

    private enum Form {
        static let addr: UInt64 = 0x01
        static let block2: UInt64 = 0x03
        static let block4: UInt64 = 0x04
        static let data2: UInt64 = 0x05
        static let data4: UInt64 = 0x06
        static let data8: UInt64 = 0x07
        static let string: UInt64 = 0x08
        static let block: UInt64 = 0x09
        static let block1: UInt64 = 0x0a
        static let data1: UInt64 = 0x0b
        static let flag: UInt64 = 0x0c
        static let sdata: UInt64 = 0x0d
        static let strp: UInt64 = 0x0e
        static let udata: UInt64 = 0x0f
        static let refAddr: UInt64 = 0x10
        static let ref1: UInt64 = 0x11
        static let ref2: UInt64 = 0x12
        static let ref4: UInt64 = 0x13
        static let ref8: UInt64 = 0x14
        static let refUdata: UInt64 = 0x15
        static let indirect: UInt64 = 0x16
        static let secOffset: UInt64 = 0x17
        static let exprloc: UInt64 = 0x18
        static let flagPresent: UInt64 = 0x19
        static let strx: UInt64 = 0x1a
        static let addrx: UInt64 = 0x1b
        static let refSup4: UInt64 = 0x1c
        static let strpSup: UInt64 = 0x1d
        static let data16: UInt64 = 0x1e
        static let lineStrp: UInt64 = 0x1f
        static let refSig8: UInt64 = 0x20
        static let implicitConst: UInt64 = 0x21
        static let loclistx: UInt64 = 0x22
        static let rnglistx: UInt64 = 0x23
        static let refSup8: UInt64 = 0x24
        static let strx1: UInt64 = 0x25
        static let strx2: UInt64 = 0x26
        static let strx3: UInt64 = 0x27
        static let strx4: UInt64 = 0x28
        static let addrx1: UInt64 = 0x29
        static let addrx2: UInt64 = 0x2a
        static let addrx3: UInt64 = 0x2b
        static let addrx4: UInt64 = 0x2c
        static let gnuAddrIndex: UInt64 = 0x1f01
        static let gnuStrIndex: UInt64 = 0x1f02
        static let gnuRefAlt: UInt64 = 0x1f20
        static let gnuStrpAlt: UInt64 = 0x1f21

        /// The constant class (a high pc given as an offset from the low one).
        static func isConstant(_ form: UInt64) -> Bool {
            [data1, data2, data4, data8, udata, sdata, implicitConst].contains(form)
        }
    }
}
