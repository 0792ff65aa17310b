import Foundation

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
