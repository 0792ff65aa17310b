private let none = SymbolIndexFormat.none
private typealias Header = SymbolIndexFormat.Header
private typealias Location = SymbolIndexFormat.LocationRecord
private typealias Symbol = SymbolIndexFormat.SymbolRecord

/// A symbol index opened for lookups: memory-mapped, binary-searched, nothing decoded up front.
/// Answers are cached per location, so a frame seen before costs a binary search.
final class SymbolIndex {
    let path: String
    /// True when the file opened was changed after it was opened (truncated under the mapping, a
    /// read came back short, rewritten in place: another size or mtime of the open file itself):
    /// what was read from it is not to be trusted.
    ///
    /// Another file at the path is not a change: indexes are only ever put in place by a rename, so
    /// a new file there is another run's whole index, and the one open here stays whole (an open
    /// file outlives its name). Looking at the path, not the open file, made concurrent builders
    /// fail with "changed while it was read".
    var hasChanged: Bool {
        MappedRegions.isDamaged(file.regionSlot) || pages.readFailed || file.descriptor.flatMap(FileIdentity.init(descriptor:)) != file.identity
    }

    private var identityCheck = IdentityCheckPace()

    /// For lookups one by one: the damage marks every time, the open file's identity (an `fstat`)
    /// at most once a second.
    func changedSinceLastCheck() -> Bool {
        if identityCheck.isDue() { return hasChanged }
        return MappedRegions.isDamaged(file.regionSlot) || pages.readFailed
    }
    let textBase: UInt64
    /// Entry and function starts are stored as 32-bit offsets from this address.
    private let addressBase: UInt64
    /// Symbol starts are stored as 32-bit offsets from this address.
    private let symbolBase: UInt64
    private let file: MappedFile
    private let entryCount: Int
    private let locationCount: Int
    private let symbolCount: Int
    private let stringCount: Int
    private let startsOffset: Int
    private let entryLocationsOffset: Int
    private let locationsOffset: Int
    private let symbolsOffset: Int
    private let stringOffsetsOffset: Int
    private let simplifiedOffset: Int
    private let blobOffset: Int
    /// Answers per location, kept as they are asked for (a dictionary: allocating, then destroying,
    /// an array of all 1.3 million locations was most of a short warm run).
    private var answers: [UInt32: RawLookup] = [:]
    /// Every 256th range start, so a search touches a small hot table and then one 2 KB block of
    /// the mapped starts instead of ~20 scattered pages.
    private let sampledStarts: [UInt64]
    static let blockSize = 256
    /// Which few sampled starts an address can lie between, so the search skips most of them.
    private let sampleBuckets: SampleBuckets
    /// Lookups read through these: their own pages for a short run, the mapping for a long one.
    private let pages: SymbolIndexPages

    init(path: String) throws(SymbolizeError) {
        self.path = path
        file = try MappedFile(path: path, keepingDescriptor: true)
        let view = file.view
        guard view.count >= SymbolIndexFormat.headerSize, try view.u64(Header.magic) == SymbolIndexFormat.magic,
            try view.u32(Header.version) == SymbolIndexFormat.version
        else {
            throw SymbolizeError.unsupported(path: path, "not a symbol index of this version")
        }
        func count(_ at: Int) throws(SymbolizeError) -> Int {
            let value = try view.u64(at)
            guard value < UInt64(view.count) else { throw SymbolizeError.corrupt(path: path, "symbol index header is corrupt") }
            return Int(value)
        }
        entryCount = try count(Header.entryCount)
        locationCount = try count(Header.locationCount)
        symbolCount = try count(Header.symbolCount)
        stringCount = try count(Header.stringCount)
        let blobSize = try count(Header.stringBytes)
        textBase = try view.u64(Header.textBase)
        addressBase = try view.u64(Header.addressBase)
        symbolBase = try view.u64(Header.symbolBase)
        func aligned(_ value: Int) -> Int { (value + 7) & ~7 }
        startsOffset = SymbolIndexFormat.headerSize
        entryLocationsOffset = aligned(startsOffset + entryCount * 4)
        locationsOffset = aligned(entryLocationsOffset + entryCount * 4)
        symbolsOffset = aligned(locationsOffset + locationCount * SymbolIndexFormat.locationSize)
        stringOffsetsOffset = symbolsOffset + symbolCount * SymbolIndexFormat.symbolSize
        simplifiedOffset = stringOffsetsOffset + (stringCount + 1) * 4
        blobOffset = aligned(simplifiedOffset + stringCount * 4)
        let samplesOffset = aligned(blobOffset + blobSize)
        let sampleCount = (entryCount + Self.blockSize - 1) / Self.blockSize
        let checksumOffset = aligned(samplesOffset + sampleCount * 4)
        guard checksumOffset + 8 == view.count else {
            throw SymbolizeError.corrupt(path: path, "symbol index is truncated or corrupt (size)")
        }
        // Every byte is checked once, read through a small buffer rather than the mapping so the
        // check does not make the whole index resident; a flipped byte means a rebuild.
        guard try IndexChecksum.of(descriptor: file.descriptor!, path: path, length: checksumOffset) == view.u64(checksumOffset) else {
            throw SymbolizeError.corrupt(path: path, "symbol index is corrupt (checksum)")
        }
        let pages = try SymbolIndexPages(file: file)
        self.pages = pages
        let base = addressBase
        sampledStarts = (0..<sampleCount).map { base &+ UInt64(pages.load(samplesOffset + $0 * 4, as: UInt32.self)) }
        sampleBuckets = SampleBuckets(sampledStarts)
    }

