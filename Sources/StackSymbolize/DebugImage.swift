import Foundation

/// A file mapped read-only into memory; unmapped when the last reference goes.
final class MappedFile {
    let path: String
    let bytes: UnsafeRawBufferPointer
    /// The file as it was when mapped.
    let identity: FileIdentity?
    /// Its slot in `MappedRegions` (a SIGBUS past a new end is caught, not fatal).
    private var region: Int?
    var regionSlot: Int? { region }

    init(path: String) throws(SymbolizeError) {
        self.path = path
        let descriptor = open(path, O_RDONLY | O_CLOEXEC)
        guard descriptor >= 0 else { throw SymbolizeError(path: path, "cannot open: \(String(cString: strerror(errno)))") }
        defer { close(descriptor) }
        var status = stat()
        guard fstat(descriptor, &status) == 0 else {
            throw SymbolizeError(path: path, "cannot stat: \(String(cString: strerror(errno)))")
        }
        guard (status.st_mode & S_IFMT) == S_IFREG else { throw SymbolizeError(path: path, "not a regular file") }
        identity = FileIdentity(descriptor: descriptor)
        let size = Int(status.st_size)
        if size == 0 {
            bytes = UnsafeRawBufferPointer(start: nil, count: 0)
            return
        }
        let address = mmap(nil, size, PROT_READ, MAP_PRIVATE, descriptor, 0)
        guard let address, address != MAP_FAILED else {
            throw SymbolizeError(path: path, "cannot map: \(String(cString: strerror(errno)))")
        }
        bytes = UnsafeRawBufferPointer(start: address, count: size)
        region = MappedRegions.register(address, count: size)
    }

    /// True when the file was truncated under the mapping (a read faulted past its end) or is no
    /// longer the file that was mapped (replaced, rewritten, resized).
    var hasChanged: Bool {
        MappedRegions.isDamaged(region) || FileIdentity(path: path) != identity
    }

    var view: ByteView { ByteView(bytes: bytes, path: path) }

    deinit {
        MappedRegions.unregister(region)
        if let base = bytes.baseAddress { munmap(UnsafeMutableRawPointer(mutating: base), bytes.count) }
    }
}

/// One frame as DWARF gives it, before demangling.
struct RawFrame: Sendable, Hashable {
    var linkageName: String?
    var plainName: String?
    var file: String?
    var line: Int?
    var isInlined: Bool
}

/// What one address resolved to in one debug image.
struct RawLookup: Sendable {
    enum Source: Sendable { case dwarf, symbolTable, none }
    var source: Source
    var frames: [RawFrame]
    var functionStart: UInt64? = nil
}

/// The instruction set, for the caller-address rule (SPEC section 6).
enum InstructionSet: Sendable {
    case arm64, x86, other

    /// The caller's instruction for a return address: arm64 aligns down to 4 and steps back one
    /// instruction; x86 steps back one byte (anything inside the call instruction will do).
    func callerAddress(_ returnAddress: UInt64) -> UInt64 {
        switch self {
        case .arm64: return returnAddress >= 4 ? (returnAddress & ~3) - 4 : 0
        case .x86, .other: return returnAddress >= 1 ? returnAddress - 1 : 0
        }
    }
}

/// An opened debug image (an ELF file or one Mach-O slice): address → frames, inline chain included.
///
/// Units are decoded on first use and kept, so a batch pays once per unit it touches. Not
/// thread-safe (it owns a libdw handle); a parallel batch opens one per thread.
final class DebugImage {
    let path: String
    let textBase: UInt64
    let instructionSet: InstructionSet
    private let reader: DwarfReader
    private let machO: (file: MappedFile, slice: MachOSlice)?
    private(set) lazy var unitMap: UnitAddressMap = UnitAddressMap(reader.unitRanges())
    private var decodedUnits: [Int: DecodedUnit] = [:]
    /// Loaded once and shared with `reopened()` copies (names are offsets, valid in either).
    private var sharedSymbols = SharedSymbols()
    private var symbols: [SymbolEntry] {
        sharedSymbols.table {
            if let machO { return MachOReader.functionSymbols(of: machO.slice, view: machO.file.view) }
            return reader.functionSymbols()
        }
    }
    /// The bytes symbol names point into.
    private lazy var nameBytes: UnsafeRawBufferPointer = machO?.file.bytes ?? reader.fileBytes() ?? UnsafeRawBufferPointer(start: nil, count: 0)

