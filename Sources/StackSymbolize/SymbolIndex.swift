import Foundation

// The warm path (issue 5): one compact file per debug image, in the spirit of GSYM and symcache.
// Every address range of the image maps to a location record; a record is (name, file, line,
// parent record) so the inline chain is a walk up parents. The file is memory-mapped and searched
// in place; nothing is parsed when it is opened.
//
// Layout, little-endian, every array 8-byte aligned:
//   header (64 bytes): magic "YUISYMX1", version, reserved, entry count, location count,
//                      symbol count, string count, string bytes, text base
//   entry starts      UInt64 × entries (sorted; each entry runs to the next one's start)
//   entry locations   UInt32 × entries (a location index, or `none` for a gap), padded
//   locations         32 bytes each: name, file, line, parent, flags (UInt32), pad, function start (UInt64)
//   symbols           24 bytes each: address, size (UInt64), name (UInt32), pad — the symbol-table fallback
//   string offsets    UInt32 × (strings + 1), padded
//   string bytes, padded
//   sampled starts    UInt64 × ceil(entries / 256): every 256th entry start, so opening reads these
//                     few pages instead of touching every page of the entry starts
//   checksum          UInt64: `IndexChecksum` of every byte before it

private let indexMagic: UInt64 = 0x3158_4D59_5349_5559  // "YUISYMX1" read little-endian
private let indexVersion: UInt32 = 3
private let none: UInt32 = .max

/// Builds the index of one debug image.
enum SymbolIndexBuilder {
    struct Location: Hashable {
        var name: UInt32
        var file: UInt32
        var line: UInt32
        var parent: UInt32
        var inlined: Bool
        var isLinkage: Bool
        var start: UInt64
    }

    /// What one thread produces over its share of the units.
    struct Part {
        var starts: [UInt64] = []
        var locations: [UInt32] = []
        var table: [Location] = []
        var strings: [String] = []
        var stringIndex: [String: UInt32] = [:]
        var locationIndex: [Location: UInt32] = [:]

        mutating func string(_ text: String?) -> UInt32 {
            guard let text else { return none }
            if let known = stringIndex[text] { return known }
            let index = UInt32(strings.count)
            strings.append(text)
            stringIndex[text] = index
            return index
        }

        /// The location records of a direct answer (outermost first, each the parent of the next);
        /// returns the innermost one's index.
        mutating func record(_ answer: RawLookup) -> UInt32 {
            var current = none
            for (position, frame) in answer.frames.reversed().enumerated() {
                current = location(
                    Location(
                        name: string(frame.linkageName ?? frame.plainName), file: string(frame.file),
                        line: frame.line.map { UInt32(clamping: $0) } ?? none, parent: current, inlined: frame.isInlined,
                        isLinkage: frame.linkageName != nil, start: position == 0 ? answer.functionStart ?? 0 : 0))
            }
            return current
        }

        mutating func location(_ value: Location) -> UInt32 {
            if let known = locationIndex[value] { return known }
            let index = UInt32(table.count)
            table.append(value)
            locationIndex[value] = index
            return index
        }
    }

    /// The entries of the units `units` of `image`: one per place where the answer may change (a
    /// line row, a function's or inlined call's range end, a unit's range end, and `extraPoints`:
    /// symbol starts and ends, since outermost names and line-only answers come from the symbol
    /// table). Each entry holds exactly what the direct lookup (`DebugImage.lookup`) answers there,
    /// so an index can never say something else than the debug file; between two points that
    /// answer cannot change. Entries are not deduplicated here: the merge does it once the parts'
    /// points are interleaved.
    static func part(_ image: DebugImage, units: Range<Int>, extraPoints: [UInt64]) -> Part {
        var part = Part()
        func add(_ points: [UInt64], given: (index: Int, unit: DecodedUnit)?) {
            var previous: UInt64?
            for point in points where point != previous {
                previous = point
                let answer = image.lookup(point, given: given)
                part.starts.append(point)
                part.locations.append(answer.source == .dwarf ? part.record(answer) : none)
            }
        }
        for unitIndex in units {
            let unit = image.wholeUnit(unitIndex)
            var boundaries: [UInt64] = unit.lineAddress
            for range in unit.nodeRanges where range.low != 0 {
                boundaries.append(range.low)
                boundaries.append(range.high)
            }
            boundaries.sort()
            add(boundaries, given: (unitIndex, unit))
        }
        add(extraPoints, given: nil)
        return part
    }