    @inline(__always) private func u64(_ at: Int) -> UInt64 { pages.load(at, as: UInt64.self) }

    @inline(__always) private func u32(_ at: Int) -> UInt32 { pages.load(at, as: UInt32.self) }

    private func string(_ index: UInt32) -> String? {
        guard index != none, Int(index) < stringCount else { return nil }
        let start = Int(u32(stringOffsetsOffset + Int(index) * 4))
        let end = Int(u32(stringOffsetsOffset + Int(index) * 4 + 4))
        guard start <= end, blobOffset + end <= file.bytes.count else { return nil }
        return pages.string((blobOffset + start)..<(blobOffset + end))
    }

    /// Where an address lands: a location record, a symbol-table entry, or nothing.
    enum Place: Hashable {
        case location(UInt32)
        case symbol(Int)
        case nothing
    }

    /// The frames at `address`, innermost first, as the DWARF path would give them.
    func lookup(_ address: UInt64) -> RawLookup {
        switch place(of: address) {
        case .location(let location): return answer(location)
        case .symbol(let symbol): return symbolAnswer(symbol)
        case .nothing: return RawLookup(source: .none, frames: [])
        }
    }

    /// Stacks repeat the same hot addresses: a direct-mapped cache of recent answers saves the
    /// search and its cache misses in the mapped file.
    private var recentAddresses = [UInt64](repeating: .max, count: 1 << 16)
    private var recentPlaces = [Place](repeating: .nothing, count: 1 << 16)

    /// Where `address` lands; `lookup` or a caller's own cache turns the place into frames.
    func place(of address: UInt64) -> Place {
        pages.settle()
        let slot = Int(truncatingIfNeeded: (address &* 0x9E37_79B9_7F4A_7C15) >> 48)
        if recentAddresses[slot] == address { return recentPlaces[slot] }
        let found = searchPlace(address)
        recentAddresses[slot] = address
        recentPlaces[slot] = found
        return found
    }

    private func searchPlace(_ address: UInt64) -> Place {
        let samples = sampledStarts
        var (blockLow, blockHigh) = sampleBuckets.candidates(address, sampleCount: samples.count)
        while blockLow < blockHigh {
            let middle = (blockLow + blockHigh) >> 1
            if samples[middle] <= address { blockLow = middle + 1 } else { blockHigh = middle }
        }
        // Entries at or before `address` all lie before block `blockLow`.
        var low = blockLow == 0 ? 0 : (blockLow - 1) * Self.blockSize
        var high = min(entryCount, blockLow * Self.blockSize)
        if let finer = finerSamples, address >= addressBase {
            // The same search over the finer samples of the block, then over 16 entries.
            let target = address - addressBase
            var fineLow = low / Self.finerBlockSize
            var fineHigh = (high + Self.finerBlockSize - 1) / Self.finerBlockSize
            while fineLow < fineHigh {
                let middle = (fineLow + fineHigh) >> 1
                if UInt64(finer[middle]) <= target { fineLow = middle + 1 } else { fineHigh = middle }
            }
            low = max(low, fineLow == 0 ? 0 : (fineLow - 1) * Self.finerBlockSize)
            high = min(high, fineLow * Self.finerBlockSize)
        }
        while low < high {
            let middle = (low + high) >> 1
            if addressBase &+ UInt64(u32(startsOffset + middle * 4)) <= address { low = middle + 1 } else { high = middle }
        }
        if low > 0 {
            let location = u32(entryLocationsOffset + (low - 1) * 4)
            if location != none, Int(location) < locationCount { return .location(location) }
        }
        return symbolPlace(address)
    }

