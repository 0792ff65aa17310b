import Foundation
import SymbolNames

/// An opened debug image (an ELF file or one Mach-O slice): address → frames, inline chain included.
///
/// Units are decoded on first use and kept, so a batch pays once per unit it touches. Not
/// thread-safe (it owns a libdw handle); a parallel batch opens one per thread.
final class DebugImage {
    let path: String
    let textBase: UInt64
    let instructionSet: InstructionSet
    let reader: DwarfReader
    let machO: (file: MappedFile, slice: MachOSlice)?
    private(set) lazy var unitMap: UnitAddressMap = UnitAddressMap(reader.unitRanges())
    var decodedUnits: [Int: DecodedUnit] = [:]
    /// Loaded once and shared with `reopened()` copies (names are offsets, valid in either).
    var sharedSymbols = SharedSymbols()
    var symbols: [SymbolEntry] {
        if let loadedSymbols { return loadedSymbols }
        let table = sharedSymbols.table {
            if let machO { return MachOReader.functionSymbols(of: machO.slice, view: machO.file.view) }
            return reader.functionSymbols()
        }
        loadedSymbols = table
        return table
    }
    /// The shared table once this handle has it: asking the shared one takes its lock, and an
    /// index build asks at every function (four atomic operations each).
    var loadedSymbols: [SymbolEntry]?
    /// The bytes symbol names point into.
    lazy var nameBytes: UnsafeRawBufferPointer = machO?.file.bytes ?? reader.fileBytes() ?? UnsafeRawBufferPointer(start: nil, count: 0)

    /// A symbol's name, read from the file (NUL-terminated; the string table's end is checked when
    /// loading), once per symbol: it names the outermost frame of every answer in the symbol, and
    /// one string shared by those answers is one allocation instead of one per answer.
    func name(of symbol: SymbolEntry) -> String {
        if let known = symbolNames[UInt64(truncatingIfNeeded: symbol.nameOffset)] { return known }
        let name = readName(of: symbol)
        symbolNames.set(UInt64(truncatingIfNeeded: symbol.nameOffset), name)
        return name
    }
    var symbolNames = WordMap<String>()

    func readName(of symbol: SymbolEntry) -> String {
        withName(of: symbol) { String(decoding: $0, as: UTF8.self) }
    }

    /// The bytes of `symbol`'s name (`??` when its offset is past the string table), lent to
    /// `body`: valid only during the call.
    func withName<Result>(of symbol: SymbolEntry, _ body: (UnsafeBufferPointer<UInt8>) -> Result) -> Result {
        let bytes = nameBytes
        guard symbol.nameOffset >= 0, symbol.nameOffset < bytes.count, let base = bytes.baseAddress else {
            return [UInt8]("??".utf8).withUnsafeBufferPointer(body)
        }
        let start = base + symbol.nameOffset
        let end = memchr(start, 0, bytes.count - symbol.nameOffset).map { UnsafeRawPointer($0) } ?? (base + bytes.count)
        return body(UnsafeRawBufferPointer(start: start, count: end - start).bindMemory(to: UInt8.self))
    }
    var nameCache = WordMap<(linkage: String?, plain: String?)>()

    /// Opens an ELF file.
    init(elfPath: String) throws(SymbolizeError) {
        path = elfPath
        reader = try DwarfReader(elfPath: elfPath)
        textBase = reader.firstLoadAddress()
        switch reader.machine() {
        case 183: instructionSet = .arm64
        case 62, 3: instructionSet = .x86
        default: instructionSet = .other
        }
        machO = nil
    }

    /// Opens one slice of a Mach-O file, lifting its DWARF into an in-memory ELF image for libdw.
    /// A slice without `__DWARF` sections (an app binary from an archive, a system library)
    /// answers from its symbol table, as atos does.
    init(machO file: MappedFile, slice: MachOSlice) throws(SymbolizeError) {
        path = file.path
        reader = try DwarfReader(
            elfImage: MachOReader.liftedELFImage(of: slice, view: file.view), path: file.path, withDWARF: slice.hasDebugInfo)
        textBase = slice.textVMAddress
        switch slice.cpuType {
        case MachOCPU.arm64, MachOCPU.arm64_32: instructionSet = .arm64
        case MachOCPU.x86_64, MachOCPU.x86: instructionSet = .x86
        default: instructionSet = .other
        }
        machO = (file, slice)
    }

    /// Why the image's DWARF cannot be trusted (a unit that libdw cannot read), read once the
    /// unit map is built (this builds it when no batch has).
    var dwarfProblem: String? {
        _ = unitMap
        return reader.dwarfProblem
    }