    /// A symbol's name, read from the file (NUL-terminated; the string table's end is checked when loading).
    func name(of symbol: SymbolEntry) -> String {
        let bytes = nameBytes
        guard symbol.nameOffset < bytes.count else { return "??" }
        var end = symbol.nameOffset
        while end < bytes.count, bytes[end] != 0 { end += 1 }
        return String(decoding: UnsafeRawBufferPointer(rebasing: bytes[symbol.nameOffset..<end]), as: UTF8.self)
    }
    private var nameCache: [UInt64: (linkage: String?, plain: String?)] = [:]

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
            elfImage: MachOReader.liftedELFImage(of: slice, view: file.view), path: file.path, withDWARF: !slice.dwarfSections.isEmpty)
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

    /// The cheap half of `hasChanged` (no `stat`): a read faulted past the file's end.
    var wasCutShort: Bool { machO.map { MappedRegions.isDamaged($0.file.regionSlot) } ?? reader.wasCutShort }

    private var identityCheck = IdentityCheckPace()

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
    func reopened() throws(SymbolizeError) -> DebugImage {
        let other = machO == nil ? try DebugImage(elfPath: path) : try DebugImage(machO: machO!.file, slice: machO!.slice)
        other.unitMap = unitMap
        other.sharedSymbols = sharedSymbols
        return other
    }

    /// Opens a second handle later, on another thread, without touching this one then: the worker
    /// opens its handle and loads the shared symbol table while this thread builds the unit map.
    func reopener() -> @Sendable () throws(SymbolizeError) -> DebugImage {
        nonisolated(unsafe) let machO = machO
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

    /// Looks up one address in the image's address space. `given` is a unit the caller already
    /// decoded whole (the index builder), used instead of decoding it again.
    func lookup(_ address: UInt64, given: (index: Int, unit: DecodedUnit)? = nil) -> RawLookup {
        for unitIndex in unitMap.units(containing: address) {
            let unit = given?.index == unitIndex ? given!.unit : decodedUnit(unitIndex)
            if let found = frames(in: unit, at: address) { return found }
        }
        if let symbol = symbol(containing: address) {
            return RawLookup(
                source: .symbolTable, frames: [RawFrame(linkageName: name(of: symbol), plainName: nil, file: nil, line: nil, isInlined: false)],
                functionStart: symbol.address)
        }
        return RawLookup(source: .none, frames: [])
    }

    /// Looks up many addresses, decoding each unit once and dropping it when the batch has moved
    /// past it, so memory stays at one unit's worth however many units are hit.
    func lookupBatch(_ addresses: [UInt64]) -> [RawLookup] {
        var results = [RawLookup](repeating: RawLookup(source: .none, frames: []), count: addresses.count)
        let order = addresses.indices.sorted { addresses[$0] < addresses[$1] }
        // Group by the first unit that covers each address; units are visited once each.
        var byUnit: [Int: [Int]] = [:]
        var leftovers: [Int] = []
        for index in order {
            if let unit = unitMap.units(containing: addresses[index]).first {
                byUnit[unit, default: []].append(index)
            } else {
                leftovers.append(index)
            }
        }
        for (unitIndex, indices) in byUnit.sorted(by: { $0.key < $1.key }) {
            let unit = reader.decodeUnit(at: unitMap.unitOffsets[unitIndex], wanted: indices.map { addresses[$0] })
            for index in indices {
                if let found = frames(in: unit, at: addresses[index]) {
                    results[index] = found
                } else {
                    leftovers.append(index)
                }
            }
        }
        for index in leftovers {
            results[index] = lookup(addresses[index])
        }
        return results
    }

    private func decodedUnit(_ index: Int) -> DecodedUnit {
        if let known = decodedUnits[index] { return known }
        let unit = reader.decodeUnit(at: unitMap.unitOffsets[index])
        if decodedUnits.count >= 256 { decodedUnits.removeAll(keepingCapacity: true) }
        decodedUnits[index] = unit
        return unit
    }

    /// For the index builder: the number of units, one unit decoded whole, names, the symbol table.
    var unitCount: Int { unitMap.unitOffsets.count }

    func wholeUnit(_ index: Int) -> DecodedUnit { reader.decodeUnit(at: unitMap.unitOffsets[index]) }

    /// `wholeUnit` with the DIE tree walked by libdw instead of over the section bytes (for tests:
    /// both walks must give the same tree).
    var unitsWalkedByLibdw: Int { reader.unitsWalkedByLibdw }

    func wholeUnitWalkedByLibdw(_ index: Int) -> DecodedUnit {
        reader.decodeUnit(at: unitMap.unitOffsets[index], walkingBytes: false)
    }

    var functionSymbols: [SymbolEntry] { symbols }

    func name(_ dieOffset: UInt64) -> (linkage: String?, plain: String?) {
        if let known = nameCache[dieOffset] { return known }
        var name = reader.functionName(dieOffset: dieOffset)
        // Swift 3 compilers put the mangled name in `DW_AT_name` (`_TFVs11_StringCore15reserve...`):
        // that is a linkage name, and is reported as one.
        if name.linkage == nil, let plain = name.plain, SwiftNames.isSwiftMangled(plain) || SwiftNames.isCxxMangled(plain) {
            name = (plain, nil)
        }
        nameCache[dieOffset] = name
        return name
    }

    /// The inline chain at `address`, innermost first, or `nil` when the unit has neither a
    /// function nor a line there.
    private func frames(in unit: DecodedUnit, at address: UInt64) -> RawLookup? {
        let chain = unit.scopeChain(at: address)
        let location = unit.location(at: address)
        if chain.isEmpty {
            guard let location else { return nil }
            // A line but no function DIE: the symbol table names it, as llvm-symbolizer does.
            let symbol = symbol(containing: address)
            return RawLookup(
                source: .dwarf,
                frames: [RawFrame(linkageName: symbol.map { name(of: $0) }, plainName: nil, file: location.file, line: location.line, isInlined: false)],
                functionStart: symbol?.address)
        }
        var frames: [RawFrame] = []
        frames.reserveCapacity(chain.count)
        for position in stride(from: chain.count - 1, through: 0, by: -1) {
            let node = unit.nodes[Int(chain[position])]
            var names = name(node.dieOffset)
            // The outermost frame is a real function, so the symbol table has its linkage name even
            // where the DWARF gives only `DW_AT_name` (line-tables-only builds, Objective-C methods,
            // `operator new`, a bitcode build's `__hidden#12_`): atos and llvm-symbolizer print that.
            if position == 0, names.linkage == nil, let symbol = symbol(containing: address) {
                names = (self.name(of: symbol), nil)
            }
            var file: String?
            var line: Int?
            if position == chain.count - 1 {
                file = location?.file
                line = location?.line
            } else {
                let callee = unit.nodes[Int(chain[position + 1])]
                if callee.callFile >= 0, Int(callee.callFile) < unit.callFileNames.count {
                    file = unit.callFileNames[Int(callee.callFile)]
                }
                line = Int(callee.callLine)
            }
            frames.append(RawFrame(linkageName: names.linkage, plainName: names.plain, file: file, line: line, isInlined: position > 0))
        }
        return RawLookup(source: .dwarf, frames: frames, functionStart: unit.start(of: chain[0], containing: address))
    }

    func symbol(containing address: UInt64) -> SymbolEntry? {
        let table = symbols
        var low = 0
        var high = table.count
        while low < high {
            let middle = (low + high) / 2
            if table[middle].address <= address { low = middle + 1 } else { high = middle }
        }
        guard low > 0 else { return nil }
        // Sizes are bounded when the table is loaded (to the next symbol or the section's end), so
        // an address past the last function, or before the first, is not found.
        let candidate = table[low - 1]
        guard address - candidate.address < candidate.size else { return nil }
        return candidate
    }
}

