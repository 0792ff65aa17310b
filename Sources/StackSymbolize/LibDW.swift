internal import CElfutils
import Foundation

// The only file that talks to elfutils. Everything it hands out is a Swift value type or one of the
// final classes below; libdw's and libelf's errors become `SymbolizeError`s here.

private let libelfReady: Bool = elf_version(UInt32(EV_CURRENT)) != UInt32(EV_NONE)

private func libdwMessage() -> String {
    String(cString: dwarf_errmsg(-1))
}

private func libelfMessage() -> String {
    String(cString: elf_errmsg(-1))
}

/// One address range of a unit or a function, half-open.
struct AddressRange: Sendable, Hashable {
    var low: UInt64
    var high: UInt64
}

/// A unit's address ranges, taken from its unit DIE alone (no `.debug_aranges` needed).
struct UnitRanges: Sendable {
    var unitDIEOffset: UInt64
    var ranges: [AddressRange]
}

/// A function or inlined call found while walking a unit, kept as plain numbers so the tree can be
/// searched without libdw and stored in an index.
struct ScopeNode: Sendable {
    var dieOffset: UInt64
    /// -1 for a top-level function.
    var parent: Int32
    var firstChild: Int32 = -1
    var nextSibling: Int32 = -1
    var isInlined: Bool
    /// `DW_AT_call_file` index into the unit's file table, -1 when absent.
    var callFile: Int32
    var callLine: Int32
    var rangeStart: Int32
    var rangeCount: Int32
}

/// A unit decoded once: its function tree, its line table and its file names.
struct DecodedUnit: Sendable {
    var nodes: [ScopeNode] = []
    var nodeRanges: [AddressRange] = []
    /// (low, high, node) of top-level functions, sorted by `low`.
    var topLevel: [(low: UInt64, high: UInt64, node: Int32)] = []
    /// Line rows sorted by address; `lineFile` -1 marks an end-of-sequence row.
    var lineAddress: [UInt64] = []
    var lineNumber: [Int32] = []
    var lineFile: [Int32] = []
    /// File names of the line rows, indexed by `lineFile`.
    var lineFileNames: [String] = []
    /// The unit's file table (`DW_AT_call_file` indexes into it).
    var callFileNames: [String] = []
}

/// A symbol-table entry of a function. The name stays in the file: `nameOffset` is where its
/// NUL-terminated bytes start in the file's bytes, so loading 400,000 symbols makes no strings.
struct SymbolEntry: Sendable {
    var address: UInt64
    var size: UInt64
    var nameOffset: Int
}

/// An open DWARF reader over an ELF file on disk or an ELF image built in memory. Not thread-safe:
/// libdw's lazy caches are unsynchronized, so each thread opens its own.
final class DwarfReader {
    let path: String
    private var descriptor: Int32 = -1
    private var elf: OpaquePointer?
    private var dwarf: OpaquePointer?
    /// The in-memory ELF image, owned here and freed after libelf is done with it.
    private var image: UnsafeMutableRawBufferPointer?

    /// Opens an ELF file; libelf maps it and libdw reads its sections in place. With `openingDWARF`
    /// false only libelf opens it (enough for the build-id and machine: catalog scans and the warm
    /// path never pay for libdw's setup).
    init(elfPath path: String, openingDWARF: Bool = true) throws(SymbolizeError) {
        self.path = path
        guard libelfReady else { throw SymbolizeError.elfutilsRefused(path: path, "libelf refused version EV_CURRENT") }
        descriptor = try SystemCall.openForReading(path)
        elf = elf_begin(descriptor, ELF_C_READ_MMAP, nil)
        guard let elf else {
            let message = libelfMessage()
            close(descriptor)
            descriptor = -1
            throw SymbolizeError.elfutilsRefused(path: path, "not an ELF file libelf can read (\(message))")
        }
        guard elf_kind(elf) == ELF_K_ELF else {
            throw SymbolizeError.unsupported(path: path, "not an ELF file")
        }
        // libelf mapped the file: a SIGBUS past a new end (the file truncated under us) is caught.
        identity = FileIdentity(descriptor: descriptor)
        var mappedSize = 0
        if let mapped = elf_rawfile(elf, &mappedSize) { region = MappedRegions.register(mapped, count: mappedSize) }
        // Headers libelf cannot read leave it no sections or segments: no DWARF, no symbol table,
        // no text base, so the file would answer nothing (or wrongly) while looking fine.
        var header = GElf_Ehdr()
        var sectionCount = 0
        var segmentCount = 0
        guard gelf_getehdr(elf, &header) != nil, elf_getshdrnum(elf, &sectionCount) == 0,
            elf_getphdrnum(elf, &segmentCount) == 0
        else {
            throw SymbolizeError.corrupt(path: path, "the ELF headers cannot be read (\(libelfMessage()))")
        }
        if header.e_shoff != 0, sectionCount == 0 || elf_getscn(elf, sectionCount - 1) == nil {
            throw SymbolizeError.corrupt(path: path, "the ELF section header table (at byte \(header.e_shoff)) runs past the end of the file")
        }
        var firstSegment = GElf_Phdr()
        if header.e_phoff != 0, segmentCount > 0, gelf_getphdr(elf, 0, &firstSegment) == nil {
            throw SymbolizeError.corrupt(path: path, "the ELF program header table (at byte \(header.e_phoff)) runs past the end of the file")
        }
        // Catalog scans open files without DWARF (`openingDWARF` false): they only need the headers.
        if openingDWARF { dwarf = dwarf_begin_elf(elf, DWARF_C_READ, nil) }
        // A file without DWARF still has a symbol table to fall back on; one whose DWARF libdw
        // refuses (a section past the end of the file) is an error, not a silent fallback.
        if openingDWARF, dwarf == nil, let info = section(named: ".debug_info") {
            throw SymbolizeError.elfutilsRefused(path: path, "libdw cannot read the DWARF (.debug_info at byte \(info.offset), \(info.size) bytes): \(libdwMessage())")
        }
    }