    /// Builds the index with two threads (each its own libdw handle, half the units) and writes it
    /// to `path` through a temporary name and a rename, so a reader never sees half a file and two
    /// builders racing both end with a whole one.
    static func build(_ image: DebugImage, to path: String) throws(SymbolizeError) {
        // A file direct mode refuses gets no index either: the same error, never answers.
        if let problem = image.dwarfProblem { throw SymbolizeError(path: image.path, problem) }
        let count = image.unitCount
        let middle = count / 2
        let symbols = image.functionSymbols
        // Symbol starts and ends inside the units' ranges (outside them the index's own symbol
        // table answers, as the direct path's fallback does).
        var symbolPoints: [UInt64] = []
        for symbol in symbols {
            for point in [symbol.address, symbol.address &+ symbol.size] where !image.unitMap.units(containing: point).isEmpty {
                symbolPoints.append(point)
            }
        }
        symbolPoints.append(contentsOf: image.unitMap.boundaries)
        symbolPoints.sort()
        var parts: [Part]
        if count >= 8, ProcessInfo.processInfo.activeProcessorCount > 1, let second = try? image.reopened() {
            nonisolated(unsafe) var secondPart = Part()
            nonisolated(unsafe) let worker = second
            let done = DispatchSemaphore(value: 0)
            let thread = Thread {
                secondPart = part(worker, units: middle..<count, extraPoints: [])
                done.signal()
            }
            thread.stackSize = 8 << 20
            thread.start()
            let firstPart = part(image, units: 0..<middle, extraPoints: symbolPoints)
            done.wait()
            parts = [firstPart, secondPart]
        } else {
            parts = [part(image, units: 0..<count, extraPoints: symbolPoints)]
        }
        try write(merge(parts), symbols: symbols, symbolNames: symbols.map { image.name(of: $0) }, textBase: image.textBase, to: path)
    }

    /// One table from several parts: strings and locations renumbered, entries sorted by address.
    static func merge(_ parts: [Part]) -> Part {
        var merged = parts[0]
        for other in parts.dropFirst() {
            var locationMap: [UInt32] = []
            locationMap.reserveCapacity(other.table.count)
            for location in other.table {
                var moved = location
                moved.name = location.name == none ? none : merged.string(other.strings[Int(location.name)])
                moved.file = location.file == none ? none : merged.string(other.strings[Int(location.file)])
                moved.parent = location.parent == none ? none : locationMap[Int(location.parent)]
                locationMap.append(merged.location(moved))
            }
            merged.starts += other.starts
            merged.locations += other.locations.map { $0 == none ? none : locationMap[Int($0)] }
        }
        // Sort entries by start. Entries at the same start hold the same answer (both are the
        // direct lookup's at that address), so either may stay.
        let order = merged.starts.indices.sorted { merged.starts[$0] < merged.starts[$1] }
        var starts: [UInt64] = []
        var locations: [UInt32] = []
        starts.reserveCapacity(order.count)
        locations.reserveCapacity(order.count)
        for index in order {
            if let last = starts.last, last == merged.starts[index] { continue }
            if let last = locations.last, last == merged.locations[index] { continue }
            starts.append(merged.starts[index])
            locations.append(merged.locations[index])
        }
        merged.starts = starts
        merged.locations = locations
        return merged
    }