    func answer(_ location: UInt32) -> RawLookup {
        if let known = answers[location] { return known }
        pages.settle()
        var frames: [RawFrame] = []
        var current = location
        var start: UInt64 = 0
        while current != none, Int(current) < locationCount {
            let at = locationsOffset + Int(current) * SymbolIndexFormat.locationSize
            let nameIndex = u32(at + Location.name)
            let name = string(nameIndex)
            let file = string(u32(at + Location.file))
            let line = u32(at + Location.line)
            let parentAndFlags = u32(at + Location.parentAndFlags)
            let isLinkage = parentAndFlags & SymbolIndexFormat.linkageFlag != 0
            frames.append(
                RawFrame(
                    linkageName: isLinkage ? name : nil, plainName: isLinkage ? nil : name, file: file,
                    line: line == none ? nil : Int(line), isInlined: parentAndFlags & SymbolIndexFormat.inlinedFlag != 0,
                    simplifiedName: name == nil ? nil : simplifiedString(nameIndex)))
            let startField = u32(at + Location.functionStart)
            start = startField == 0 ? 0 : addressBase &+ UInt64(startField - 1)
            current = Self.parent(parentAndFlags, of: current)
        }
        // 0 is what the builder stores when no function or symbol gave a start (a line row alone).
        let result = RawLookup(source: .dwarf, frames: frames, functionStart: start == 0 ? nil : start)
        answers[location] = result
        return result
    }

    /// Reads through the mapping from now on, for a batch that reads much of the index, maybe on
    /// two threads: `place(of:using:)` and `visitFrames` then change nothing in the index.
    func readThroughMapping() {
        pages.useMapping()
        // The symbols' starts, every 12 bytes in the file, as one dense array: the search for an
        // address DWARF does not cover then misses the cache a few times, not on every step (it
        // was a sixth of a warm run of a million distinct addresses).
        if symbolStarts == nil { symbolStarts = (0..<symbolCount).map(symbolStart) }
        // Every 16th entry start, in memory: the search within a 256-entry block then reads one
        // 64-byte line of the mapping instead of eight scattered ones.
        if finerSamples == nil {
            finerSamples = stride(from: 0, to: entryCount, by: Self.finerBlockSize).map { u32(startsOffset + $0 * 4) }
        }
    }

    /// Every `finerBlockSize`th entry start (as stored: an offset from the address base), loaded by
    /// `readThroughMapping`.
    private var finerSamples: [UInt32]?
    static let finerBlockSize = 16

    /// The symbols' starts, loaded by `readThroughMapping`.
    private var symbolStarts: [UInt64]?

    /// A direct-mapped cache of places by address, one per thread of a batch (the index's own
    /// cache is not shared between threads).
    struct PlaceCache {
        fileprivate var addresses = [UInt64](repeating: .max, count: 1 << 14)
        fileprivate var places = [Place](repeating: .nothing, count: 1 << 14)
    }

    /// Where `address` lands, remembered in `cache`.
    func place(of address: UInt64, using cache: inout PlaceCache) -> Place {
        pages.settle()
        let slot = Int(truncatingIfNeeded: (address &* 0x9E37_79B9_7F4A_7C15) >> 50)
        if cache.addresses[slot] == address { return cache.places[slot] }
        let found = searchPlace(address)
        cache.addresses[slot] = address
        cache.places[slot] = found
        return found
    }

    /// One source frame as the index stores it, read in place. The bytes are valid only inside the
    /// visitor they are given to.
    struct FrameBytes {
        /// The simplified name (`Type.member`); nil for a frame DWARF gave no name.
        var simplifiedName: UnsafeRawBufferPointer?
        /// The full source path.
        var file: UnsafeRawBufferPointer?
        var line: UInt32?
        var isInlined: Bool
    }

    /// Calls `visit` for each frame at `place`, innermost first, with names and paths as the
    /// index's own bytes (nothing demangled, nothing copied), and returns the outermost function's
    /// start. The same frames `answer` and `symbolAnswer` give, with each name's simplified form.
    ///
    /// The visitor is given the outermost function's start with every frame (for `name + offset`),
    /// so the chain is walked twice: once for the start, which the outermost record holds, then
    /// for the frames.
    func visitFrames(at place: Place, _ visit: (FrameBytes, _ functionStart: UInt64?) -> Void) {
        switch place {
        case .nothing: return
        case .symbol(let symbol):
            let at = symbolsOffset + symbol * SymbolIndexFormat.symbolSize
            let start = symbolStart(symbol)
            guard let name = simplifiedBytes(u32(at + Symbol.name)) else { return }
            visit(FrameBytes(simplifiedName: name, file: nil, line: nil, isInlined: false), start)
        case .location(let location):
            var start: UInt64 = 0
            walkChain(from: location) { at in
                let startField = u32(at + Location.functionStart)
                start = startField == 0 ? 0 : addressBase &+ UInt64(startField - 1)
            }
            // 0 is what the builder stores when no function or symbol gave a start.
            let functionStart = start == 0 ? nil : start
            walkChain(from: location) { at in
                let line = u32(at + Location.line)
                visit(
                    FrameBytes(
                        simplifiedName: simplifiedBytes(u32(at + Location.name)), file: stringBytes(u32(at + Location.file), slot: 1),
                        line: line == none ? nil : line,
                        isInlined: u32(at + Location.parentAndFlags) & SymbolIndexFormat.inlinedFlag != 0), functionStart)
            }
        }
    }