    /// The file offset and size of a section, by name.
    private func section(named wanted: String) -> (offset: UInt64, size: UInt64, compressed: Bool)? {
        guard let elf else { return nil }
        var namesIndex = 0
        guard elf_getshdrstrndx(elf, &namesIndex) == 0 else { return nil }
        var section = elf_nextscn(elf, nil)
        while let current = section {
            var header = GElf_Shdr()
            if gelf_getshdr(current, &header) != nil, let name = elf_strptr(elf, namesIndex, Int(header.sh_name)),
                String(cString: name) == wanted
            {
                return (header.sh_offset, header.sh_size, header.sh_flags & UInt64(SHF_COMPRESSED) != 0)
            }
            section = elf_nextscn(elf, current)
        }
        return nil
    }

    /// Takes ownership of `image`, an ELF image built in memory from a Mach-O file's DWARF
    /// (`withDWARF` false: the slice has none, and no libdw handle is opened).
    init(elfImage image: UnsafeMutableRawBufferPointer, path: String, withDWARF: Bool = true) throws(SymbolizeError) {
        self.path = path
        self.image = image
        guard libelfReady else { throw SymbolizeError.elfutilsRefused(path: path, "libelf refused version EV_CURRENT") }
        elf = elf_memory(image.baseAddress!.assumingMemoryBound(to: CChar.self), image.count)
        guard let elf else {
            throw SymbolizeError.elfutilsRefused(path: path, "libelf rejected the lifted DWARF image (\(libelfMessage()))")
        }
        // A slice without DWARF (an app binary from an archive, a system library) still has its
        // symbol table: the image opens with no libdw handle and answers from the symbols.
        guard withDWARF else { return }
        dwarf = dwarf_begin_elf(elf, DWARF_C_READ, nil)
        guard dwarf != nil else {
            throw SymbolizeError.elfutilsRefused(path: path, "libdw cannot read the DWARF sections (\(libdwMessage()))")
        }
    }

    /// The file as it was when opened (nil for an image built in memory).
    private var identity: FileIdentity?
    private var region: Int?

    /// A read of libelf's mapping faulted past the file's end.
    var wasCutShort: Bool { MappedRegions.isDamaged(region) }

    /// True when the ELF file was truncated under libelf's mapping or is no longer the file opened.
    var fileHasChanged: Bool {
        guard image == nil else { return false }
        return MappedRegions.isDamaged(region) || FileIdentity(path: path) != identity
    }

    deinit {
        MappedRegions.unregister(region)
        if let dwarf { dwarf_end(dwarf) }
        if let elf { elf_end(elf) }
        if descriptor >= 0 { close(descriptor) }
        image?.deallocate()
    }

    var hasDWARF: Bool { dwarf != nil }

    /// The ELF file's GNU build-id bytes, if it has one.
    func buildID() -> [UInt8]? {
        guard let elf else { return nil }
        var pointer: UnsafeRawPointer?
        let length = dwelf_elf_gnu_build_id(elf, &pointer)
        guard length > 0, let pointer else { return nil }
        return Array(UnsafeRawBufferPointer(start: pointer, count: length))
    }

    /// The ELF header's machine, e.g. 62 for x86-64, 183 for AArch64.
    func machine() -> Int {
        guard let elf else { return 0 }
        var header = GElf_Ehdr()
        guard gelf_getehdr(elf, &header) != nil else { return 0 }
        return Int(header.e_machine)
    }

