/// Reads thin and fat (32- and 64-bit header) Mach-O files.
enum MachOReader {
    static let magic32: UInt32 = 0xfeed_face
    static let magic64: UInt32 = 0xfeed_facf
    static let fatMagic: UInt32 = 0xcafe_babe
    static let fatMagic64: UInt32 = 0xcafe_babf

    /// Far above any real file (a dSYM has a dozen load commands), far below what would make a
    /// hostile header expensive.
    static let maxLoadCommands = 65_536
    /// `nlist.n_sect` is one byte, so a slice cannot number more sections (ld64 refuses more too).
    static let maxSections = 255

    /// True when the first bytes are a Mach-O or fat header (either byte order).
    static func looksLikeMachO(_ head: UnsafeRawBufferPointer) -> Bool {
        guard head.count >= 4 else { return false }
        let little = UInt32(littleEndian: head.loadUnaligned(as: UInt32.self))
        let big = UInt32(bigEndian: head.loadUnaligned(as: UInt32.self))
        return little == magic32 || little == magic64 || big == magic32 || big == magic64 || big == fatMagic
            || big == fatMagic64
    }

    /// Every slice of the file, each with its UUID, text base and DWARF sections.
    static func slices(of view: ByteView) throws(SymbolizeError) -> [MachOSlice] {
        let magicBE = try view.u32(0, bigEndian: true)
        if magicBE == fatMagic || magicBE == fatMagic64 {
            let is64 = magicBE == fatMagic64
            let count = Int(try view.u32(4, bigEndian: true))
            let entrySize = is64 ? 32 : 20
            guard count > 0, count <= 64 else {
                throw SymbolizeError.corrupt(path: view.path, "fat header claims \(count) slices")
            }
            try view.check(8, count * entrySize, "the fat header's slice table")
            var slices: [MachOSlice] = []
            var claimed: [(Int, Int)] = []
            for index in 0..<count {
                let entry = 8 + index * entrySize
                let offset: UInt64
                let size: UInt64
                if is64 {
                    offset = try view.u64(entry + 8, bigEndian: true)
                    size = try view.u64(entry + 16, bigEndian: true)
                } else {
                    offset = UInt64(try view.u32(entry + 8, bigEndian: true))
                    size = UInt64(try view.u32(entry + 12, bigEndian: true))
                }
                guard offset <= UInt64(view.count), size <= UInt64(view.count) - offset, size >= 28 else {
                    throw SymbolizeError.corrupt(path: view.path, "fat slice \(index) (offset \(offset), size \(size)) lies outside the file")
                }
                let start = Int(offset)
                let end = start + Int(size)
                if start < 8 + count * entrySize || claimed.contains(where: { start < $0.1 && $0.0 < end }) {
                    throw SymbolizeError.corrupt(path: view.path, "fat slice \(index) overlaps the header or another slice")
                }
                claimed.append((start, end))
                slices.append(try slice(of: view, at: start, size: Int(size)))
            }
            return slices
        }
        return [try slice(of: view, at: 0, size: view.count)]
    }

