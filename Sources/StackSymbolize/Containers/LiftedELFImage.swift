/// An ELF image holding a Mach-O slice's DWARF sections under their ELF names, so libdw reads a
/// dSYM as it reads an ELF file. Linked DWARF holds absolute addresses: no relocation is needed.
///
/// Layout: the ELF header, each section's bytes (8-byte aligned), the section name table, then
/// the section headers (a null one, one per DWARF section, `.shstrtab`).
struct LiftedELFImage {
    private let is64: Bool
    private let headerSize: Int
    private let sectionHeaderSize: Int
    /// The section name table, and where each DWARF section's name and `.shstrtab`'s start in it.
    private var names: [UInt8] = [0]
    private var nameOffsets: [Int] = []
    private var shstrtabName = 0
    private var dataOffsets: [Int] = []
    private var namesOffset = 0
    private var sectionHeadersOffset = 0
    private let sectionCount: Int
    private let image: UnsafeMutableRawBufferPointer

    /// Builds the image of `slice` (the caller owns the memory returned).
    static func build(of slice: MachOSlice, view: ByteView) -> UnsafeMutableRawBufferPointer {
        let lifted = LiftedELFImage(slice)
        lifted.writeHeader(machine: elfMachine(slice.cpuType))
        lifted.writeSections(of: slice, view: view)
        return lifted.image
    }

    /// Lays the image out and allocates it, zero-filled.
    private init(_ slice: MachOSlice) {
        is64 = slice.is64Bit
        headerSize = is64 ? 64 : 52
        sectionHeaderSize = is64 ? 64 : 40
        for section in slice.dwarfSections {
            nameOffsets.append(names.count)
            names.append(contentsOf: Array(section.elfName.utf8) + [0])
        }
        shstrtabName = names.count
        names.append(contentsOf: Array(".shstrtab".utf8) + [0])
        var cursor = headerSize
        for section in slice.dwarfSections {
            cursor = (cursor + 7) & ~7
            dataOffsets.append(cursor)
            cursor += section.size
        }
        namesOffset = cursor
        cursor += names.count
        sectionHeadersOffset = (cursor + 7) & ~7
        sectionCount = slice.dwarfSections.count + 2
        let total = sectionHeadersOffset + sectionCount * sectionHeaderSize
        image = UnsafeMutableRawBufferPointer.allocate(byteCount: total, alignment: 16)
        image.initializeMemory(as: UInt8.self, repeating: 0)
    }

    /// The ELF machine of a Mach-O CPU type.
    private static func elfMachine(_ cpuType: Int32) -> Int {
        switch cpuType {
        case MachOCPU.arm64, MachOCPU.arm64_32: return 183
        case MachOCPU.x86_64: return 62
        case MachOCPU.x86: return 3
        case MachOCPU.arm: return 40
        default: return 0
        }
    }

    private func put16(_ value: Int, _ at: Int) { image.storeBytes(of: UInt16(value).littleEndian, toByteOffset: at, as: UInt16.self) }
    private func put32(_ value: Int, _ at: Int) { image.storeBytes(of: UInt32(value).littleEndian, toByteOffset: at, as: UInt32.self) }
    private func putWord(_ value: Int, _ at: Int) {
        if is64 {
            image.storeBytes(of: UInt64(value).littleEndian, toByteOffset: at, as: UInt64.self)
        } else {
            put32(value, at)
        }
    }

    private func writeHeader(machine: Int) {
        // e_ident: ELF magic, class, little-endian, version 1.
        for (index, byte) in [0x7f, 0x45, 0x4c, 0x46, is64 ? 2 : 1, 1, 1].enumerated() {
            image[index] = UInt8(byte)
        }
        put16(2, 16)  // ET_EXEC: ET_REL would make libdw look for relocations.
        put16(machine, 18)
        put32(1, 20)
        let word = is64 ? 8 : 4
        putWord(sectionHeadersOffset, 24 + 2 * word)  // e_shoff
        let tail = 24 + 3 * word + 4  // after e_flags
        put16(headerSize, tail)
        put16(0, tail + 2)
        put16(0, tail + 4)
        put16(sectionHeaderSize, tail + 6)
        put16(sectionCount, tail + 8)
        put16(sectionCount - 1, tail + 10)
    }

    /// Copies each DWARF section and the name table in, and writes the section headers.
    private func writeSections(of slice: MachOSlice, view: ByteView) {
        for (index, section) in slice.dwarfSections.enumerated() {
            let source = UnsafeRawBufferPointer(rebasing: view.bytes[section.fileOffset..<(section.fileOffset + section.size)])
            UnsafeMutableRawBufferPointer(rebasing: image[dataOffsets[index]..<(dataOffsets[index] + section.size)])
                .copyMemory(from: source)
        }
        UnsafeMutableRawBufferPointer(rebasing: image[namesOffset..<(namesOffset + names.count)])
            .copyBytes(from: names)
        for (index, section) in slice.dwarfSections.enumerated() {
            sectionHeader(index + 1, name: nameOffsets[index], type: 1, offset: dataOffsets[index], size: section.size)
        }
        sectionHeader(sectionCount - 1, name: shstrtabName, type: 3, offset: namesOffset, size: names.count)
    }

    private func sectionHeader(_ index: Int, name: Int, type: Int, offset: Int, size: Int) {
        let at = sectionHeadersOffset + index * sectionHeaderSize
        put32(name, at)
        put32(type, at + 4)
        if is64 {
            putWord(offset, at + 24)
            putWord(size, at + 32)
            putWord(1, at + 48)
        } else {
            put32(offset, at + 16)
            put32(size, at + 20)
            put32(1, at + 32)
        }
    }
}