    /// The first `PT_LOAD` segment's virtual address: where the image's offsets start (SPEC section 6).
    func firstLoadAddress() -> UInt64 {
        guard let elf else { return 0 }
        var count = 0
        guard elf_getphdrnum(elf, &count) == 0 else { return 0 }
        for index in 0..<count {
            var header = GElf_Phdr()
            if gelf_getphdr(elf, Int32(index), &header) != nil, header.p_type == UInt32(PT_LOAD) {
                return header.p_vaddr
            }
        }
        return 0
    }

    /// Why the file's DWARF cannot be trusted (a unit header or unit DIE libdw cannot read, a unit
    /// running past the end of `.debug_info`): its answers would be silently wrong. Set by
    /// `unitDIEOffsets()` and `unitRanges(dieOffsets:)`.
    private(set) var dwarfProblem: String?

    /// Header-only units skipped by `unitDIEOffsets()`.
    private(set) var headerOnlyUnits = 0

    /// The offsets of every unit DIE in `.debug_info`, from the unit headers alone (cheap: no DIE
    /// is read). A unit that holds no DIE at all (its length covers the header only: older Apple
    /// dsymutil writes them for some Swift files) is skipped, as llvm-symbolizer skips it; it
    /// describes no code. A header libdw cannot read, or a unit running past the end of the
    /// section (a file cut short), sets `dwarfProblem`.
    func unitDIEOffsets() -> [UInt64] {
        guard let dwarf else { return [] }
        let info = section(named: ".debug_info")
        var result: [UInt64] = []
        var offset: Dwarf_Off = 0
        var index = 0
        headerOnlyUnits = 0
        while true {
            var next: Dwarf_Off = 0
            var headerSize = 0
            var version: Dwarf_Half = 0
            var abbrevOffset: Dwarf_Off = 0
            var addressSize: UInt8 = 0
            var offsetSize: UInt8 = 0
            // No type-signature pointer: given one, libdw walks `.debug_types` instead.
            let status = dwarf_next_unit(dwarf, offset, &next, &headerSize, &version, &abbrevOffset, &addressSize, &offsetSize, nil, nil)
            if status > 0 { break }
            if status < 0 {
                if let info, offset >= info.size { break }
                if dwarfProblem == nil {
                    dwarfProblem = "corrupt DWARF: the unit after \(index) readable unit(s) cannot be read (\(libdwMessage()))"
                }
                break
            }
            if let info, !info.compressed, next != Dwarf_Off.max, next > info.size {
                if dwarfProblem == nil {
                    dwarfProblem = "corrupt DWARF: unit \(index) at offset \(offset) of .debug_info ends at \(next), past the section's \(info.size) bytes (cut short?)"
                }
                break
            }
            let dieOffset = offset + Dwarf_Off(headerSize)
            if dieOffset < next {
                result.append(dieOffset)
            } else {
                headerOnlyUnits += 1
            }
            if next == Dwarf_Off.max || next <= offset { break }
            offset = next
            index += 1
        }
        return result
    }

    /// Every unit's address ranges from its unit DIE (`DW_AT_ranges` or low/high pc).
    func unitRanges() -> [UnitRanges] {
        unitRanges(dieOffsets: unitDIEOffsets()[...])
    }

    /// `unitRanges()` for some of the units (by unit DIE offset), so two threads can share the
    /// work. A unit DIE libdw cannot read sets `dwarfProblem`; type units are skipped.
    func unitRanges(dieOffsets: ArraySlice<UInt64>) -> [UnitRanges] {
        guard let dwarf else { return [] }
        var result: [UnitRanges] = []
        for dieOffset in dieOffsets {
            var unitDIE = Dwarf_Die()
            let tag = dwarf_offdie(dwarf, dieOffset, &unitDIE) != nil ? dwarf_tag(&unitDIE) : -1
            if tag <= 0 {
                if dwarfProblem == nil {
                    dwarfProblem = "corrupt DWARF: the unit DIE at offset \(dieOffset) cannot be read (\(libdwMessage()))"
                }
                continue
            }
            guard tag == Int32(DW_TAG_compile_unit) || tag == Int32(DW_TAG_partial_unit) || tag == Int32(DW_TAG_skeleton_unit)
            else { continue }
            let ranges = Self.ranges(of: &unitDIE)
            if !ranges.isEmpty { result.append(UnitRanges(unitDIEOffset: dieOffset, ranges: ranges)) }
        }
        return result
    }

    /// A problem found by another handle on the same file (the second thread of a batch).
    func adoptProblem(_ problem: String?) {
        if dwarfProblem == nil { dwarfProblem = problem }
    }

