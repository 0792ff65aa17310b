import Foundation

/// An open DWARF reader over an ELF file on disk or an ELF image built in memory: the checks that
/// make an unreadable file an error rather than silently wrong answers, the unit headers, and one
/// unit decoded at a time. Not thread-safe: libdw's lazy caches are unsynchronized, so each thread
/// opens its own.
final class DwarfReader {
    let path: String
    private let elf: ElfHandle
    /// Replaced by a fresh handle in `dropLibdwCaches()` (nothing else ever changes it).
    private var dwarf: DwarfHandle?
    /// The file as it was when opened (nil for an image built in memory).
    private var identity: FileIdentity?
    private var region: Int?

    /// Opens an ELF file; libelf maps it and libdw reads its sections in place. With `openingDWARF`
    /// false only libelf opens it (enough for the build-id and machine: catalog scans and the warm
    /// path never pay for libdw's setup).
    init(elfPath path: String, openingDWARF: Bool = true) throws(SymbolizeError) {
        self.path = path
        elf = try ElfHandle(path: path)
        // libelf mapped the file: a SIGBUS past a new end (the file truncated under us) is caught.
        identity = elf.fileIdentity()
        if let mapped = elf.rawBytes(), let base = mapped.baseAddress {
            region = MappedRegions.register(base, count: mapped.count)
        }
        try Self.checkHeaders(of: elf, path: path)
        // Catalog scans open files without DWARF (`openingDWARF` false): they only need the headers.
        dwarf = openingDWARF ? DwarfHandle(elf: elf) : nil
        // A file without DWARF still has a symbol table to fall back on; one whose DWARF libdw
        // refuses (a section past the end of the file) is an error, not a silent fallback.
        if openingDWARF, dwarf == nil, let info = ElfSectionLookup.section(named: ".debug_info", in: elf) {
            throw SymbolizeError.elfutilsRefused(
                path: path, "libdw cannot read the DWARF (.debug_info at byte \(info.offset), \(info.size) bytes): \(libdwMessage())")
        }
    }

    /// Headers libelf cannot read leave it no sections or segments: no DWARF, no symbol table, no
    /// text base, so the file would answer nothing (or wrongly) while looking fine.
    private static func checkHeaders(of elf: ElfHandle, path: String) throws(SymbolizeError) {
        guard let header = elf.header(), let sectionCount = elf.sectionCount(), let segmentCount = elf.segmentCount() else {
            throw SymbolizeError.corrupt(path: path, "the ELF headers cannot be read (\(libelfMessage()))")
        }
        if header.sectionHeaderOffset != 0, sectionCount == 0 || !elf.hasSection(at: sectionCount - 1) {
            throw SymbolizeError.corrupt(
                path: path, "the ELF section header table (at byte \(header.sectionHeaderOffset)) runs past the end of the file")
        }
        if header.programHeaderOffset != 0, segmentCount > 0, elf.segment(at: 0) == nil {
            throw SymbolizeError.corrupt(
                path: path, "the ELF program header table (at byte \(header.programHeaderOffset)) runs past the end of the file")
        }
    }

    /// Takes ownership of `image`, an ELF image built in memory from a Mach-O file's DWARF
    /// (`withDWARF` false: the slice has none, and no libdw handle is opened).
    init(elfImage image: UnsafeMutableRawBufferPointer, path: String, withDWARF: Bool = true) throws(SymbolizeError) {
        self.path = path
        elf = try ElfHandle(image: image, path: path)
        // A slice without DWARF (an app binary from an archive, a system library) still has its
        // symbol table: the image opens with no libdw handle and answers from the symbols.
        guard withDWARF else {
            dwarf = nil
            return
        }
        guard let dwarf = DwarfHandle(elf: elf) else {
            throw SymbolizeError.elfutilsRefused(path: path, "libdw cannot read the DWARF sections (\(libdwMessage()))")
        }
        self.dwarf = dwarf
    }

    /// A read of libelf's mapping faulted past the file's end.
    var wasCutShort: Bool { MappedRegions.isDamaged(region) }

    /// True when the ELF file was truncated under libelf's mapping or is no longer the file opened.
    var fileHasChanged: Bool {
        guard !elf.isInMemory else { return false }
        return MappedRegions.isDamaged(region) || FileIdentity(path: path) != identity
    }

    deinit {
        MappedRegions.unregister(region)
    }

    var hasDWARF: Bool { dwarf != nil }

    /// Whether the file has a `.debug_info` with bytes in it (without opening libdw).
    func hasDebugInfoSection() -> Bool { (ElfSectionLookup.section(named: ".debug_info", in: elf)?.size ?? 0) > 0 }

