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
    let sections: DebugInfoSections
    /// Where each (abbreviation table, code) asked for has its tag in `.debug_abbrev`.
    /// Keyed by table offset and code in one integer (a key type of its own made the program's
    /// conformances be searched at start-up, see `DebugInfoBytes.tables`).
    private var entryOffsets: [Int: Int] = [:]

    init(sections: DebugInfoSections) {
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
        var entryPC: Address?
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
            if form == DWARFForm.implicitConst {
                guard let value = abbrev.sleb() else { return nil }
                implicitConstant = value
            }
            if form == DWARFForm.indirect {
                guard let actual = info.uleb(), actual != DWARFForm.indirect, actual != DWARFForm.implicitConst else { return nil }
                form = actual
            }
            guard let value = DWARFForm.read(form, from: &info, header, implicitConstant: implicitConstant) else { return nil }
            switch name {
            case DWARFAttribute.lowPC:
                guard let address = Self.address(form: form, value: value) else { return nil }
                found.lowPC = address
            case DWARFAttribute.highPC:
                if let address = Self.address(form: form, value: value) {
                    found.highPC = .address(address)
                } else if DWARFForm.isConstant(form) {
                    found.highPC = .offset(value)
                } else {
                    return nil
                }
            case DWARFAttribute.entryPC:
                // libdw reads it as an address; another form gives it no base (0), as here.
                found.entryPC = Self.address(form: form, value: value)
            case DWARFAttribute.ranges:
                found.ranges = (form, value)
            case DWARFAttribute.addrBase:
                found.addressBase = value
            case DWARFAttribute.rnglistsBase:
                found.rangeListsBase = value
            case DWARFAttribute.dwoName, DWARFAttribute.gnuDWOName, DWARFAttribute.gnuDWOID, DWARFAttribute.gnuRangesBase, DWARFAttribute.gnuAddrBase:
                found.isSkeleton = true
            default:
                break
            }
        }
        return found
    }

    private static func address(form: UInt64, value: UInt64) -> Address? {
        switch form {
        case DWARFForm.addr: return .direct(value)
        case DWARFForm.addrx, DWARFForm.addrx1, DWARFForm.addrx2, DWARFForm.addrx3, DWARFForm.addrx4: return .index(value)
        default: return nil
        }
    }

    /// Finds the abbreviation `code` of the table at `table`; each (table, code) is looked for
    /// once (units sharing a table share its unit DIE's abbreviation).
    private mutating func entryOffset(table: Int, code: UInt64) -> Int? {
        // Codes are small in practice; a larger one is looked for without the cache.
        let key = code < 1 << 20 && table < 1 << 40 ? table << 20 | Int(code) : nil
        if let key, let known = entryOffsets[key] { return known }
        guard table < sections.abbrev.count else { return nil }
        var reader = ByteReader(sections.abbrev, at: table)
        while true {
            // The first definition of a code wins, as in libdw's table.
            guard let found = reader.uleb(), found != 0 else { return nil }
            let entry = reader.position
            if found == code {
                if let key { entryOffsets[key] = entry }
                return entry
            }
            // Tag, children flag, then (name, form) pairs up to (0, 0); an implicit constant's value
            // follows its form.
            guard reader.uleb() != nil, reader.u8() != nil else { return nil }
            while true {
                guard let name = reader.uleb(), let form = reader.uleb() else { return nil }
                if name == 0 && form == 0 { break }
                if form == DWARFForm.implicitConst, reader.sleb() == nil { return nil }
            }
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
            guard let entry = resolve(entryPC, header, attributes) else { return nil }
            base = entry
        }
        var result: [AddressRange] = []
        let read = RangeLists.append(
            form: form, value: value, unit: listUnit(header, attributes, base: base), sections: listSections, into: &result)
        return read ? .unit(result) : nil
    }

    private var listSections: RangeListSections { sections.lists }

    private func listUnit(_ header: DWARFUnitHeader, _ attributes: UnitAttributes, base: UInt64) -> RangeListUnit {
        RangeListUnit(
            version: header.version, addressSize: header.addressSize, offsetSize: header.offsetSize, base: base,
            addressBase: attributes.addressBase, rangeListsBase: attributes.rangeListsBase)
    }

    private func resolve(_ address: Address, _ header: DWARFUnitHeader, _ attributes: UnitAttributes) -> UInt64? {
        switch address {
        case .direct(let value): return value
        case .index(let index): return RangeLists.indexedAddress(index, unit: listUnit(header, attributes, base: 0), sections: listSections)
        }
    }
}