    /// True when the file changed after it was opened: truncated under its mapping (a read faulted
    /// past the new end) or replaced (another identity). Its answers are then not to be trusted.
    var hasChanged: Bool { machO?.file.hasChanged ?? reader.fileHasChanged }

    /// Drops the file's pages from resident memory once a batch has read what it needs: a cold
    /// batch touches most of the DWARF, and those pages would otherwise stay counted while the
    /// answers are turned into names and text. The next read faults them back from the page cache.
    func releaseResidentPages() {
        if let machO { machO.file.releaseResidentPages() } else { reader.releaseResidentPages() }
    }

    /// Lets go of what a finished batch read: the file's resident pages, libdw's per-unit data, the
    /// decoded units kept for single lookups and the names read (per DIE and per symbol; an index
    /// build would otherwise keep every name of the file twice, once per thread). The answers hold
    /// their own strings by then.
    ///
    /// - Parameter renewingLibdw: false keeps libdw's handle (an index build, which goes on reading
    ///   units: a new handle interns every unit before the next one again).
    func releaseBatchMemory(renewingLibdw: Bool = true) {
        releaseResidentPages()
        if renewingLibdw { reader.dropLibdwCaches() }
        decodedUnits.removeAll()
        nameCache.removeAll()
        symbolNames.removeAll()
    }

    /// The cheap half of `hasChanged` (no `stat`): a read faulted past the file's end.
    var wasCutShort: Bool { machO.map { MappedRegions.isDamaged($0.file.regionSlot) } ?? reader.wasCutShort }

    var identityCheck = IdentityCheckPace()

    /// For lookups one by one: the damage mark every time, the file's identity (a `stat`) at most
    /// once a second.
    func changedSinceLastCheck() -> Bool {
        if identityCheck.isDue() { return hasChanged }
        return wasCutShort
    }

    /// True when the slice or file has DWARF (else it answers from its symbol table only).
    var hasDWARF: Bool { reader.hasDWARF }

    /// Header-only units skipped while building the unit map.
    var headerOnlyUnits: Int { reader.headerOnlyUnits }

    /// A second handle on the same file, for another thread; it shares the unit map.
    func reopened() throws(SymbolizeError) -> sending DebugImage {
        let other = machO == nil ? try DebugImage(elfPath: path) : try DebugImage(machO: machO!.file, slice: machO!.slice)
        other.unitMap = unitMap
        other.sharedSymbols = sharedSymbols
        return other
    }

    /// Opens a second handle later, on another thread, without touching this one then: the worker
    /// opens its handle and loads the shared symbol table while this thread builds the unit map.
    func reopener() -> @Sendable () throws(SymbolizeError) -> DebugImage {
        let machO = machO
        let shared = sharedSymbols
        let path = path
        return { () throws(SymbolizeError) -> DebugImage in
            let other = machO == nil ? try DebugImage(elfPath: path) : try DebugImage(machO: machO!.file, slice: machO!.slice)
            other.sharedSymbols = shared
            return other
        }
    }

    /// Unit DIE offsets and the ranges of some units, for building the unit map on two threads.
    func unitDIEOffsets() -> [UInt64] { reader.unitDIEOffsets() }
    func unitRanges(dieOffsets: ArraySlice<UInt64>) -> [UnitRanges] { reader.unitRanges(dieOffsets: dieOffsets) }

    /// Gives a handle from `reopener()` the unit map built on the first one.
    func adoptUnitMap(_ map: UnitAddressMap) { unitMap = map }

    /// Records a DWARF problem found by another handle while building its share of the unit map.
    func adoptProblem(_ problem: String?) { reader.adoptProblem(problem) }

    /// The problem found by this handle so far (no unit map is built to find it).
    var problemSoFar: String? { reader.dwarfProblem }

    /// Loads the symbol table (shared by every handle on the file) ahead of use.
    func preloadSymbols() { _ = symbols }

    /// Looks up one address in the image's address space.
    func lookup(_ address: UInt64) -> RawLookup { lookup(address, givenIndex: -1, givenUnit: DecodedUnit()) }

    /// `lookup(_:)`, where unit `givenIndex`, `givenUnit`, is one the caller already decoded
    /// whole (the index builder), used instead of decoding it again. The unit is lent apart from
    /// its number: an optional tuple of both copied its dozen arrays (retaining each) per call.
    func lookup(_ address: UInt64, givenIndex: Int, givenUnit: DecodedUnit) -> RawLookup {
        var frames: [RawFrame] = []
        let (source, start) = visitLookup(address, givenIndex: givenIndex, givenUnit: givenUnit) { place, _, unit in
            frames.append(rawFrame(place, in: unit))
        }
        return RawLookup(source: source, frames: frames, functionStart: start)
    }

