import Foundation

// A unit's `.debug_abbrev` entries, decoded once into arrays for `DIECursor`.

/// One abbreviation: tag, children flag and its attribute specifications.
struct AbbreviationTable {
    struct Entry {
        var tag: UInt32 = 0
        var hasChildren = false
        /// Range into `specs`.
        var specStart: Int32 = 0
        var specEnd: Int32 = 0
        /// `DW_AT_low_pc` or `DW_AT_ranges` present: the DIE may cover code.
        var mayHaveCode = false
        var isValid = false
        /// Range into `ops`.
        var opStart: Int32 = 0
        var opEnd: Int32 = 0
        /// The size of the attributes when every form has a fixed size (most DIEs), else -1:
        /// such a DIE is passed over with one addition.
        var fixedSize: Int32 = -1
        /// Whether the scope walk looks at this DIE at all: a function, an inlined call, or a
        /// container with children (`DWARFTag.isContainer`). Most DIEs are none of these.
        var isScope = false
    }

    /// (attribute, form) of every entry, flat.
    var specNames: [UInt32] = []
    var specForms: [UInt32] = []
    var entries: [Entry] = []
    /// Per entry (`opStart..<opEnd`), how to skip its attributes: runs of fixed-size forms merged
    /// into one skip, so most DIEs are passed over with a few additions.
    var ops: [SkipOp] = []
    /// Per attribute (as `specForms`), its operand's size when fixed for the unit, else -1: the
    /// readers that want a few attributes of a DIE step over the others by it.
    var specSizes: [Int16] = []
    /// Per code: the attributes' size of a DIE the scope walk passes over as it is (no children,
    /// not a function, inlined call or container, every form of fixed size), else -1. Most DIEs
    /// are such leaves: one load and one addition each.
    var leafSizes: [Int32] = []

    enum SkipOp {
        case fixed(Int)
        case uleb
        case sleb
        case cString
        case block1, block2, block4, blockULEB
        /// An attribute whose form has an operand size depending on the unit (address, offset).
        case addressSized, offsetSized
        /// `DW_AT_sibling` with this form (ref1...ref_udata): read, not just skipped.
        case sibling(UInt32)
        case indirect
        case unknown
    }

    static func op(form: UInt64, isSibling: Bool) -> SkipOp {
        if isSibling, (0x11...0x15).contains(form) { return .sibling(UInt32(form)) }
        switch form {
        case 0x01: return .addressSized
        case 0x0b, 0x0c, 0x25, 0x29, 0x11: return .fixed(1)
        case 0x05, 0x26, 0x2a, 0x12: return .fixed(2)
        case 0x27, 0x2b: return .fixed(3)
        case 0x06, 0x28, 0x2c, 0x1c, 0x13: return .fixed(4)
        case 0x07, 0x20, 0x24, 0x14: return .fixed(8)
        case 0x1e: return .fixed(16)
        case 0x0e, 0x10, 0x17, 0x1d, 0x1f, 0x1f20, 0x1f21: return .offsetSized
        case 0x0d: return .sleb
        case 0x0f, 0x1a, 0x1b, 0x22, 0x23, 0x1f01, 0x1f02, 0x15: return .uleb
        case 0x19, 0x21: return .fixed(0)
        case 0x08: return .cString
        case 0x0a: return .block1
        case 0x03: return .block2
        case 0x04: return .block4
        case 0x09, 0x18: return .blockULEB
        case 0x16: return .indirect
        default: return .unknown
        }
    }