    /// Where an inlined call was made: `DW_AT_call_file` (an index into the unit's file table, -1
    /// when absent) and `DW_AT_call_line` (0 when absent).
    private static func callSite(of die: inout Dwarf_Die) -> (file: Int32, line: Int32) {
        var attribute = Dwarf_Attribute()
        var value: Dwarf_Word = 0
        var file: Int32 = -1
        var line: Int32 = 0
        if dwarf_attr(&die, UInt32(DW_AT_call_file), &attribute) != nil, dwarf_formudata(&attribute, &value) == 0 {
            file = Int32(truncatingIfNeeded: value)
        }
        if dwarf_attr(&die, UInt32(DW_AT_call_line), &attribute) != nil, dwarf_formudata(&attribute, &value) == 0 {
            line = Int32(truncatingIfNeeded: value)
        }
        return (file, line)
    }

    private static func ranges(of die: inout Dwarf_Die) -> [AddressRange] {
        var result: [AddressRange] = []
        var base: Dwarf_Addr = 0
        var start: Dwarf_Addr = 0
        var end: Dwarf_Addr = 0
        var offset = dwarf_ranges(&die, 0, &base, &start, &end)
        while offset > 0 {
            if end > start { result.append(AddressRange(low: start, high: end)) }
            offset = dwarf_ranges(&die, offset, &base, &start, &end)
        }
        return result
    }

    /// Walks one unit's DIE tree once and reads its line table.
    ///
    /// - Parameter wanted: when given (sorted), only the functions holding one of these addresses
    ///   are descended into and only their line rows are kept: a cold batch pays for what it asks.
    func decodeUnit(at unitDIEOffset: UInt64, wanted: [UInt64]? = nil, walkingBytes: Bool = true) -> DecodedUnit {
        var unit = DecodedUnit()
        guard let dwarf else { return unit }
        var unitDIE = Dwarf_Die()
        guard dwarf_offdie(dwarf, unitDIEOffset, &unitDIE) != nil else { return unit }
        readLines(of: &unitDIE, wanted: wanted, into: &unit)
        if !walkingBytes || !readScopesFromBytes(of: &unitDIE, wanted: wanted, into: &unit) {
            if walkingBytes { unitsWalkedByLibdw += 1 }
            readScopes(of: &unitDIE, wanted: wanted, into: &unit)
        }
        unit.topLevel.sort { $0.low < $1.low }
        return unit
    }

    /// True when a sorted address list has one in `ranges`.
    private static func holdsWanted(_ ranges: [AddressRange], _ wanted: [UInt64]) -> Bool {
        for range in ranges {
            var low = 0
            var high = wanted.count
            while low < high {
                let middle = (low + high) / 2
                if wanted[middle] < range.low { low = middle + 1 } else { high = middle }
            }
            if low < wanted.count, wanted[low] < range.high { return true }
        }
        return false
    }

    private func readLines(of unitDIE: inout Dwarf_Die, wanted: [UInt64]?, into unit: inout DecodedUnit) {
        let compDir = Self.compilationDirectory(of: &unitDIE)
        var lines: OpaquePointer? = nil
        var count = 0
        if dwarf_getsrclines(&unitDIE, &lines, &count) == 0, let lines {
            var rows: [Int] = []
            if let wanted {
                // Only the row each wanted address falls in: the last one at or before it.
                func address(_ index: Int) -> Dwarf_Addr {
                    var value: Dwarf_Addr = 0
                    if let line = dwarf_onesrcline(lines, index) { dwarf_lineaddr(line, &value) }
                    return value
                }
                var previous = -1
                for target in wanted {
                    var low = 0
                    var high = count
                    while low < high {
                        let middle = (low + high) / 2
                        if address(middle) <= target { low = middle + 1 } else { high = middle }
                    }
                    if low > 0, low - 1 != previous {
                        rows.append(low - 1)
                        previous = low - 1
                    }
                }
            }
            let rowCount = wanted == nil ? count : rows.count
            unit.lineAddress.reserveCapacity(rowCount)
            unit.lineNumber.reserveCapacity(rowCount)
            unit.lineFile.reserveCapacity(rowCount)
            var fileIndexByName: [UnsafePointer<CChar>: Int32] = [:]
            for position in 0..<rowCount {
                let index = wanted == nil ? position : rows[position]
                guard let line = dwarf_onesrcline(lines, index) else { continue }
                var address: Dwarf_Addr = 0
                var number: Int32 = 0
                var isEnd = false
                dwarf_lineaddr(line, &address)
                dwarf_lineno(line, &number)
                dwarf_lineendsequence(line, &isEnd)
                var file: Int32 = -1
                if !isEnd {
                    if let name = dwarf_linesrc(line, nil, nil) {
                        if let known = fileIndexByName[name] {
                            file = known
                        } else {
                            file = Int32(unit.lineFileNames.count)
                            unit.lineFileNames.append(Self.cleanPath(name, compDir: compDir))
                            fileIndexByName[name] = file
                        }
                    } else {
                        file = -2
                    }
                }
                unit.lineAddress.append(address)
                unit.lineNumber.append(number)
                unit.lineFile.append(file)
            }
        }
        var files: OpaquePointer? = nil
        var fileCount = 0
        if dwarf_getsrcfiles(&unitDIE, &files, &fileCount) == 0, let files {
            unit.callFileNames.reserveCapacity(fileCount)
            for index in 0..<fileCount {
                if let name = dwarf_filesrc(files, index, nil, nil) {
                    unit.callFileNames.append(Self.cleanPath(name, compDir: compDir))
                } else {
                    unit.callFileNames.append("")
                }
            }
        }
    }