    /// `lookup(_:givenIndex:givenUnit:)` as places: `visit` gets each frame, innermost first,
    /// with the unit (and its index) the frame's file numbers are of (an empty unit, -1, for a
    /// symbol-table answer). The unit is lent, not wrapped: a tuple or an optional of it copied its
    /// dozen arrays per frame.
    func visitLookup(
        _ address: UInt64, givenIndex: Int = -1, givenUnit: DecodedUnit = DecodedUnit(),
        _ visit: (FramePlace, _ unitIndex: Int, _ unit: DecodedUnit) -> Void
    ) -> (source: RawLookup.Source, functionStart: UInt64?) {
        for unitIndex in unitMap.units(containing: address) {
            let (found, start) =
                unitIndex == givenIndex
                ? visitFrames(in: givenUnit, at: address) { visit($0, unitIndex, $1) }
                : visitFrames(in: decodedUnit(unitIndex), at: address) { visit($0, unitIndex, $1) }
            if found { return (.dwarf, start) }
        }
        if let symbol = symbol(containing: address) {
            visit(FramePlace(name: .symbol(symbol), file: .none, line: nil, isInlined: false), -1, DecodedUnit())
            return (.symbolTable, symbol.address)
        }
        return (.none, nil)
    }

    /// Looks up many addresses, decoding each unit once and dropping it when the batch has moved
    /// past it, so memory stays at one unit's worth however many units are hit. With
    /// `releasingPages`, the file's pages are dropped from the resident set each time the batch
    /// has walked another quarter of `.debug_info` (the units are visited in order, once), so the
    /// file read does not pile up in memory as it is passed over.
    func lookupBatch(_ addresses: [UInt64], releasingPages: Bool = false) -> [RawLookup] {
        var results = [RawLookup](repeating: RawLookup(source: .none, frames: []), count: addresses.count)
        walkBatch(addresses, releasingPages: releasingPages) { index, _, unit in
            guard let found = frames(in: unit, at: addresses[index]) else { return false }
            results[index] = found
            return true
        } elsewhere: { index in
            results[index] = lookup(addresses[index])
        }
        return results
    }

    /// `lookupBatch`'s walk: each address goes to the first unit covering it, and each unit is
    /// decoded once, in order. `inUnit(index, unitIndex, unit)` answers address `index` from its
    /// unit (false: nothing there); after the walk, `elsewhere` answers each address no unit did.
    func walkBatch(
        _ addresses: [UInt64], releasingPages: Bool = false, inUnit: (Int, Int, DecodedUnit) -> Bool, elsewhere: (Int) -> Void
    ) {
        let groups = unitGroups(addresses)
        var next = 0
        walkGroups(
            groups, of: addresses, uncovered: groups.uncovered[...], releasingPages: releasingPages,
            next: {
                defer { next += 1 }
                return next < groups.units.count ? next : nil
            }, inUnit: inUnit, elsewhere: elsewhere)
    }

    /// `walkBatch` over the groups `next` hands out (group numbers, nil when done), then the
    /// addresses of `uncovered` and those no unit answered. Two threads share one batch's groups
    /// this way (`ParallelLookup.inHalves`, each with its own handle).
    func walkGroups(
        _ groups: UnitGroups, of addresses: [UInt64], uncovered: ArraySlice<Int>, releasingPages: Bool = false, next: () -> Int?,
        inUnit: (Int, Int, DecodedUnit) -> Bool, elsewhere: (Int) -> Void
    ) {
        // Every answer's outermost frame is named from the symbol table: past a few addresses,
        // loading it once costs less than passing over it per address.
        if addresses.count > Self.symbolLookupsBeforeLoading { preloadSymbols() }
        let unitOffsets = unitMap.unitOffsets
        var leftovers = Array(uncovered)
        let releaseStep = UInt64(max(reader.debugInfoSize / 4, 1))
        var releasedAt: UInt64 = 0
        while let group = next() {
            let unitIndex = groups.units[group]
            let indices = groups.members[group]
            let unitOffset = unitOffsets[unitIndex]
            if releasingPages, unitOffset >= releasedAt &+ releaseStep {
                releaseResidentPages()
                releasedAt = unitOffset
            }
            let unit = reader.decodeUnit(at: unitOffset, wanted: indices.map { addresses[$0] })
            for index in indices where !inUnit(index, unitIndex, unit) {
                leftovers.append(index)
            }
        }
        for index in leftovers { elsewhere(index) }
    }