    private static func write(
        _ part: Part, symbols: [SymbolEntry], symbolNames: [String], textBase: UInt64, to path: String
    ) throws(SymbolizeError) {
        var data = Data()
        func append<T: FixedWidthInteger>(_ value: T) {
            withUnsafeBytes(of: value.littleEndian) { data.append(contentsOf: $0) }
        }
        func pad() { while data.count % 8 != 0 { data.append(0) } }
        var withSymbols = part
        let symbolNameIndexes = symbolNames.map { withSymbols.string($0) }
        let strings = withSymbols.strings
        var blob = Data()
        var offsets: [UInt32] = []
        for string in strings {
            offsets.append(UInt32(blob.count))
            blob.append(contentsOf: Array(string.utf8))
        }
        offsets.append(UInt32(blob.count))
        append(indexMagic)
        append(indexVersion)
        append(UInt32(0))
        append(UInt64(part.starts.count))
        append(UInt64(part.table.count))
        append(UInt64(symbols.count))
        append(UInt64(strings.count))
        append(UInt64(blob.count))
        append(textBase)
        for start in part.starts { append(start) }
        for location in part.locations { append(location) }
        pad()
        for location in part.table {
            append(location.name)
            append(location.file)
            append(location.line)
            append(location.parent)
            append(UInt32(location.inlined ? 1 : 0) | UInt32(location.isLinkage ? 2 : 0))
            append(UInt32(0))
            append(location.start)
        }
        for (index, symbol) in symbols.enumerated() {
            append(symbol.address)
            append(symbol.size)
            append(symbolNameIndexes[index])
            append(UInt32(0))
        }
        for offset in offsets { append(offset) }
        pad()
        data.append(blob)
        pad()
        for position in stride(from: 0, to: part.starts.count, by: SymbolIndex.blockSize) { append(part.starts[position]) }
        var checksum = IndexChecksum()
        data.withUnsafeBytes { checksum.add($0) }
        append(checksum.value)
        let temporary = path + ".tmp-\(getpid())-\(UInt64.random(in: 0...UInt64.max))"
        guard FileManager.default.createFile(atPath: temporary, contents: data) else {
            throw SymbolizeError(path: temporary, "cannot write the symbol index")
        }
        guard rename(temporary, path) == 0 else {
            let message = String(cString: strerror(errno))
            unlink(temporary)
            throw SymbolizeError(path: path, "cannot move the symbol index into place: \(message)")
        }
    }
}

/// A symbol index opened for lookups: memory-mapped, binary-searched, nothing decoded up front.
/// Answers are cached per location, so a frame seen before costs a binary search.
final class SymbolIndex {
    let path: String
    /// True when the index file changed after it was opened (truncated under the mapping, or
    /// replaced): what was read from it is not to be trusted.
    var hasChanged: Bool { file.hasChanged }

    private var identityCheck = IdentityCheckPace()

    /// For lookups one by one: the damage mark every time, the file's identity (a `stat`) at most
    /// once a second.
    func changedSinceLastCheck() -> Bool {
        if identityCheck.isDue() { return hasChanged }
        return MappedRegions.isDamaged(file.regionSlot)
    }
    let textBase: UInt64
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
    private let blobOffset: Int
    /// Answers per location, kept as they are asked for (a dictionary: allocating, then destroying,
    /// an array of all 1.3 million locations was most of a short warm run).
    private var answers: [UInt32: RawLookup] = [:]
    /// Every 256th range start, so a search touches a small hot table and then one 2 KB block of
    /// the mapped starts instead of ~20 scattered pages.
    private let sampledStarts: [UInt64]
    static let blockSize = 256
    /// The mapping's base, kept apart from `file` so hot reads do not retain the owner each time.
    private let base: UnsafeRawPointer