    /// The unit's `DW_AT_comp_dir` as bytes, or nil.
    private static func compilationDirectory(of unitDIE: inout Dwarf_Die) -> [UInt8]? {
        var attribute = Dwarf_Attribute()
        guard dwarf_attr_integrate(&unitDIE, UInt32(DW_AT_comp_dir), &attribute) != nil,
            let text = dwarf_formstring(&attribute)
        else { return nil }
        let bytes = Array(UnsafeRawBufferPointer(start: text, count: strlen(text)))
        return bytes.isEmpty ? nil : bytes
    }

    /// A file name of the line table as llvm-symbolizer prints it.
    ///
    /// libdw joins a file of directory 0 with the compilation directory, and a file of another
    /// directory with that directory only, so a relative include directory (`../examples`, or the
    /// `__hidden#12_` of a bitcode build) comes out relative. llvm-symbolizer (and atos) put the
    /// compilation directory in front of those: `/Users/x/breakpad/examples/../examples/a.cpp`.
    /// So a relative result that does not already start with the compilation directory gets it.
    /// Repeated slashes are collapsed as path joining would (libdw joins `/` and Swift's
    /// `/<compiler-generated>` into `//<compiler-generated>`).
    private static func cleanPath(_ name: UnsafePointer<CChar>, compDir: [UInt8]?) -> String {
        let length = strlen(name)
        let bytes = UnsafeRawBufferPointer(start: name, count: length)
        var result: [UInt8] = []
        result.reserveCapacity(length + (compDir?.count ?? 0) + 1)
        if let compDir, length > 0, bytes[0] != UInt8(ascii: "/") {
            let underCompDir = length > compDir.count && bytes[compDir.count] == UInt8(ascii: "/")
                && zip(bytes.prefix(compDir.count), compDir).allSatisfy { $0 == $1 }
            if !underCompDir {
                result.append(contentsOf: compDir)
                result.append(UInt8(ascii: "/"))
            }
        }
        result.append(contentsOf: bytes)
        var cleaned: [UInt8] = []
        cleaned.reserveCapacity(result.count)
        var previousSlash = false
        for byte in result {
            if byte == UInt8(ascii: "/") && previousSlash { continue }
            previousSlash = byte == UInt8(ascii: "/")
            cleaned.append(byte)
        }
        return String(decoding: cleaned, as: UTF8.self)
    }

    /// Units whose bytes could not be walked, so libdw walked them (tests expect none on the fixtures).
    private(set) var unitsWalkedByLibdw = 0

    /// `.debug_info` and `.debug_abbrev` as stored (nil when compressed or absent), found once.
    private lazy var rawSections: (info: UnsafeRawBufferPointer, abbrev: UnsafeRawBufferPointer)? = {
        guard let elf else { return nil }
        var namesIndex = 0
        guard elf_getshdrstrndx(elf, &namesIndex) == 0 else { return nil }
        var info: UnsafeRawBufferPointer?
        var abbrev: UnsafeRawBufferPointer?
        var section: OpaquePointer? = elf_nextscn(elf, nil)
        while let current = section {
            var header = GElf_Shdr()
            if gelf_getshdr(current, &header) != nil, header.sh_type == UInt32(SHT_PROGBITS),
                header.sh_flags & UInt64(SHF_COMPRESSED) == 0, let namePointer = elf_strptr(elf, namesIndex, Int(header.sh_name))
            {
                let name = String(cString: namePointer)
                if name == ".debug_info" || name == ".debug_abbrev", let data = elf_getdata(current, nil), let buffer = data.pointee.d_buf {
                    let bytes = UnsafeRawBufferPointer(start: buffer, count: Int(data.pointee.d_size))
                    if name == ".debug_info" { info = bytes } else { abbrev = bytes }
                }
            }
            section = elf_nextscn(elf, current)
        }
        guard let info, let abbrev else { return nil }
        return (info, abbrev)
    }()

