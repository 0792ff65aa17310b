internal import CElfutils
import Foundation
import SystemIO

// Thin wrappers over libelf (this file) and libdw (`LibDW.swift`), the only two files that talk to
// elfutils. What they hand out is a Swift value or one of the final classes below, which own the C
// handles; libelf's refusals become `SymbolizeError`s here.

private let libelfReady: Bool = elf_version(UInt32(EV_CURRENT)) != UInt32(EV_NONE)

/// libelf's text for its last error.
func libelfMessage() -> String {
    String(cString: elf_errmsg(-1))
}

/// The ELF and DWARF numbers the readers compare against, as elfutils' headers define them.
enum ElfNumber {
    static let sectionProgramBits = UInt32(SHT_PROGBITS)
    static let sectionSymbolTable = UInt32(SHT_SYMTAB)
    static let sectionDynamicSymbols = UInt32(SHT_DYNSYM)
    static let sectionStringTable = UInt32(SHT_STRTAB)
    static let flagCompressed = UInt64(SHF_COMPRESSED)
    static let flagExecutable = UInt64(SHF_EXECINSTR)
    static let segmentLoad = UInt32(PT_LOAD)
    static let symbolFunction = UInt8(STT_FUNC)
    static let symbolIndirectFunction = UInt8(STT_GNU_IFUNC)
    static let sectionUndefined = UInt16(SHN_UNDEF)
    static let sectionReservedLow = UInt16(SHN_LORESERVE)
}

/// An ELF section header, with its name.
struct ElfSection {
    var index: Int
    /// Where the name starts in the section name table.
    var nameIndex: UInt32
    var name: String?
    var type: UInt32
    var flags: UInt64
    var address: UInt64
    var offset: UInt64
    var size: UInt64
    var link: UInt32
    var entrySize: UInt64
}

/// A symbol-table entry as stored.
struct ElfSymbol {
    var value: UInt64
    var size: UInt64
    /// `STT_*`, the low four bits of `st_info`.
    var type: UInt8
    var sectionIndex: UInt16
    var nameOffset: UInt32
}

/// libelf's handle on an ELF file on disk (mapped by libelf) or an ELF image built in memory
/// (owned here, freed after libelf is done with it).
final class ElfHandle {
    let path: String
    /// libelf's `Elf *`, for `DwarfHandle` alone.
    let elf: OpaquePointer
    private var descriptor: Int32 = -1
    private let image: UnsafeMutableRawBufferPointer?

    /// Opens an ELF file read-only; libelf maps it.
    init(path: String) throws(SymbolizeError) {
        self.path = path
        image = nil
        guard libelfReady else { throw SymbolizeError.elfutilsRefused(path: path, "libelf refused version EV_CURRENT") }
        let descriptor = try SystemCall.openForReading(path)
        guard let elf = elf_begin(descriptor, ELF_C_READ_MMAP, nil) else {
            let message = libelfMessage()
            FileIO.close(descriptor)
            throw SymbolizeError.elfutilsRefused(path: path, "not an ELF file libelf can read (\(message))")
        }
        guard elf_kind(elf) == ELF_K_ELF else {
            elf_end(elf)
            FileIO.close(descriptor)
            throw SymbolizeError.unsupported(path: path, "not an ELF file")
        }
        self.elf = elf
        self.descriptor = descriptor
    }

    /// Takes ownership of `image`, an ELF image built in memory.
    init(image: UnsafeMutableRawBufferPointer, path: String) throws(SymbolizeError) {
        self.path = path
        self.image = image
        guard libelfReady else {
            image.deallocate()
            throw SymbolizeError.elfutilsRefused(path: path, "libelf refused version EV_CURRENT")
        }
        guard let elf = elf_memory(image.baseAddress!.assumingMemoryBound(to: CChar.self), image.count) else {
            let message = libelfMessage()
            image.deallocate()
            throw SymbolizeError.elfutilsRefused(path: path, "libelf rejected the lifted DWARF image (\(message))")
        }
        self.elf = elf
    }

    deinit {
        elf_end(elf)
        if descriptor >= 0 { FileIO.close(descriptor) }
        image?.deallocate()
    }

    /// True for an image built in memory (no file on disk behind it).
    var isInMemory: Bool { image != nil }

    /// The open file's identity (nil for an image built in memory).
    func fileIdentity() -> FileIdentity? {
        descriptor >= 0 ? FileIdentity(descriptor: descriptor) : nil
    }

    /// The whole file as libelf mapped it (or the image).
    func rawBytes() -> UnsafeRawBufferPointer? {
        var size = 0
        guard let base = elf_rawfile(elf, &size) else { return nil }
        return UnsafeRawBufferPointer(start: base, count: size)
    }