    init(path: String) throws(SymbolizeError) {
        self.path = path
        file = try MappedFile(path: path)
        let view = file.view
        guard view.count >= 64, try view.u64(0) == indexMagic, try view.u32(8) == indexVersion else {
            throw SymbolizeError(path: path, "not a symbol index of this version")
        }
        func count(_ at: Int) throws(SymbolizeError) -> Int {
            let value = try view.u64(at)
            guard value < UInt64(view.count) else { throw SymbolizeError(path: path, "symbol index header is corrupt") }
            return Int(value)
        }
        entryCount = try count(16)
        locationCount = try count(24)
        symbolCount = try count(32)
        stringCount = try count(40)
        let blobSize = try count(48)
        textBase = try view.u64(56)
        func aligned(_ value: Int) -> Int { (value + 7) & ~7 }
        startsOffset = 64
        entryLocationsOffset = startsOffset + entryCount * 8
        locationsOffset = aligned(entryLocationsOffset + entryCount * 4)
        symbolsOffset = locationsOffset + locationCount * 32
        stringOffsetsOffset = symbolsOffset + symbolCount * 24
        blobOffset = aligned(stringOffsetsOffset + (stringCount + 1) * 4)
        let samplesOffset = aligned(blobOffset + blobSize)
        let sampleCount = (entryCount + Self.blockSize - 1) / Self.blockSize
        let checksumOffset = samplesOffset + sampleCount * 8
        guard checksumOffset + 8 == view.count else {
            throw SymbolizeError(path: path, "symbol index is truncated or corrupt (size)")
        }
        // Every byte is checked once, read through a small buffer rather than the mapping so the
        // check does not make the whole index resident; a flipped byte means a rebuild.
        guard try IndexChecksum.of(path: path, length: checksumOffset) == view.u64(checksumOffset) else {
            throw SymbolizeError(path: path, "symbol index is corrupt (checksum)")
        }
        let base = file.bytes.baseAddress!
        self.base = base
        sampledStarts = (0..<sampleCount).map {
            UInt64(littleEndian: base.loadUnaligned(fromByteOffset: samplesOffset + $0 * 8, as: UInt64.self))
        }
    }

    @inline(__always) private func u64(_ at: Int) -> UInt64 {
        UInt64(littleEndian: base.loadUnaligned(fromByteOffset: at, as: UInt64.self))
    }

    @inline(__always) private func u32(_ at: Int) -> UInt32 {
        UInt32(littleEndian: base.loadUnaligned(fromByteOffset: at, as: UInt32.self))
    }

    private func string(_ index: UInt32) -> String? {
        guard index != none, Int(index) < stringCount else { return nil }
        let start = Int(u32(stringOffsetsOffset + Int(index) * 4))
        let end = Int(u32(stringOffsetsOffset + Int(index) * 4 + 4))
        guard start <= end, blobOffset + end <= file.bytes.count else { return nil }
        return String(decoding: UnsafeRawBufferPointer(rebasing: file.bytes[(blobOffset + start)..<(blobOffset + end)]), as: UTF8.self)
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
        let slot = Int(truncatingIfNeeded: (address &* 0x9E37_79B9_7F4A_7C15) >> 48)
        if recentAddresses[slot] == address { return recentPlaces[slot] }
        let found = searchPlace(address)
        recentAddresses[slot] = address
        recentPlaces[slot] = found
        return found
    }

    private func searchPlace(_ address: UInt64) -> Place {
        let samples = sampledStarts
        var blockLow = 0
        var blockHigh = samples.count
        while blockLow < blockHigh {
            let middle = (blockLow + blockHigh) >> 1
            if samples[middle] <= address { blockLow = middle + 1 } else { blockHigh = middle }
        }
        // Entries at or before `address` all lie before block `blockLow`.
        var low = blockLow == 0 ? 0 : (blockLow - 1) * Self.blockSize
        var high = min(entryCount, blockLow * Self.blockSize)
        while low < high {
            let middle = (low + high) >> 1
            if u64(startsOffset + middle * 8) <= address { low = middle + 1 } else { high = middle }
        }
        if low > 0 {
            let location = u32(entryLocationsOffset + (low - 1) * 4)
            if location != none, Int(location) < locationCount { return .location(location) }
        }
        return symbolPlace(address)
    }