    /// `readScopes` with the tree walked over the section bytes (see `DIECursor`) in one pass, each
    /// DIE read once; libdw is asked only about DIEs that may have code. The pass records, per
    /// sibling list it visits, the functions and containers in it; a replay then builds the nodes in
    /// exactly the order `readScopes` does, so both give the same tree. Returns false, leaving `unit`
    /// alone, when the bytes are not the ones libdw reads or anything could not be decoded; the caller
    /// then walks with libdw.
    private func readScopesFromBytes(of unitDIE: inout Dwarf_Die, wanted: [UInt64]?, into unit: inout DecodedUnit) -> Bool {
        guard let sections = rawSections, let infoBase = sections.info.baseAddress else { return false }
        let dieOffset = Int(dwarf_dieoffset(&unitDIE))
        let inUnit = Int(dwarf_cuoffset(&unitDIE))
        // libdw must be reading these very bytes (not a decompressed copy), or offsets mean nothing.
        guard dieOffset >= inUnit, dieOffset < sections.info.count, UnsafeRawPointer(unitDIE.addr) == infoBase + dieOffset,
            var cursor = DIECursor(info: sections.info, abbrev: sections.abbrev, unitStart: dieOffset - inUnit),
            let unitEntry = cursor.entry(at: dieOffset)
        else { return false }
        guard unitEntry.hasChildren else { return true }
        guard let (firstChild, _) = cursor.attributesEnd(of: dieOffset) else { return false }

        /// A function with code (`node` filled but for links) or a container, and the list of its
        /// children to visit (-1: none).
        struct Item {
            var node: ScopeNode?
            var ranges: [AddressRange]
            var childList: Int32
        }
        var lists: [[Item]] = [[]]
        // Per list: whether inlined calls in it are recorded (see `readScopes`).
        var listRecordsInlined: [Bool] = [true]
        // Per open level, the list its DIEs go to; -1 while inside a subtree nobody visits.
        var levels: [Int32] = [0]
        var offset = firstChild
        func newList(recordingInlined: Bool) -> Int32 {
            lists.append([])
            listRecordsInlined.append(recordingInlined)
            return Int32(lists.count - 1)
        }
        while !levels.isEmpty, offset < cursor.unitEnd {
            var reader = ByteReader(sections.info, at: offset)
            guard let code = reader.uleb() else { return false }
            if code == 0 {
                levels.removeLast()
                offset = reader.position
                continue
            }
            guard let entry = cursor.entry(at: offset), let (end, sibling) = cursor.attributesEnd(of: offset) else { return false }
            let list = levels[levels.count - 1]
            var childList: Int32 = -1
            if list >= 0 {
                let recordsInlined = listRecordsInlined[Int(list)]
                switch entry.tag {
                case UInt32(DW_TAG_subprogram), UInt32(DW_TAG_inlined_subroutine):
                    let isInlined = entry.tag == UInt32(DW_TAG_inlined_subroutine)
                    var ranges: [AddressRange] = []
                    var die = unitDIE
                    // Without DW_AT_low_pc or DW_AT_ranges there is no code, so no range either.
                    if entry.mayHaveCode, recordsInlined || !isInlined {
                        die.addr = UnsafeMutableRawPointer(mutating: infoBase + offset)
                        die.abbrev = nil
                        ranges = Self.ranges(of: &die)
                    }
                    if ranges.isEmpty {
                        // Not recorded, but a nested function (a closure) may sit below it.
                        if entry.hasChildren {
                            childList = newList(recordingInlined: false)
                            lists[Int(list)].append(Item(node: nil, ranges: [], childList: childList))
                        }
                        break
                    }
                    let (callFile, callLine) = isInlined ? Self.callSite(of: &die) : (-1, 0)
                    if entry.hasChildren {
                        childList = newList(recordingInlined: wanted == nil || Self.holdsWanted(ranges, wanted!))
                    }
                    let node = ScopeNode(
                        dieOffset: UInt64(offset), parent: -1, isInlined: isInlined, callFile: callFile, callLine: callLine,
                        rangeStart: 0, rangeCount: Int32(ranges.count))
                    lists[Int(list)].append(Item(node: node, ranges: ranges, childList: childList))
                case UInt32(DW_TAG_lexical_block), UInt32(DW_TAG_namespace), UInt32(DW_TAG_module),
                    UInt32(DW_TAG_structure_type), UInt32(DW_TAG_class_type), UInt32(DW_TAG_union_type),
                    UInt32(DW_TAG_try_block), UInt32(DW_TAG_catch_block):
                    // Functions and inlined calls can sit inside these.
                    if entry.hasChildren {
                        childList = newList(recordingInlined: recordsInlined)
                        lists[Int(list)].append(Item(node: nil, ranges: [], childList: childList))
                    }
                default:
                    break
                }
            }
            if entry.hasChildren {
                if childList < 0, let sibling, sibling > offset {
                    offset = sibling  // Nothing to record below: jump over the subtree.
                } else {
                    levels.append(childList)
                    offset = end
                }
            } else {
                offset = end
            }
        }
        // Replay in the order of `readScopes`: a stack of (list, parent), lists taken last-in first-out.
        var scratch = unit
        var lastChild: [Int32: Int32] = [:]
        var pending: [(list: Int32, parent: Int32)] = [(0, -1)]
        while let (list, parent) = pending.popLast() {
            for item in lists[Int(list)] {
                guard var scope = item.node else {
                    pending.append((item.childList, parent))
                    continue
                }
                let node = Int32(scratch.nodes.count)
                scope.parent = parent
                scope.rangeStart = Int32(scratch.nodeRanges.count)
                scratch.nodes.append(scope)
                scratch.nodeRanges.append(contentsOf: item.ranges)
                if parent >= 0 {
                    if let previous = lastChild[parent] {
                        scratch.nodes[Int(previous)].nextSibling = node
                    } else {
                        scratch.nodes[Int(parent)].firstChild = node
                    }
                    lastChild[parent] = node
                }
                // A nested function (a closure, a local function) starts its own chain: it is a root too.
                if parent < 0 || !scope.isInlined {
                    for range in item.ranges { scratch.topLevel.append((range.low, range.high, node)) }
                }
                if item.childList >= 0 { pending.append((item.childList, node)) }
            }
        }
        unit = scratch
        return true
    }