@available(*, unavailable) extension DebugImage: Sendable {}

/// A symbol table loaded once by whichever thread asks first.
final class SharedSymbols: @unchecked Sendable {
    private let lock = NSLock()
    private var loaded: [SymbolEntry]?

    func table(_ load: () -> [SymbolEntry]) -> [SymbolEntry] {
        lock.lock()
        defer { lock.unlock() }
        if let loaded { return loaded }
        let table = load()
        loaded = table
        return table
    }
}

/// Units' address ranges made disjoint: each piece lists the units covering it, smallest range
/// first, so an address finds its unit by one binary search even when units overlap.
struct UnitAddressMap {
    var unitOffsets: [UInt64] = []
    private var starts: [UInt64] = []
    private var ends: [UInt64] = []
    private var firstCandidate: [Int32] = []
    private var candidates: [Int32] = []

    init(_ units: [UnitRanges]) {
        var ranges: [(low: UInt64, high: UInt64, unit: Int32)] = []
        for (index, unit) in units.enumerated() {
            unitOffsets.append(unit.unitDIEOffset)
            // A range at 0 is a function the linker dropped; nothing real lives there.
            for range in unit.ranges where range.low != 0 { ranges.append((range.low, range.high, Int32(index))) }
        }
        ranges.sort { $0.low < $1.low }
        // Sweep over range boundaries. (Built on every cold run before any lookup, so it avoids a
        // Set and an allocation per boundary: most pieces have one unit.)
        var boundaries: [UInt64] = []
        boundaries.reserveCapacity(ranges.count * 2)
        for range in ranges {
            boundaries.append(range.low)
            boundaries.append(range.high)
        }
        boundaries.sort()
        var unique = 0
        for value in boundaries where unique == 0 || boundaries[unique - 1] != value {
            boundaries[unique] = value
            unique += 1
        }
        boundaries.removeSubrange(unique...)
        var active: [(high: UInt64, size: UInt64, unit: Int32)] = []
        var units: [Int32] = []
        var next = 0
        for (position, point) in boundaries.enumerated() where position + 1 < boundaries.count {
            if !active.isEmpty { active.removeAll { $0.high <= point } }
            while next < ranges.count, ranges[next].low <= point {
                if ranges[next].high > point {
                    active.append((ranges[next].high, ranges[next].high - ranges[next].low, ranges[next].unit))
                }
                next += 1
            }
            guard !active.isEmpty else { continue }
            let end = boundaries[position + 1]
            units.removeAll(keepingCapacity: true)
            if active.count == 1 {
                units.append(active[0].unit)
            } else {
                // Smallest range first; equal sizes keep their order (the sort is stable).
                units.append(contentsOf: active.sorted { $0.size < $1.size }.map(\.unit))
            }
            if let last = starts.indices.last, ends[last] == point,
                candidates[Int(firstCandidate[last])...].elementsEqual(units)
            {
                ends[last] = end
                continue
            }
            starts.append(point)
            ends.append(end)
            firstCandidate.append(Int32(candidates.count))
            candidates.append(contentsOf: units)
        }
        firstCandidate.append(Int32(candidates.count))
    }