    func answer(_ location: UInt32) -> RawLookup {
        if let known = answers[location] { return known }
        var frames: [RawFrame] = []
        var current = location
        var start: UInt64 = 0
        var steps = 0
        while current != none, Int(current) < locationCount, steps < 256 {
            let at = locationsOffset + Int(current) * 32
            let name = string(u32(at))
            let file = string(u32(at + 4))
            let line = u32(at + 8)
            let flags = u32(at + 16)
            let isLinkage = flags & 2 == 2
            frames.append(
                RawFrame(
                    linkageName: isLinkage ? name : nil, plainName: isLinkage ? nil : name, file: file,
                    line: line == none ? nil : Int(line), isInlined: flags & 1 == 1))
            start = u64(at + 24)
            current = u32(at + 12)
            steps += 1
        }
        // 0 is what the builder stores when no function or symbol gave a start (a line row alone).
        let result = RawLookup(source: .dwarf, frames: frames, functionStart: start == 0 ? nil : start)
        answers[location] = result
        return result
    }

    private func symbolPlace(_ address: UInt64) -> Place {
        var low = 0
        var high = symbolCount
        while low < high {
            let middle = (low + high) >> 1
            if u64(symbolsOffset + middle * 24) <= address { low = middle + 1 } else { high = middle }
        }
        guard low > 0 else { return .nothing }
        let at = symbolsOffset + (low - 1) * 24
        let start = u64(at)
        let size = u64(at + 8)
        // As `DebugImage.symbol(containing:)`: sizes are bounded when the table is loaded.
        guard address - start < size else { return .nothing }
        return .symbol(low - 1)
    }

    func symbolAnswer(_ symbol: Int) -> RawLookup {
        let at = symbolsOffset + symbol * 24
        let start = u64(at)
        guard let name = string(u32(at + 16)) else { return RawLookup(source: .none, frames: []) }
        return RawLookup(
            source: .symbolTable, frames: [RawFrame(linkageName: name, plainName: nil, file: nil, line: nil, isInlined: false)],
            functionStart: start)
    }
}

@available(*, unavailable) extension SymbolIndex: Sendable {}

/// Where indexes live: `<cache>/<UUID>-<size>-<mtime>.yuisym`. A changed debug file has another
/// size or mtime, so its stale index is simply never found again.
enum SymbolIndexCache {
    static func defaultFolder() -> String {
        if let folder = ProcessInfo.processInfo.environment["YUI_SYMBOL_CACHE"], !folder.isEmpty { return folder }
        let base = ProcessInfo.processInfo.environment["XDG_CACHE_HOME"].flatMap { $0.isEmpty ? nil : $0 }
            ?? (NSHomeDirectory() as NSString).appendingPathComponent(".cache")
        return (base as NSString).appendingPathComponent("yui-perf/symbol-index")
    }

    static func path(folder: String, for info: DebugFileInfo) -> String? {
        var status = stat()
        guard stat(info.path, &status) == 0, let uuid = info.uuids.first.flatMap(UUIDText.normalized) else { return nil }
        let name = "\(uuid)-\(status.st_size)-\(status.st_mtim.tv_sec).\(status.st_mtim.tv_nsec).yuisym"
        return (folder as NSString).appendingPathComponent(name)
    }

    /// The index for `info`, built from `image()` and stored when absent.
    static func open(folder: String, for info: DebugFileInfo, image: () throws(SymbolizeError) -> DebugImage) throws(SymbolizeError) -> SymbolIndex {
        guard let path = path(folder: folder, for: info) else {
            throw SymbolizeError(path: info.path, "cannot key a symbol index for this file")
        }
        if let index = try? SymbolIndex(path: path) { return index }
        do {
            try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        } catch {
            throw SymbolizeError(path: folder, "cannot create the symbol index folder")
        }
        try SymbolIndexBuilder.build(try image(), to: path)
        return try SymbolIndex(path: path)
    }
}