    /// Walks the unit's DIE tree with libdw, collecting functions and inlined calls with code.
    ///
    /// Below a function that holds no wanted address (in a batch), inlined calls are not recorded
    /// (`recordsInlined` false) but the walk still goes on: a nested function (a Swift closure or
    /// local function) has its DIE inside its parent's DIE while its code lies elsewhere, and may be
    /// where a wanted address is. The same holds below a function without code (an abstract
    /// origin) and below an inlined call that is not recorded.
    private func readScopes(of unitDIE: inout Dwarf_Die, wanted: [UInt64]?, into unit: inout DecodedUnit) {
        // Iterative walk: (first child DIE, parent node, records inlined calls) still to visit.
        var child = Dwarf_Die()
        guard dwarf_child(&unitDIE, &child) == 0 else { return }
        var pending: [(die: Dwarf_Die, parent: Int32, recordsInlined: Bool)] = [(child, -1, true)]
        var lastChild: [Int32: Int32] = [:]
        while let (first, parent, recordsInlined) = pending.popLast() {
            var die = first
            while true {
                let tag = dwarf_tag(&die)
                switch tag {
                case Int32(DW_TAG_subprogram), Int32(DW_TAG_inlined_subroutine):
                    let isInlined = tag == Int32(DW_TAG_inlined_subroutine)
                    let ranges = recordsInlined || !isInlined ? Self.ranges(of: &die) : []
                    if ranges.isEmpty {
                        if dwarf_child(&die, &child) == 0 { pending.append((child, parent, false)) }
                        break
                    }
                    let (callFile, callLine) = isInlined ? Self.callSite(of: &die) : (-1, 0)
                    let node = Int32(unit.nodes.count)
                    unit.nodes.append(
                        ScopeNode(
                            dieOffset: dwarf_dieoffset(&die), parent: parent, isInlined: isInlined,
                            callFile: callFile, callLine: callLine, rangeStart: Int32(unit.nodeRanges.count),
                            rangeCount: Int32(ranges.count)))
                    unit.nodeRanges.append(contentsOf: ranges)
                    if parent >= 0 {
                        if let previous = lastChild[parent] {
                            unit.nodes[Int(previous)].nextSibling = node
                        } else {
                            unit.nodes[Int(parent)].firstChild = node
                        }
                        lastChild[parent] = node
                    }
                    // A nested function (a closure, a local function) starts its own chain: it is a root too.
                    if parent < 0 || !isInlined {
                        for range in ranges { unit.topLevel.append((range.low, range.high, node)) }
                    }
                    if dwarf_child(&die, &child) == 0 {
                        pending.append((child, node, wanted == nil || Self.holdsWanted(ranges, wanted!)))
                    }
                case Int32(DW_TAG_lexical_block), Int32(DW_TAG_namespace), Int32(DW_TAG_module),
                    Int32(DW_TAG_structure_type), Int32(DW_TAG_class_type), Int32(DW_TAG_union_type),
                    Int32(DW_TAG_try_block), Int32(DW_TAG_catch_block):
                    // Functions and inlined calls can sit inside these.
                    if dwarf_child(&die, &child) == 0 { pending.append((child, parent, recordsInlined)) }
                default:
                    break
                }
                var sibling = Dwarf_Die()
                guard dwarf_siblingof(&die, &sibling) == 0 else { break }
                die = sibling
            }
        }
    }