    private static func slice(of view: ByteView, at base: Int, size: Int) throws(SymbolizeError) -> MachOSlice {
        let magic = try view.u32(base)
        guard magic == magic32 || magic == magic64 else {
            if magic.byteSwapped == magic32 || magic.byteSwapped == magic64 {
                throw SymbolizeError.unsupported(path: view.path, "big-endian Mach-O slice at byte \(base) is not supported")
            }
            throw SymbolizeError.corrupt(path: view.path, "no Mach-O header at byte \(base)")
        }
        let is64 = magic == magic64
        var slice = MachOSlice(
            path: view.path, sliceOffset: base, sliceSize: size, cpuType: Int32(bitPattern: try view.u32(base + 4)),
            cpuSubtype: Int32(bitPattern: try view.u32(base + 8)), is64Bit: is64)
        let commandCount = Int(try view.u32(base + 16))
        let commandsSize = Int(try view.u32(base + 20))
        guard commandCount <= maxLoadCommands else {
            throw SymbolizeError.corrupt(
                path: view.path, "the slice at byte \(base) claims \(commandCount) load commands (at most \(maxLoadCommands) are read)")
        }
        var cursor = base + (is64 ? 32 : 28)
        let commandsEnd = cursor + commandsSize
        guard commandsEnd <= base + size else {
            throw SymbolizeError.corrupt(path: view.path, "load commands (\(commandsSize) bytes) run past the end of the slice")
        }
        for index in 0..<commandCount {
            guard cursor + 8 <= commandsEnd else {
                throw SymbolizeError.corrupt(path: view.path, "load command \(index) at byte \(cursor) runs past the load commands")
            }
            let command = try view.u32(cursor)
            let commandSize = Int(try view.u32(cursor + 4))
            guard commandSize >= 8, cursor + commandSize <= commandsEnd else {
                throw SymbolizeError.corrupt(
                    path: view.path, "load command \(index) at byte \(cursor) has size \(commandSize), past the load commands")
            }
            switch command {
            case 0x1b:  // LC_UUID
                try view.check(cursor + 8, 16, "LC_UUID")
                if slice.uuid == nil {
                    slice.uuid = UUIDText.canonical(Array(view.bytes[(cursor + 8)..<(cursor + 24)]))
                }
            case 0x19, 0x1:  // LC_SEGMENT_64, LC_SEGMENT
                try readSegment(view, at: cursor, size: commandSize, is64: command == 0x19, base: base, into: &slice)
            case 0x2:  // LC_SYMTAB
                try view.check(cursor, 24, "LC_SYMTAB")
                slice.symbolTable = (
                    Int(try view.u32(cursor + 8)), Int(try view.u32(cursor + 12)), Int(try view.u32(cursor + 16)),
                    Int(try view.u32(cursor + 20))
                )
            default:
                break
            }
            cursor += commandSize
        }
        return slice
    }

    private static func readSegment(
        _ view: ByteView, at cursor: Int, size: Int, is64: Bool, base: Int, into slice: inout MachOSlice
    ) throws(SymbolizeError) {
        let segmentName = try view.fixedName(cursor + 8)
        let vmAddress: UInt64
        let fileOffset: UInt64
        let sectionCount: Int
        let headerSize = is64 ? 72 : 56
        let sectionSize = is64 ? 80 : 68
        if is64 {
            vmAddress = try view.u64(cursor + 24)
            fileOffset = try view.u64(cursor + 40)
            sectionCount = Int(try view.u32(cursor + 64))
        } else {
            vmAddress = UInt64(try view.u32(cursor + 24))
            fileOffset = UInt64(try view.u32(cursor + 32))
            sectionCount = Int(try view.u32(cursor + 48))
        }
        guard headerSize + sectionCount * sectionSize <= size else {
            throw SymbolizeError.corrupt(path: view.path, "segment \(segmentName) at byte \(cursor) lists \(sectionCount) sections past its command")
        }
        guard slice.sections.count + sectionCount <= maxSections else {
            throw SymbolizeError.corrupt(
                path: view.path,
                "segment \(segmentName) at byte \(cursor) brings the slice past \(maxSections) sections (a symbol's section number is one byte)")
        }
        if segmentName == "__TEXT" { slice.textVMAddress = vmAddress }
        for index in 0..<sectionCount {
            let header = cursor + headerSize + index * sectionSize
            let sectionName = try view.fixedName(header)
            let owner = try view.fixedName(header + 16)
            let sectionAddress = is64 ? try view.u64(header + 32) : UInt64(try view.u32(header + 32))
            let sectionLength = is64 ? try view.u64(header + 40) : UInt64(try view.u32(header + 36))
            slice.sections.append((owner, sectionAddress, sectionLength))
            if owner == "__TEXT", sectionName == "__text" { slice.codeBytes &+= sectionLength }
            guard owner == "__DWARF", sectionName.hasPrefix("__"), !sectionName.hasPrefix("__apple_"),
                sectionName != "__swift_ast"
            else { continue }
            let address: UInt64
            let length: UInt64
            var offset: UInt64
            if is64 {
                address = try view.u64(header + 32)
                length = try view.u64(header + 40)
                offset = UInt64(try view.u32(header + 48))
                // The 32-bit section offset wraps in slices over 4 GiB; the segment's 64-bit one does not.
                if fileOffset > UInt64(UInt32.max), address >= vmAddress {
                    let (sum, overflow) = fileOffset.addingReportingOverflow(address - vmAddress)
                    guard !overflow else {
                        throw SymbolizeError.corrupt(
                            path: view.path, "section __DWARF,\(sectionName) at byte \(header) lies past 2^64 (segment offset \(fileOffset))")
                    }
                    offset = sum
                }
            } else {
                address = UInt64(try view.u32(header + 32))
                length = UInt64(try view.u32(header + 36))
                offset = UInt64(try view.u32(header + 40))
            }
            guard offset != 0, length > 0 else { continue }  // dsymutil's stub headers
            guard offset <= UInt64(slice.sliceSize), length <= UInt64(slice.sliceSize) - offset else {
                throw SymbolizeError.corrupt(
                    path: view.path, "section __DWARF,\(sectionName) (offset \(offset), size \(length)) runs past the end of its slice")
            }
            var elfName = "." + sectionName.dropFirst(2)
            if sectionName == "__debug_str_offs" { elfName = ".debug_str_offsets" }
            slice.dwarfSections.append(
                DWARFSection(elfName: elfName, fileOffset: base + Int(offset), size: Int(length)))
            // The lift copies every section: overlapping sections would multiply a file's size in
            // memory (255 sections over a 1 GB dSYM), so together they must fit in the slice.
            let dwarfBytes = slice.dwarfSections.reduce(0) { $0 + $1.size }
            guard dwarfBytes <= slice.sliceSize else {
                throw SymbolizeError.corrupt(
                    path: view.path, "the __DWARF sections claim \(dwarfBytes) bytes, more than the slice's \(slice.sliceSize) (they overlap)")
            }
        }
    }