/// A fast 64-bit checksum of an index file's bytes (four independent multiply-rotate lanes over
/// 8-byte words, then the tail): it tells a damaged index from a whole one; it is no defence
/// against someone forging one.
struct IndexChecksum {
    private var lanes: (UInt64, UInt64, UInt64, UInt64) = (0x9E37_79B9_7F4A_7C15, 0xC2B2_AE3D_27D4_EB4F, 0x1656_67B1_9E37_79F9, 0x85EB_CA77_C2B2_AE63)
    private var count: UInt64 = 0
    /// Bytes of an unfinished 32-byte block, carried to the next `add`.
    private var pending: [UInt8] = []

    private static let multiplier: UInt64 = 0x9FB2_1C65_1E98_DF25

    @inline(__always) private static func mix(_ lane: UInt64, _ word: UInt64) -> UInt64 {
        let mixed = (lane ^ word) &* multiplier
        return (mixed << 29) | (mixed >> 35)
    }

    mutating func add(_ bytes: UnsafeRawBufferPointer) {
        count &+= UInt64(bytes.count)
        var start = 0
        if !pending.isEmpty {
            let take = min(32 - pending.count, bytes.count)
            pending.append(contentsOf: bytes[0..<take])
            start = take
            guard pending.count == 32 else { return }
            pending.withUnsafeBytes { block($0, at: 0) }
            pending.removeAll(keepingCapacity: true)
        }
        var offset = start
        while bytes.count - offset >= 32 {
            block(bytes, at: offset)
            offset += 32
        }
        pending.append(contentsOf: bytes[offset...])
    }

    @inline(__always) private mutating func block(_ bytes: UnsafeRawBufferPointer, at offset: Int) {
        lanes.0 = Self.mix(lanes.0, UInt64(littleEndian: bytes.loadUnaligned(fromByteOffset: offset, as: UInt64.self)))
        lanes.1 = Self.mix(lanes.1, UInt64(littleEndian: bytes.loadUnaligned(fromByteOffset: offset + 8, as: UInt64.self)))
        lanes.2 = Self.mix(lanes.2, UInt64(littleEndian: bytes.loadUnaligned(fromByteOffset: offset + 16, as: UInt64.self)))
        lanes.3 = Self.mix(lanes.3, UInt64(littleEndian: bytes.loadUnaligned(fromByteOffset: offset + 24, as: UInt64.self)))
    }

    var value: UInt64 {
        var result = count &* Self.multiplier
        for lane in [lanes.0, lanes.1, lanes.2, lanes.3] { result = Self.mix(result, lane) }
        for byte in pending { result = Self.mix(result, UInt64(byte) | 0x100) }
        return result ^ (result >> 31)
    }

    /// The checksum of the first `length` bytes of the file at `path`, read 1 MB at a time.
    static func of(path: String, length: Int) throws(SymbolizeError) -> UInt64 {
        let descriptor = open(path, O_RDONLY | O_CLOEXEC)
        guard descriptor >= 0 else { throw SymbolizeError(path: path, "cannot open: \(String(cString: strerror(errno)))") }
        defer { close(descriptor) }
        var checksum = IndexChecksum()
        let buffer = UnsafeMutableRawBufferPointer.allocate(byteCount: 1 << 20, alignment: 16)
        defer { buffer.deallocate() }
        var done = 0
        while done < length {
            let got = pread(descriptor, buffer.baseAddress, min(buffer.count, length - done), off_t(done))
            if got < 0, errno == EINTR { continue }
            guard got > 0 else { throw SymbolizeError(path: path, "symbol index is truncated or corrupt (short read)") }
            checksum.add(UnsafeRawBufferPointer(rebasing: buffer[0..<got]))
            done += got
        }
        return checksum.value
    }
}