    /// `addresses` grouped by the first unit that covers each, units in order (decoding each unit
    /// once, as the batch passes it, keeps memory at one unit's worth however many are hit).
    func unitGroups(_ addresses: [UInt64]) -> UnitGroups {
        let order = addresses.ascendingOrder()
        // An array by unit number: a dictionary hashed every address, 1% of a small binary's
        // batch. One copy of the map (each access to the lazy property copied it, a twentieth of a
        // batch on a small binary), and the first unit found without making the list.
        let map = unitMap
        var byUnit = [[Int]](repeating: [], count: map.unitOffsets.count)
        var groups = UnitGroups()
        var pieces = AscendingCursor()
        for index in order {
            if let unit = map.firstUnit(containing: addresses[index], cursor: &pieces) {
                byUnit[unit].append(index)
            } else {
                groups.uncovered.append(index)
            }
        }
        for (unit, indices) in byUnit.enumerated() where !indices.isEmpty {
            groups.units.append(unit)
            groups.members.append(indices)
        }
        return groups
    }

    func decodedUnit(_ index: Int) -> DecodedUnit {
        if let known = decodedUnits[index] { return known }
        let unit = reader.decodeUnit(at: unitMap.unitOffsets[index])
        if decodedUnits.count >= 256 { decodedUnits.removeAll(keepingCapacity: true) }
        decodedUnits[index] = unit
        return unit
    }

    /// For the index builder: the number of units, one unit decoded whole, names, the symbol table.
    var unitCount: Int { unitMap.unitOffsets.count }

    /// The size of `.debug_info` (the units' DIE bytes).
    var debugInfoSize: Int { reader.debugInfoSize }

    func wholeUnit(_ index: Int) -> DecodedUnit {
        // A build's direct lookups at a unit's edges decode the neighbouring unit whole; when that
        // unit's turn comes, the decoded one is taken instead of decoding it again.
        if let known = decodedUnits.removeValue(forKey: index) { return known }
        return reader.decodeUnit(at: unitMap.unitOffsets[index])
    }

    var functionSymbols: [SymbolEntry] { symbols }

    /// From this many addresses a batch drops the file's pages when done: below it, batches are
    /// the small ones a caller makes again and again, which would fault the same pages back.
    static let batchReleasingPages = 1_000

    /// What libdw answered because the bytes reader declined, and why (`symbolicate --verbose`, `dsyms`).
    var decoderFallbacks: DecoderFallbacks { reader.fallbacks }

    /// Adds the fallbacks another handle on this file counted.
    func adoptFallbacks(_ other: DecoderFallbacks) { reader.adoptFallbacks(other) }

    func name(_ dieOffset: UInt64, isInlined: Bool = false) -> (linkage: String?, plain: String?) {
        if let known = nameCache[dieOffset] { return known }
        // The inlined calls of one function share its abstract origin's names: read once there
        // (following the origin and specification chain again for every call site, and copying
        // the name, was an eighth of an index build).
        if isInlined, let origin = nameOrigin(dieOffset), origin != dieOffset {
            let name = self.name(origin)
            nameCache.set(dieOffset, name)
            return name
        }
        var name = reader.functionName(dieOffset: dieOffset)
        // Swift 3 compilers put the mangled name in `DW_AT_name` (`_TFVs11_StringCore15reserve...`):
        // that is a linkage name, and is reported as one.
        if name.linkage == nil, let plain = name.plain, SymbolName.isMangled(plain) {
            name = (plain, nil)
        }
        nameCache.set(dieOffset, name)
        return name
    }

    /// Where the names of the inlined call at `dieOffset` come from: the DIE whose names
    /// `name(_:isInlined:)` gives it (its abstract origin, followed), nil when it cannot be read.
    func nameOrigin(_ dieOffset: UInt64) -> UInt64? { reader.nameOrigin(dieOffset: dieOffset) }

    /// The inline chain of the frame being visited, reused between lookups (DebugImage+Frames).
    var chainScratch: [Int32] = []
    /// Symbol lookups answered by a pass over the stored table so far, and that pass
    /// (`symbolLookupsBeforeLoading`, DebugImage+Frames).
    var scannedSymbolLookups = 0
    lazy var symbolScan: ELFSymbolTable.Scan? = machO == nil ? reader.symbolScan() : nil
}

@available(*, unavailable) extension DebugImage: Sendable {}