    /// Calls `body` with the file offset of each location record from `location` up its parents,
    /// as `answer` walks them.
    @inline(__always) private func walkChain(from location: UInt32, _ body: (Int) -> Void) {
        var current = location
        while current != none, Int(current) < locationCount {
            let at = locationsOffset + Int(current) * SymbolIndexFormat.locationSize
            body(at)
            current = Self.parent(u32(at + Location.parentAndFlags), of: current)
        }
    }

    /// The parent of location `current` from its parent-and-flags field, or `none`. The builder
    /// makes every parent before its children, so a parent's number is lower: the walk goes down
    /// and ends, at any inline depth (a cap of 256 steps once cut a 3,000-deep chain). A parent
    /// that is not lower cannot come from the builder and ends the walk.
    @inline(__always) private static func parent(_ parentAndFlags: UInt32, of current: UInt32) -> UInt32 {
        let parent = parentAndFlags & SymbolIndexFormat.parentMask
        return parent == SymbolIndexFormat.parentMask || parent >= current ? none : parent
    }

    /// The simplified form of name string `index`, as a String.
    private func simplifiedString(_ index: UInt32) -> String? {
        guard index != none, Int(index) < stringCount else { return nil }
        return string(u32(simplifiedOffset + Int(index) * 4))
    }

    /// The simplified form of name string `index`, in place.
    private func simplifiedBytes(_ index: UInt32) -> UnsafeRawBufferPointer? {
        guard index != none, Int(index) < stringCount else { return nil }
        return stringBytes(u32(simplifiedOffset + Int(index) * 4), slot: 0)
    }

    private func stringBytes(_ index: UInt32, slot: Int) -> UnsafeRawBufferPointer? {
        guard index != none, Int(index) < stringCount else { return nil }
        let start = Int(u32(stringOffsetsOffset + Int(index) * 4))
        let end = Int(u32(stringOffsetsOffset + Int(index) * 4 + 4))
        guard start <= end, blobOffset + end <= file.bytes.count else { return nil }
        return pages.bytes((blobOffset + start)..<(blobOffset + end), slot: slot)
    }

    @inline(__always) private func symbolStart(_ symbol: Int) -> UInt64 {
        symbolBase &+ UInt64(u32(symbolsOffset + symbol * SymbolIndexFormat.symbolSize + Symbol.start))
    }

    private func symbolPlace(_ address: UInt64) -> Place {
        var low = 0
        var high = symbolCount
        if let starts = symbolStarts {
            while low < high {
                let middle = (low + high) >> 1
                if starts[middle] <= address { low = middle + 1 } else { high = middle }
            }
        } else {
            while low < high {
                let middle = (low + high) >> 1
                if symbolStart(middle) <= address { low = middle + 1 } else { high = middle }
            }
        }
        guard low > 0 else { return .nothing }
        let start = symbolStart(low - 1)
        let size = UInt64(u32(symbolsOffset + (low - 1) * SymbolIndexFormat.symbolSize + Symbol.length))
        // As `DebugImage.symbol(containing:)`: sizes are bounded when the table is loaded.
        guard address - start < size else { return .nothing }
        return .symbol(low - 1)
    }

    func symbolAnswer(_ symbol: Int) -> RawLookup {
        pages.settle()
        let start = symbolStart(symbol)
        let nameIndex = u32(symbolsOffset + symbol * SymbolIndexFormat.symbolSize + Symbol.name)
        guard let name = string(nameIndex) else { return RawLookup(source: .none, frames: []) }
        return RawLookup(
            source: .symbolTable,
            frames: [
                RawFrame(linkageName: name, plainName: nil, file: nil, line: nil, isInlined: false, simplifiedName: simplifiedString(nameIndex))
            ],
            functionStart: start)
    }
}

@available(*, unavailable) extension SymbolIndex: Sendable {}
