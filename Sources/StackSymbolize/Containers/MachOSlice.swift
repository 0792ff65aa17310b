/// Mach-O CPU types of the slices we meet (`mach/machine.h`).
enum MachOCPU {
    static let x86: Int32 = 7
    static let x86_64: Int32 = 0x0100_0007
    static let arm: Int32 = 12
    static let arm64: Int32 = 0x0100_000c
    static let arm64_32: Int32 = 0x0200_000c

    static func name(_ type: Int32, subtype: Int32) -> String {
        switch type {
        case x86: return "i386"
        case x86_64: return "x86_64"
        case arm: return "armv7"
        case arm64: return (subtype & 0xff) == 2 ? "arm64e" : "arm64"
        case arm64_32: return "arm64_32"
        default: return "cpu\(type)"
        }
    }
}

/// A DWARF section of a Mach-O slice, under its ELF name.
struct DWARFSection {
    var elfName: String
    /// Offset from the start of the file (not the slice).
    var fileOffset: Int
    var size: Int
}

/// One architecture of a Mach-O file: what symbolication needs from its load commands.
struct MachOSlice {
    var path: String
    /// Where the slice starts in the file (0 for a thin file).
    var sliceOffset: Int
    var sliceSize: Int
    var cpuType: Int32
    var cpuSubtype: Int32
    var is64Bit: Bool
    var uuid: String?
    /// `__TEXT` vmaddr: the base MetricKit offsets are relative to.
    var textVMAddress: UInt64 = 0
    var dwarfSections: [DWARFSection] = []
    /// `LC_SYMTAB`, offsets relative to the slice.
    var symbolTable: (offset: Int, count: Int, stringsOffset: Int, stringsSize: Int)?
    /// Every section in load-command order (`n_sect` indexes this, from 1): its segment and range.
    var sections: [(segment: String, address: UInt64, size: UInt64)] = []
    /// Bytes of `__TEXT,__text`: 0 in a dSYM of a library with no code.
    var codeBytes: UInt64 = 0

    var architecture: String { MachOCPU.name(cpuType, subtype: cpuSubtype) }

    /// Whether the slice has DWARF to read: a `__debug_info` with bytes in it. Apple ships dSYMs
    /// whose `__DWARF` segment holds only a one-byte abbreviation table and the `__apple_*`
    /// tables (symbolic's `libswiftCoreImage.dylib`): no code, no DWARF, nothing to refuse.
    var hasDebugInfo: Bool { dwarfSections.contains { $0.elfName == ".debug_info" && $0.size > 0 } }
}