    /// Turns address- and offset-sized operands into fixed skips and merges runs of them.
    /// `DW_FORM_ref_addr` is offset-sized from DWARF 3 on, address-sized in DWARF 2
    /// (`refAddressSize`).
    mutating func compile(addressSize: Int, offsetSize: Int, refAddressSize: Int) {
        // At most one op per attribute: written in place, not appended (an append checks the
        // array's uniqueness in the runtime; decoding and compiling a unit's table was a twentieth
        // of a cold batch).
        let specNames = specNames
        let specForms = specForms
        var entries = entries
        var sizes = [Int16](repeating: -1, count: specNames.count)
        ops = [SkipOp](unsafeUninitializedCapacity: specNames.count) { ops, count in
            count = 0
            for index in entries.indices where entries[index].isValid {
                entries[index].opStart = Int32(count)
                var run = 0
                for spec in Int(entries[index].specStart)..<Int(entries[index].specEnd) {
                    var op = Self.op(form: UInt64(specForms[spec]), isSibling: specNames[spec] == 0x01)
                    if specForms[spec] == 0x10 { op = .fixed(refAddressSize) }  // DW_FORM_ref_addr
                    if case .addressSized = op { op = .fixed(addressSize) }
                    if case .offsetSized = op { op = .fixed(offsetSize) }
                    if case .fixed(let size) = op {
                        sizes[spec] = Int16(clamping: size)
                        run += size
                        continue
                    }
                    if run > 0 {
                        (ops.baseAddress! + count).initialize(to: .fixed(run))
                        count += 1
                    }
                    run = 0
                    (ops.baseAddress! + count).initialize(to: op)
                    count += 1
                }
                if run > 0 {
                    (ops.baseAddress! + count).initialize(to: .fixed(run))
                    count += 1
                }
                entries[index].opEnd = Int32(count)
                let opCount = count - Int(entries[index].opStart)
                if opCount == 0 {
                    entries[index].fixedSize = 0
                } else if opCount == 1, case .fixed(let size) = ops[count - 1], size < Int(Int32.max) {
                    entries[index].fixedSize = Int32(size)
                }
            }
        }
        self.entries = entries
        specSizes = sizes
        leafSizes = entries.map { $0.isValid && !$0.hasChildren && !$0.isScope ? $0.fixedSize : -1 }
    }

    /// Decodes the abbreviations at `offset` of `bytes` (codes are small and dense in practice; a
    /// code over 1,000,000 fails the decode). Two passes over the table: one finds its size, the
    /// second fills arrays made to that size.
    init?(_ bytes: UnsafeRawBufferPointer, at offset: Int) {
        guard offset >= 0, offset <= bytes.count else { return nil }
        // Pass 1: where the table ends, how many attributes it has, and its largest code.
        var reader = ByteReader(bytes, at: offset)
        var specCount = 0
        var largestCode = 0
        while true {
            guard let code = reader.uleb() else { return nil }
            if code == 0 { break }
            guard code < 1_000_000, reader.uleb() != nil, reader.u8() != nil else { return nil }
            largestCode = max(largestCode, Int(code))
            while true {
                guard let name = reader.uleb(), let form = reader.uleb() else { return nil }
                if name == 0 && form == 0 { break }
                if form == 0x21 { guard reader.sleb() != nil else { return nil } }  // DW_FORM_implicit_const
                specCount += 1
            }
        }
        // Pass 2: the same bytes, now known to parse, into arrays of their final size.
        reader.position = offset
        var entries = [Entry](repeating: Entry(), count: largestCode + 1)
        var names = [UInt32](repeating: 0, count: specCount)
        var forms = [UInt32](repeating: 0, count: specCount)
        var spec = 0
        names.withUnsafeMutableBufferPointer { names in
            forms.withUnsafeMutableBufferPointer { forms in
                while let code = reader.uleb(), code != 0, let tag = reader.uleb(), let children = reader.u8() {
                    var entry = Entry()
                    entry.tag = UInt32(truncatingIfNeeded: tag)
                    entry.hasChildren = children != 0
                    entry.specStart = Int32(spec)
                    while let name = reader.uleb(), let form = reader.uleb(), name != 0 || form != 0 {
                        if form == 0x21 { _ = reader.sleb() }
                        if name == 0x11 || name == 0x55 { entry.mayHaveCode = true }
                        names[spec] = UInt32(truncatingIfNeeded: name)
                        forms[spec] = UInt32(truncatingIfNeeded: form)
                        spec += 1
                    }
                    entry.specEnd = Int32(spec)
                    entry.isValid = true
                    entry.isScope =
                        entry.tag == DWARFTag.subprogram || entry.tag == DWARFTag.inlinedSubroutine
                        || (entry.hasChildren && DWARFTag.isContainer(entry.tag))
                    // The last definition of a code wins, as the appending decode had it.
                    entries[Int(code)] = entry
                }
            }
        }
        self.entries = entries
        specNames = names
        specForms = forms
    }
}
