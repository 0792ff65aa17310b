/// Finding an ELF file's sections by name.
enum ElfSectionLookup {
    /// The file offset and size of the first section named `wanted`, and whether it is compressed.
    static func section(named wanted: String, in elf: ElfHandle) -> (offset: UInt64, size: UInt64, compressed: Bool)? {
        guard let section = elf.sections().first(where: { $0.name == wanted }) else { return nil }
        return (section.offset, section.size, section.flags & ElfNumber.flagCompressed != 0)
    }

    /// The sections `DebugInfoBytes` reads, as stored: nil unless `.debug_info` and
    /// `.debug_abbrev` are there uncompressed (a compressed string or list section is left out,
    /// and what needs it goes to libdw). The first section of a name counts, as in libdw.
    static func debugInfoSections(in elf: ElfHandle) -> DebugInfoSections? {
        var found: [String: UnsafeRawBufferPointer] = [:]
        let wanted: Set<String> = [
            ".debug_info", ".debug_abbrev", ".debug_str", ".debug_line_str", ".debug_str_offsets", ".debug_ranges", ".debug_rnglists",
            ".debug_addr",
        ]
        var seen: Set<String> = []
        for section in elf.sections() {
            guard let name = section.name, wanted.contains(name), seen.insert(name).inserted else { continue }
            guard section.type == ElfNumber.sectionProgramBits, section.flags & ElfNumber.flagCompressed == 0,
                let bytes = elf.contents(of: section)
            else { continue }
            found[name] = bytes
        }
        guard let info = found[".debug_info"], let abbrev = found[".debug_abbrev"] else { return nil }
        return DebugInfoSections(
            info: info, abbrev: abbrev, strings: found[".debug_str"], lineStrings: found[".debug_line_str"],
            stringOffsets: found[".debug_str_offsets"],
            lists: RangeListSections(ranges: found[".debug_ranges"], rangeLists: found[".debug_rnglists"], addresses: found[".debug_addr"]))
    }

    /// The bytes of the section named `name` as stored, nil when it is absent or compressed.
    static func rawSection(named name: String, in elf: ElfHandle) -> UnsafeRawBufferPointer? {
        for section in elf.sections()
        where section.type == ElfNumber.sectionProgramBits && section.flags & ElfNumber.flagCompressed == 0 && section.name == name {
            return elf.contents(of: section)
        }
        return nil
    }
}
