/// What a `DW_AT_ranges` list needs of its unit: sizes, and the bases its offsets and indexes are
/// taken from.
struct RangeListUnit {
    var version: Int
    var addressSize: Int
    var offsetSize: Int
    /// libdw's base address of the unit: its low pc, else its entry pc, else 0.
    var base: UInt64
    /// `DW_AT_addr_base` and `DW_AT_rnglists_base` of the unit DIE (DWARF 5), when present.
    var addressBase: UInt64?
    var rangeListsBase: UInt64?
}

/// The sections range lists and indexed addresses are read from, as stored.
struct RangeListSections {
    /// `.debug_ranges` (DWARF 2 to 4), `.debug_rnglists` and `.debug_addr` (DWARF 5), when present.
    var ranges: UnsafeRawBufferPointer?
    var rangeLists: UnsafeRawBufferPointer?
    var addresses: UnsafeRawBufferPointer?
}

/// Range lists read over the section bytes, giving what libdw's `dwarf_ranges` gives for a
/// `DW_AT_ranges` (empty ranges left out, as `DwarfDIE.appendRanges` leaves them out); shared by
/// the unit map (`UnitRangeReader`) and the DIE walk (`DIECursor.codeRanges`).
enum RangeLists {
    /// Appends the ranges of a `DW_AT_ranges` given with `form` and `value`. False, with nothing
    /// appended, for what this reader does not know or bytes that do not parse: libdw reads those.
    static func append(
        form: UInt64, value: UInt64, unit: RangeListUnit, sections: RangeListSections, into result: inout [AddressRange]
    ) -> Bool {
        let count = result.count
        let read: Bool
        if unit.version < 5 {
            // DWARF 2 and 3 give the offset as data4 or data8; DWARF 4 as sec_offset.
            let isOffset = form == DWARFForm.secOffset || (unit.version < 4 && (form == DWARFForm.data4 || form == DWARFForm.data8))
            guard isOffset, let list = sections.ranges else { return false }
            read = appendV4(list, at: value, addressSize: unit.addressSize, base: unit.base, into: &result)
        } else {
            guard let lists = sections.rangeLists else { return false }
            let offset: UInt64
            switch form {
            case DWARFForm.secOffset:
                offset = value
            case DWARFForm.rnglistx:
                // An index into the offsets after DW_AT_rnglists_base (relative to that base).
                guard let listsBase = unit.rangeListsBase else { return false }
                let (entry, overflow) = value.multipliedReportingOverflow(by: UInt64(unit.offsetSize))
                guard !overflow, listsBase <= UInt64(lists.count), entry <= UInt64(lists.count) - listsBase else { return false }
                var reader = ByteReader(lists, at: Int(listsBase + entry))
                guard let relative = reader.fixed(unit.offsetSize) else { return false }
                offset = listsBase &+ relative
            default:
                return false
            }
            read = appendV5(lists, at: offset, unit: unit, sections: sections, into: &result)
        }
        if !read { result.removeSubrange(count...) }
        return read
    }

    /// Entry `index` of `.debug_addr` after the unit's DW_AT_addr_base.
    static func indexedAddress(_ index: UInt64, unit: RangeListUnit, sections: RangeListSections) -> UInt64? {
        guard let table = sections.addresses, let addressBase = unit.addressBase else { return nil }
        let (entry, overflow) = index.multipliedReportingOverflow(by: UInt64(unit.addressSize))
        guard !overflow, addressBase <= UInt64(table.count), entry <= UInt64(table.count) - addressBase else { return nil }
        var reader = ByteReader(table, at: Int(addressBase + entry))
        return reader.fixed(unit.addressSize)
    }

    /// A DWARF 2-4 `.debug_ranges` list: (begin, end) pairs from `base`, a pair whose begin is all
    /// ones sets a new base, (0, 0) ends it.
    private static func appendV4(
        _ section: UnsafeRawBufferPointer, at offset: UInt64, addressSize: Int, base: UInt64, into result: inout [AddressRange]
    ) -> Bool {
        guard offset < UInt64(section.count) else { return false }
        let escape: UInt64 = addressSize == 8 ? .max : 0xffff_ffff
        var reader = ByteReader(section, at: Int(offset))
        var base = base
        while true {
            guard let begin = reader.fixed(addressSize), let end = reader.fixed(addressSize) else { return false }
            if begin == escape {
                base = end
                continue
            }
            if begin == 0 && end == 0 { return true }
            let low = begin &+ base
            let high = end &+ base
            if high > low { result.append(AddressRange(low: low, high: high)) }
        }
    }

    /// A DWARF 5 `.debug_rnglists` list of DW_RLE_* entries.
    private static func appendV5(
        _ section: UnsafeRawBufferPointer, at offset: UInt64, unit: RangeListUnit, sections: RangeListSections,
        into result: inout [AddressRange]
    ) -> Bool {
        guard offset < UInt64(section.count) else { return false }
        var reader = ByteReader(section, at: Int(offset))
        var base = unit.base
        func add(_ low: UInt64, _ high: UInt64) { if high > low { result.append(AddressRange(low: low, high: high)) } }
        func address(_ index: UInt64) -> UInt64? { indexedAddress(index, unit: unit, sections: sections) }
        while true {
            guard let kind = reader.u8() else { return false }
            switch kind {
            case 0x00:  // DW_RLE_end_of_list
                return true
            case 0x01:  // DW_RLE_base_addressx
                guard let index = reader.uleb(), let found = address(index) else { return false }
                base = found
            case 0x02:  // DW_RLE_startx_endx
                guard let first = reader.uleb(), let second = reader.uleb(), let low = address(first), let high = address(second)
                else { return false }
                add(low, high)
            case 0x03:  // DW_RLE_startx_length
                guard let index = reader.uleb(), let length = reader.uleb(), let low = address(index) else { return false }
                add(low, low &+ length)
            case 0x04:  // DW_RLE_offset_pair
                guard let begin = reader.uleb(), let end = reader.uleb() else { return false }
                add(begin &+ base, end &+ base)
            case 0x05:  // DW_RLE_base_address
                guard let found = reader.fixed(unit.addressSize) else { return false }
                base = found
            case 0x06:  // DW_RLE_start_end
                guard let low = reader.fixed(unit.addressSize), let high = reader.fixed(unit.addressSize) else { return false }
                add(low, high)
            case 0x07:  // DW_RLE_start_length
                guard let low = reader.fixed(unit.addressSize), let length = reader.uleb() else { return false }
                add(low, low &+ length)
            default:
                return false
            }
        }
    }
}