    /// Drops libelf's mapping of the file from resident memory (nothing for an image in memory,
    /// which is the only copy of its bytes). libelf maps with `ELF_C_READ_MMAP`, read-only.
    func releaseResidentPages() {
        guard image == nil, let bytes = rawBytes() else { return }
        MemoryMapping.dropResidentPages(bytes)
    }

    /// The ELF header's fields the readers use, or nil when libelf cannot read it.
    func header() -> (machine: Int, sectionHeaderOffset: UInt64, programHeaderOffset: UInt64)? {
        var header = GElf_Ehdr()
        guard gelf_getehdr(elf, &header) != nil else { return nil }
        return (Int(header.e_machine), header.e_shoff, header.e_phoff)
    }

    /// The number of section headers, or nil when libelf cannot tell.
    func sectionCount() -> Int? {
        var count = 0
        return elf_getshdrnum(elf, &count) == 0 ? count : nil
    }

    /// The number of program headers, or nil when libelf cannot tell.
    func segmentCount() -> Int? {
        var count = 0
        return elf_getphdrnum(elf, &count) == 0 ? count : nil
    }

    /// True when libelf can reach the section at `index` (its header lies inside the file).
    func hasSection(at index: Int) -> Bool { elf_getscn(elf, index) != nil }

    /// The program header at `index`: its type and virtual address.
    func segment(at index: Int) -> (type: UInt32, virtualAddress: UInt64)? {
        var header = GElf_Phdr()
        guard gelf_getphdr(elf, Int32(index), &header) != nil else { return nil }
        return (header.p_type, header.p_vaddr)
    }

    /// Every section whose header libelf can read, in file order; names are nil when the section
    /// name table cannot be found.
    func sections() -> [ElfSection] {
        var namesIndex = 0
        let hasNames = elf_getshdrstrndx(elf, &namesIndex) == 0
        var result: [ElfSection] = []
        var section = elf_nextscn(elf, nil)
        while let current = section {
            if var found = Self.section(current) {
                if hasNames, let name = elf_strptr(elf, namesIndex, Int(found.nameIndex)) {
                    found.name = String(cString: name)
                }
                result.append(found)
            }
            section = elf_nextscn(elf, current)
        }
        return result
    }

    /// The section at `index`, without its name.
    func section(at index: Int) -> ElfSection? {
        guard let section = elf_getscn(elf, index) else { return nil }
        return Self.section(section)
    }

    private static func section(_ section: OpaquePointer) -> ElfSection? {
        var header = GElf_Shdr()
        guard gelf_getshdr(section, &header) != nil else { return nil }
        return ElfSection(
            index: elf_ndxscn(section), nameIndex: header.sh_name, name: nil, type: header.sh_type, flags: header.sh_flags, address: header.sh_addr,
            offset: header.sh_offset, size: header.sh_size, link: header.sh_link, entrySize: header.sh_entsize)
    }

    /// The section's bytes as libelf holds them (in place for an uncompressed section).
    func contents(of section: ElfSection) -> UnsafeRawBufferPointer? {
        guard let scn = elf_getscn(elf, section.index), let data = elf_getdata(scn, nil) else { return nil }
        guard let buffer = data.pointee.d_buf else { return nil }
        return UnsafeRawBufferPointer(start: buffer, count: Int(data.pointee.d_size))
    }

    /// The entries of a symbol table section (those libelf can read), or nil when its data cannot
    /// be had.
    func symbols(of section: ElfSection) -> [ElfSymbol]? {
        guard section.entrySize > 0, let scn = elf_getscn(elf, section.index), let data = elf_getdata(scn, nil) else { return nil }
        let count = Int(section.size / section.entrySize)
        var result: [ElfSymbol] = []
        result.reserveCapacity(count)
        for index in 0..<count {
            var symbol = GElf_Sym()
            guard gelf_getsym(data, Int32(index), &symbol) != nil else { continue }
            result.append(
                ElfSymbol(
                    value: symbol.st_value, size: symbol.st_size, type: symbol.st_info & 0xf, sectionIndex: symbol.st_shndx,
                    nameOffset: symbol.st_name))
        }
        return result
    }

    /// The GNU build-id bytes, if the file has one.
    func gnuBuildID() -> [UInt8]? {
        var pointer: UnsafeRawPointer?
        let length = dwelf_elf_gnu_build_id(elf, &pointer)
        guard length > 0, let pointer else { return nil }
        return Array(UnsafeRawBufferPointer(start: pointer, count: length))
    }

}

@available(*, unavailable) extension ElfHandle: Sendable {}