    /// Every piece's start and end: where the units covering an address change.
    var boundaries: [UInt64] { starts + ends }

    func units(containing address: UInt64) -> [Int] {
        var low = 0
        var high = starts.count
        while low < high {
            let middle = (low + high) / 2
            if starts[middle] <= address { low = middle + 1 } else { high = middle }
        }
        guard low > 0, address < ends[low - 1] else { return [] }
        return candidates[Int(firstCandidate[low - 1])..<Int(firstCandidate[low])].map { Int($0) }
    }
}

extension DecodedUnit {
    /// Node indices from the outermost function to the innermost inlined call at `address`.
    func scopeChain(at address: UInt64) -> [Int32] {
        var low = 0
        var high = topLevel.count
        while low < high {
            let middle = (low + high) / 2
            if topLevel[middle].low <= address { low = middle + 1 } else { high = middle }
        }
        // Roots rarely overlap: look back a little. Where several hold the address (a nested
        // function whose code lies inside its parent's range, overlapping functions), the smallest
        // range is the innermost one, as llvm-symbolizer's address map has it; ties go to the later DIE.
        var top: Int32 = -1
        var topSize = UInt64.max
        var candidate = low - 1
        while candidate >= 0, low - candidate <= 16 {
            let root = topLevel[candidate]
            if address < root.high, root.high - root.low < topSize || (root.high - root.low == topSize && root.node > top) {
                top = root.node
                topSize = root.high - root.low
            }
            candidate -= 1
        }
        guard top >= 0 else { return [] }
        var chain: [Int32] = [top]
        var current = top
        descend: while true {
            var child = nodes[Int(current)].firstChild
            while child >= 0 {
                if contains(child, address) {
                    if nodes[Int(child)].isInlined {
                        chain.append(child)
                    } else {
                        chain = [child]  // A nested function starts its own chain.
                    }
                    current = child
                    continue descend
                }
                child = nodes[Int(child)].nextSibling
            }
            break
        }
        return chain
    }

    /// The low end of the node's range that holds `address`.
    func start(of node: Int32, containing address: UInt64) -> UInt64? {
        let scope = nodes[Int(node)]
        for index in Int(scope.rangeStart)..<Int(scope.rangeStart + scope.rangeCount) {
            let range = nodeRanges[index]
            if range.low <= address, address < range.high { return range.low }
        }
        return nil
    }

    private func contains(_ node: Int32, _ address: UInt64) -> Bool {
        let scope = nodes[Int(node)]
        for index in Int(scope.rangeStart)..<Int(scope.rangeStart + scope.rangeCount) {
            let range = nodeRanges[index]
            if range.low <= address, address < range.high { return true }
        }
        return false
    }

    /// The line row covering `address`: the last row at or before it, unless that row ends a sequence.
    func location(at address: UInt64) -> (file: String?, line: Int)? {
        var low = 0
        var high = lineAddress.count
        while low < high {
            let middle = (low + high) / 2
            if lineAddress[middle] <= address { low = middle + 1 } else { high = middle }
        }
        guard low > 0 else { return nil }
        let row = low - 1
        let file = lineFile[row]
        if file == -1 { return nil }
        return (file >= 0 ? lineFileNames[Int(file)] : nil, Int(lineNumber[row]))
    }
}