    /// Function symbols of the slice's `LC_SYMTAB` (`N_SECT` entries in `__TEXT`), sorted, names
    /// pointing past the leading `_` Mach-O adds; sizes run to the next symbol or the section end.
    /// A string table that does not end in NUL is refused, so every name read stops inside it.
    static func functionSymbols(of slice: MachOSlice, view: ByteView) -> [SymbolEntry] {
        // No code, no function: Apple's empty dSYMs (symbolic's `libswiftCoreImage.dylib`) keep one
        // `_hidden#5_` symbol in `__TEXT,__const` and an empty `__text`; an address there is "not found".
        guard let table = slice.symbolTable, slice.codeBytes > 0 else { return [] }
        let entrySize = slice.is64Bit ? 16 : 12
        let base = slice.sliceOffset
        guard (try? view.check(base + table.offset, table.count * entrySize, "the symbol table")) != nil,
            (try? view.check(base + table.stringsOffset, table.stringsSize, "the string table")) != nil,
            table.stringsSize > 0, view.bytes[base + table.stringsOffset + table.stringsSize - 1] == 0
        else { return [] }
        var result: [SymbolEntry] = []
        for index in 0..<table.count {
            let entry = base + table.offset + index * entrySize
            guard let nameOffset = try? view.u32(entry) else { break }
            let type = view.bytes[entry + 4]
            let section = Int(view.bytes[entry + 5])
            guard type & 0xe0 == 0, type & 0x0e == 0x0e, section >= 1, section <= slice.sections.count,
                slice.sections[section - 1].segment == "__TEXT", Int(nameOffset) < table.stringsSize
            else { continue }
            let value = slice.is64Bit ? (try? view.u64(entry + 8)) ?? 0 : UInt64((try? view.u32(entry + 8)) ?? 0)
            // `__mh_execute_header` claims __text but sits at the header: keep symbols inside their section.
            let owner = slice.sections[section - 1]
            guard value >= owner.address, value - owner.address < owner.size else { continue }
            var start = base + table.stringsOffset + Int(nameOffset)
            if view.bytes[start] == UInt8(ascii: "_") { start += 1 }  // Mach-O's extra leading underscore
            // What is left of the section past the symbol; `address + size` itself may pass 2^64 in a hostile file.
            result.append(SymbolEntry(address: value, size: owner.size - (value - owner.address), nameOffset: start))
        }
        result.sort { $0.address < $1.address }
        for index in result.indices.dropLast() {
            result[index].size = min(result[index].size, result[index + 1].address - result[index].address)
        }
        return result
    }

    /// An ELF image of the slice's DWARF sections, for libdw (see `LiftedELFImage`).
    static func liftedELFImage(of slice: MachOSlice, view: ByteView) -> UnsafeMutableRawBufferPointer {
        LiftedELFImage.build(of: slice, view: view)
    }
}