    /// The ELF file's GNU build-id bytes, if it has one.
    func buildID() -> [UInt8]? { elf.gnuBuildID() }

    /// The ELF header's machine, e.g. 62 for x86-64, 183 for AArch64.
    func machine() -> Int { elf.header()?.machine ?? 0 }

    /// The first `PT_LOAD` segment's virtual address: where the image's offsets start (docs/design.md, "Symbolication").
    func firstLoadAddress() -> UInt64 {
        guard let count = elf.segmentCount() else { return 0 }
        for index in 0..<count {
            if let segment = elf.segment(at: index), segment.type == ElfNumber.segmentLoad { return segment.virtualAddress }
        }
        return 0
    }

    /// The whole file as libelf mapped it (names of `SymbolEntry` are offsets into it).
    func fileBytes() -> UnsafeRawBufferPointer? { elf.rawBytes() }

    func releaseResidentPages() { elf.releaseResidentPages() }

    /// Ends libdw's handle and opens a new one: libdw keeps every unit it has read (its header, its
    /// abbreviation table, its line table) until `dwarf_end`, 3.9 of the 12.9 MB of heap a cold
    /// batch on swift-help peaks at. No libdw pointer outlives a call into this reader, so
    /// nothing refers to the old handle; the next lookup reads the units it needs again.
    func dropLibdwCaches() {
        // The same ELF handle opened the first one, so this cannot fail; if it did, the old stays.
        guard dwarf != nil, let fresh = DwarfHandle(elf: elf) else { return }
        dwarf = fresh
        openedBytesDecoder?.libdwForCodeRanges = fresh
    }

    /// The size of `.debug_info` as stored (0 when compressed or absent).
    var debugInfoSize: Int { bytesDecoder.info?.sections.info.count ?? 0 }

    /// Function symbols of `.symtab` (or `.dynsym` when stripped), sorted by address.
    func functionSymbols() -> [SymbolEntry] { ELFSymbolTable.functionSymbols(of: elf) }

    func symbolScan() -> ELFSymbolTable.Scan? { ELFSymbolTable.scan(of: elf) }

    /// Why the file's DWARF cannot be trusted (a unit header or unit DIE libdw cannot read, a unit
    /// running past the end of `.debug_info`): its answers would be silently wrong. Set by
    /// `unitDIEOffsets()` and `unitRanges(dieOffsets:)`.
    private(set) var dwarfProblem: String?

    /// Where each unit found by `unitDIEOffsets()` starts, by its DIE's offset.
    private var unitStarts: [UInt64: UInt64] = [:]

    /// Header-only units skipped by `unitDIEOffsets()`.
    private(set) var headerOnlyUnits = 0

    /// The offsets of every unit DIE in `.debug_info`, from the unit headers alone (cheap: no DIE
    /// is read). A unit that holds no DIE at all (its length covers the header only: older Apple
    /// dsymutil writes them for some Swift files) is skipped, as llvm-symbolizer skips it; it
    /// describes no code. A header libdw cannot read, or a unit running past the end of the
    /// section (a file cut short), sets `dwarfProblem`.
    func unitDIEOffsets() -> [UInt64] {
        guard let dwarf else { return [] }
        let info = ElfSectionLookup.section(named: ".debug_info", in: elf)
        var result: [UInt64] = []
        var offset: UInt64 = 0
        var index = 0
        headerOnlyUnits = 0
        while true {
            let next: UInt64
            let headerSize: Int
            switch dwarf.unitHeader(at: offset) {
            case .end:
                return result
            case .unreadable:
                if let info, offset >= info.size { return result }
                adoptProblem("corrupt DWARF: the unit after \(index) readable unit(s) cannot be read (\(libdwMessage()))")
                return result
            case .unit(let found, let size):
                next = found
                headerSize = size
            }
            if let info, !info.compressed, next != UInt64.max, next > info.size {
                adoptProblem(
                    "corrupt DWARF: unit \(index) at offset \(offset) of .debug_info ends at \(next), past the section's \(info.size) bytes (cut short?)"
                )
                return result
            }
            let dieOffset = offset + UInt64(headerSize)
            if dieOffset < next {
                result.append(dieOffset)
                unitStarts[dieOffset] = offset
            } else {
                headerOnlyUnits += 1
            }
            if next == UInt64.max || next <= offset { return result }
            offset = next
            index += 1
        }
    }

    /// Every unit's address ranges from its unit DIE (`DW_AT_ranges` or low/high pc).
    func unitRanges() -> [UnitRanges] {
        unitRanges(dieOffsets: unitDIEOffsets()[...])
    }