    /// The function name libdw finds for a DIE: the linkage name (through abstract origin and
    /// specification), else `DW_AT_name`.
    func functionName(dieOffset: UInt64) -> (linkage: String?, plain: String?) {
        guard let dwarf else { return (nil, nil) }
        var die = Dwarf_Die()
        guard dwarf_offdie(dwarf, dieOffset, &die) != nil else { return (nil, nil) }
        var attribute = Dwarf_Attribute()
        for name in [DW_AT_linkage_name, DW_AT_MIPS_linkage_name] {
            if dwarf_attr_integrate(&die, UInt32(name), &attribute) != nil,
                let string = dwarf_formstring(&attribute)
            {
                return (String(cString: string), nil)
            }
        }
        if let plain = dwarf_diename(&die) { return (nil, String(cString: plain)) }
        return (nil, nil)
    }

    /// The whole file as libelf mapped it (names of `SymbolEntry` are offsets into it).
    func fileBytes() -> UnsafeRawBufferPointer? {
        guard let elf else { return nil }
        var size = 0
        guard let base = elf_rawfile(elf, &size) else { return nil }
        return UnsafeRawBufferPointer(start: base, count: size)
    }

    /// Function symbols of `.symtab` (or `.dynsym` when stripped), sorted by address.
    func functionSymbols() -> [SymbolEntry] {
        guard let elf, let file = fileBytes() else { return [] }
        var table: OpaquePointer? = nil
        var dynamicTable: OpaquePointer? = nil
        var section: OpaquePointer? = elf_nextscn(elf, nil)
        while let current = section {
            var header = GElf_Shdr()
            if gelf_getshdr(current, &header) != nil {
                if header.sh_type == UInt32(SHT_SYMTAB) { table = current }
                if header.sh_type == UInt32(SHT_DYNSYM) { dynamicTable = current }
            }
            section = elf_nextscn(elf, current)
        }
        guard let chosen = table ?? dynamicTable else { return [] }
        var header = GElf_Shdr()
        guard gelf_getshdr(chosen, &header) != nil, header.sh_entsize > 0,
            let data = elf_getdata(chosen, nil), let strings = elf_getscn(elf, Int(header.sh_link))
        else { return [] }
        var stringsHeader = GElf_Shdr()
        guard gelf_getshdr(strings, &stringsHeader) != nil, stringsHeader.sh_type == UInt32(SHT_STRTAB),
            stringsHeader.sh_offset <= UInt64(file.count), stringsHeader.sh_size <= UInt64(file.count) - stringsHeader.sh_offset
        else { return [] }
        let stringsStart = Int(stringsHeader.sh_offset)
        let stringsSize = Int(stringsHeader.sh_size)
        let count = Int(header.sh_size / header.sh_entsize)
        // Where each symbol's section ends: no symbol reaches past it (a size-0 symbol such as
        // `_fini` would otherwise claim every address above it, up to 2^64).
        var sectionEnds: [UInt16: UInt64] = [:]
        func sectionEnd(_ index: UInt16) -> UInt64? {
            if let known = sectionEnds[index] { return known }
            var sectionHeader = GElf_Shdr()
            guard let section = elf_getscn(elf, Int(index)), gelf_getshdr(section, &sectionHeader) != nil,
                sectionHeader.sh_flags & UInt64(SHF_EXECINSTR) != 0
            else { return nil }
            let (end, overflow) = sectionHeader.sh_addr.addingReportingOverflow(sectionHeader.sh_size)
            let bounded = overflow ? UInt64.max : end
            sectionEnds[index] = bounded
            return bounded
        }
        var result: [SymbolEntry] = []
        var ends: [UInt64] = []
        for index in 0..<count {
            var symbol = GElf_Sym()
            guard gelf_getsym(data, Int32(index), &symbol) != nil else { continue }
            let type = Int32(symbol.st_info & 0xf)
            guard type == STT_FUNC || type == STT_GNU_IFUNC, symbol.st_shndx != UInt16(SHN_UNDEF),
                symbol.st_shndx < UInt16(SHN_LORESERVE), symbol.st_value != 0, Int(symbol.st_name) < stringsSize,
                let end = sectionEnd(symbol.st_shndx), symbol.st_value < end
            else { continue }
            result.append(SymbolEntry(address: symbol.st_value, size: symbol.st_size, nameOffset: stringsStart + Int(symbol.st_name)))
            ends.append(end)
        }
        let order = result.indices.sorted { result[$0].address < result[$1].address }
        result = order.map { result[$0] }
        ends = order.map { ends[$0] }
        // A symbol covers its size, or (size 0) up to the next symbol; never past its section.
        for index in result.indices {
            let room = ends[index] - result[index].address
            var size = result[index].size
            if size == 0 {
                size = room
                if index + 1 < result.count, result[index + 1].address > result[index].address {
                    size = min(size, result[index + 1].address - result[index].address)
                }
            }
            result[index].size = min(size, room)
        }
        return result
    }
}

@available(*, unavailable) extension DwarfReader: Sendable {}