    /// `unitRanges()` for some of the units (by unit DIE offset), so two threads can share the
    /// work. A unit DIE libdw cannot read sets `dwarfProblem`; type units are skipped.
    func unitRanges(dieOffsets: ArraySlice<UInt64>) -> [UnitRanges] {
        guard dwarf != nil else { return [] }
        var result: [UnitRanges] = []
        for dieOffset in dieOffsets {
            let unit = UnitLocation(dieOffset: dieOffset, start: unitStarts[dieOffset])
            switch ask(.unitRanges, { $0.unitRanges(unit) }, { $0.unitRanges(unit) }) {
            case .success(let ranges):
                if !ranges.isEmpty { result.append(UnitRanges(unitDIEOffset: dieOffset, ranges: ranges)) }
            case .failure(let refusal):
                adoptProblem(refusal.reason)
            }
        }
        return result
    }

    /// A problem found by another handle on the same file (the second thread of a batch); the first
    /// problem found is the one kept.
    func adoptProblem(_ problem: String?) {
        if dwarfProblem == nil { dwarfProblem = problem }
    }

    /// The reader over the section bytes, asked first (made on first use: catalog scans and the
    /// warm path never decode a unit).
    var bytesDecoder: BytesUnitDecoder {
        if let openedBytesDecoder { return openedBytesDecoder }
        let made = BytesUnitDecoder(elf: elf, libdw: dwarf)
        openedBytesDecoder = made
        return made
    }
    private var openedBytesDecoder: BytesUnitDecoder?

    /// libdw, asked for what the bytes reader declines (nil without DWARF).
    var libdwDecoder: LibdwUnitDecoder? { dwarf.map(LibdwUnitDecoder.init) }

    /// What libdw answered because the bytes reader declined, and why.
    private(set) var fallbacks = DecoderFallbacks()

    /// Adds the fallbacks another handle on the same file counted (the second thread of a batch).
    func adoptFallbacks(_ other: DecoderFallbacks) { fallbacks.add(other) }

    /// One step asked of the bytes reader, then of libdw when the bytes reader declines; a
    /// fallback is counted with the reason the bytes reader gave. The one place the two meet.
    private func ask<Answer>(
        _ step: DecodeStep, _ bytes: (BytesUnitDecoder) -> Result<Answer, DecodeRefusal>,
        _ libdw: (LibdwUnitDecoder) -> Result<Answer, DecodeRefusal>
    ) -> Result<Answer, DecodeRefusal> {
        fallbacks.countAsked(step)
        let first = bytes(bytesDecoder)
        guard case .failure(let refusal) = first else { return first }
        fallbacks.record(step, refusal)
        guard let libdwDecoder else { return first }
        return libdw(libdwDecoder)
    }

    /// Walks one unit's DIE tree once and reads its line table: over the section bytes, and by
    /// libdw for what the bytes reader declines.
    ///
    /// - Parameter wanted: when given (sorted), only the functions holding one of these addresses
    ///   are descended into and only their line rows are kept: a cold batch pays for what it asks.
    func decodeUnit(at unitDIEOffset: UInt64, wanted: [UInt64]? = nil) -> DecodedUnit {
        var unit = DecodedUnit()
        let location = UnitLocation(dieOffset: unitDIEOffset, start: unitStarts[unitDIEOffset])
        // The tree first: a batch's line reading names only the call files of the calls walked.
        _ = ask(.scopes, { $0.readScopes(location, wanted: wanted, into: &unit) }, { $0.readScopes(location, wanted: wanted, into: &unit) })
        _ = ask(.lines, { $0.readLines(location, wanted: wanted, into: &unit) }, { $0.readLines(location, wanted: wanted, into: &unit) })
        unit.finishTopLevel()
        return unit
    }

    /// The function name of a DIE: the linkage name (through abstract origin and specification),
    /// else `DW_AT_name`.
    func functionName(dieOffset: UInt64) -> DIENames {
        (try? ask(.names, { $0.names(atDIE: dieOffset) }, { $0.names(atDIE: dieOffset) }).get()) ?? (nil, nil)
    }

    /// Where an inlined call's names come from (`DwarfDIE.nameOrigin`), or nil.
    func nameOrigin(dieOffset: UInt64) -> UInt64? {
        (try? ask(.names, { $0.nameOrigin(atDIE: dieOffset) }, { $0.nameOrigin(atDIE: dieOffset) }).get()) ?? nil
    }
}

@available(*, unavailable) extension DwarfReader: Sendable {}
