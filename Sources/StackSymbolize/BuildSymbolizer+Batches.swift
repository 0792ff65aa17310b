import Foundation
import SymbolNames
import SystemIO

// atos/llvm-symbolizer mode: batches of addresses in one debug file, straight to text where it can.
extension BuildSymbolizer {
    /// Whether `given`, an offset from the text base when `offsets`, takes the address past 2^64:
    /// then it is no address in the image, and answers "not found" with no address (it used to
    /// wrap around to the start of the address space). The one place of this rule.
    public static func offsetLeavesTheAddressSpace(_ given: UInt64, offsets: Bool, textBase: UInt64) -> Bool {
        offsets && given > UInt64.max - textBase
    }

    /// atos/llvm-symbolizer mode: looks up addresses in one debug file exactly as given (no
    /// caller adjustment). `uuid` picks the slice of a fat file; without it the file must have one.
    ///
    /// - Parameter offsets: when true, the values are offsets from the text base, as in a payload.
    public func lookup(addresses: [UInt64], uuid: String?, offsets: Bool = false) throws(SymbolizeError) -> [SymbolicatedFrame] {
        let index = try slice(uuid: uuid)
        guard let answerer = answerer(for: index) else { throw openFailures[index]! }
        let base = textBase(of: answerer)
        let lookupAddresses = offsets ? addresses.map { base &+ $0 } : addresses
        guard let answers = answers(answerer, file: index, addresses: lookupAddresses) else { throw openFailures[index]! }
        let path = answeringPath(answerer, file: index)
        let uuid = debugFiles[index].uuids.first
        return addresses.indices.map { position in
            let given = addresses[position]
            // An offset past 2^64 is no address in the image: "not found", with no address.
            if Self.offsetLeavesTheAddressSpace(given, offsets: offsets, textBase: base) {
                let request = FrameRequest(image: nil, uuid: uuid, offset: given, isReturnAddress: false)
                return SymbolicatedFrame(request: request, status: .notFound, lookupAddress: nil, debugFile: debugFiles[index].path, frames: [])
            }
            let address = lookupAddresses[position]
            let answer = answers[position]
            let request = FrameRequest(image: nil, uuid: uuid, offset: offsets ? given : given &- base, isReturnAddress: false)
            return SymbolicatedFrame(
                request: request, status: answer.status, lookupAddress: address, debugFile: path, frames: answer.frames,
                functionStart: answer.functionStart)
        }
    }

    /// `lookup(addresses:uuid:offsets:)`'s answers as text output needs them, or nil when a
    /// symbol index answers the slice (its own output path writes those): no `SymbolicatedFrame`
    /// or `SourceFrame` per answer. Building those and reading them back was a fifth of a cold
    /// batch of 10,000 addresses on a small binary.
    public func lookupForText(addresses: [UInt64], uuid: String?, offsets: Bool = false) throws(SymbolizeError) -> DirectAnswers? {
        let index = try slice(uuid: uuid)
        guard !answersFromIndex(index) || directOnly.contains(index) else { return nil }
        return try directAnswers(index, addresses, offsets: offsets)
    }

    /// Starts reading, on another thread, what the first large batch of each not yet opened debug
    /// file answering `uuids` reads before its lookups (`ParallelLookup.prepare`): the caller goes
    /// on with the batch's own work (finding its distinct stacks, gathering its frames by file)
    /// meanwhile. Nothing is prepared for a batch one thread answers (`frameCount` below
    /// `ParallelLookup.minimumForThreads`), for a file a symbol index answers, or for one already
    /// opened. The batch that uses the file takes what was prepared; the answers are the same
    /// either way.
    public func prepareForBatch(uuids: Set<String>, frameCount: Int) {
        guard ParallelLookup.usesThreads(for: frameCount) else { return }
        for uuid in uuids {
            guard let index = resolve(given: uuid), images[index] == nil, openFailures[index] == nil, !answersFromIndex(index),
                let image = image(at: index, checkingUnits: false)
            else { continue }
            preparations[index] = ParallelLookup.prepare(image)
        }
    }

    /// Waits for `prepareForBatch`'s thread on file `index`, if one is under way, and keeps the
    /// second handle it made for the file's next large batch.
    func finishPreparation(of index: Int) {
        guard let preparation = preparations.removeValue(forKey: index) else { return }
        preparedWorkers[index] = preparation.join()
    }

    /// `lookupForText` of slice `index`, answered from the file itself. On two threads each half
    /// becomes answers on its own thread and the halves are joined after: made on one thread after
    /// the lookups, hashing every frame's name and path, they were a fifth of `symbolicate`'s wall
    /// time over 20,000 rows.
    func directAnswers(_ index: Int, _ addresses: [UInt64], offsets: Bool) throws(SymbolizeError) -> DirectAnswers {
        guard let image = image(at: index, checkingUnits: false) else { throw openFailures[index]! }
        let prepared = preparedWorkers.removeValue(forKey: index)
        if !ParallelLookup.usesThreads(for: addresses.count) { return try textAnswers(index, addresses, offsets: offsets) }
        let textBase = image.textBase
        let path = image.path
        let lookupAddresses = offsets ? addresses.map { textBase &+ $0 } : addresses
        let (first, second) = ParallelLookup.inHalves(image, lookupAddresses, names: &names, prepared: prepared) { raw, names, positions in
            DirectAnswers(
                half: raw, at: positions, given: addresses, lookupAddresses: lookupAddresses, offsets: offsets, textBase: textBase,
                debugFile: path, names: &names)
        }
        try checkAfterBatch(index, image, count: addresses.count)
        return DirectAnswers(joining: first, second)
    }

    /// `lookupForText` on one thread, straight from the walk: each frame's name and file come as
    /// numbers (`FramePlace`) and go to the answers' bytes once each, so no frame carries strings
    /// (retaining and releasing them, and hashing each name again, was a sixth of a cold batch).
    func textAnswers(_ index: Int, _ addresses: [UInt64], offsets: Bool) throws(SymbolizeError) -> DirectAnswers {
        guard let image = image(at: index, checkingUnits: false) else { throw openFailures[index]! }
        let lookupAddresses = offsets ? addresses.map { image.textBase &+ $0 } : addresses
        var result = DirectAnswers(debugFile: image.path)
        result.answers = addresses.indices.map { position in
            .init(
                status: .notFound, offset: offsets ? addresses[position] : addresses[position] &- image.textBase,
                lookupAddress: lookupAddresses[position], functionStart: nil, frames: 0..<0)
        }
        result.frames.reserveCapacity(addresses.count * 3 / 2)
        // Names go straight to their simplified form, not through the name cache: `nameSpans`
        // already makes each DIE's or symbol's name once, and the few names two DIEs share (5% of
        // swift-help's) cost less to read again than hashing every name into a table reserved for
        // the batch (its fresh pages were a tenth of the batch's page faults).
        var reader = MangledSwiftName()
        // Where each name (by DIE offset, or symbol name offset with the top bit set) and each file
        // (by unit, table and number) went in `result.text`.
        var nameSpans = WordMap<Range<Int32>>()
        var fileSpans = WordMap<Range<Int32>>()
        func add(_ place: FramePlace, _ unitIndex: Int, _ unit: DecodedUnit) {
            let nameKey: UInt64
            switch place.name {
            case .symbol(let symbol): nameKey = UInt64(truncatingIfNeeded: symbol.nameOffset) | 1 << 63
            case .function(let dieOffset, _): nameKey = dieOffset
            case .none: nameKey = .max
            }
            let name: Range<Int32>
            if let known = nameSpans[nameKey] {
                name = known
            } else {
                // Straight from the name's bytes to the simplified form's in `result.text`.
                func keepSimplified(_ stored: UnsafeBufferPointer<UInt8>) -> Range<Int32> {
                    SymbolName.withSimplifiedName(bytes: stored, using: &reader) { result.keep($0) }
                }
                switch place.name {
                case .symbol(let symbol):
                    name = image.withName(of: symbol) { keepSimplified($0) }
                case .function(let dieOffset, let isInlined):
                    let names = image.name(dieOffset, isInlined: isInlined)
                    var stored = names.linkage ?? names.plain ?? "??"
                    name = stored.withUTF8 { keepSimplified($0) }
                case .none:
                    var stored = "??"
                    name = stored.withUTF8 { keepSimplified($0) }
                }
                nameSpans.set(nameKey, name)
            }
            var file: Range<Int32>?
            let fileKey: UInt64
            switch place.file {
            case .none: fileKey = .max
            case .line(let number): fileKey = UInt64(unitIndex) << 33 | UInt64(number)
            case .call(let number): fileKey = UInt64(unitIndex) << 33 | 1 << 32 | UInt64(number)
            }
            if fileKey != .max {
                if let known = fileSpans[fileKey] {
                    file = known
                } else {
                    switch place.file {
                    case .line(let number): file = result.keep(unit.lineFileNames[number])
                    case .call(let number): file = result.keep(unit.callFileNames[number])
                    case .none: break
                    }
                    fileSpans.set(fileKey, file!)
                }
            }
            result.frames.append(.init(name: name, file: file, line: place.line, isInlined: place.isInlined))
        }
        image.walkBatch(lookupAddresses, releasingPages: addresses.count >= Self.batchReleasingPages) { position, unitIndex, unit in
            let first = Int32(result.frames.count)
            let (found, start) = image.visitFrames(in: unit, at: lookupAddresses[position]) { add($0, unitIndex, $1) }
            guard found else { return false }
            result.answers[position].status = .symbolicated
            result.answers[position].functionStart = start
            result.answers[position].frames = first..<Int32(result.frames.count)
            return true
        } elsewhere: { position in
            let first = Int32(result.frames.count)
            let (source, start) = image.visitLookup(lookupAddresses[position]) { add($0, $1, $2) }
            result.answers[position].status = Self.status(of: source)
            result.answers[position].functionStart = start
            result.answers[position].frames = first..<Int32(result.frames.count)
        }
        // An offset past 2^64 is no address in the image (see `lookup`).
        for (position, given) in addresses.enumerated()
        where Self.offsetLeavesTheAddressSpace(given, offsets: offsets, textBase: image.textBase) {
            result.answers[position] = .init(status: .notFound, offset: given, lookupAddress: nil, functionStart: nil, frames: 0..<0)
        }
        try checkAfterBatch(index, image, count: addresses.count)
        return result
    }

    /// After a batch of `count` addresses in slice `index`: throws when a unit could not be read
    /// or the file changed, and lets a large batch's pages go.
    func checkAfterBatch(_ index: Int, _ image: DebugImage, count: Int) throws(SymbolizeError) {
        // The batch built the unit map (on both threads); a unit it could not read voids its answers,
        // and so does a file that changed while it was read.
        if let problem = image.dwarfProblem {
            images[index] = nil
            openFailures[index] = SymbolizeError.corrupt(path: image.path, problem)
            throw openFailures[index]!
        }
        if image.hasChanged {
            images[index] = nil
            openFailures[index] = Self.changedError(image.path)
            throw openFailures[index]!
        }
        // A large batch has read what it needs of the file (the answers hold their own strings):
        // its pages and libdw's data go before the answers become names (docs/speed.md).
        if count >= Self.batchReleasingPages { image.releaseBatchMemory() }
    }

    /// The debug file `uuid` names, or the only one: `lookup(addresses:uuid:offsets:)`'s choice.
    func slice(uuid: String?) throws(SymbolizeError) -> Int {
        let index: Int
        if let uuid {
            guard let canonical = UUIDText.normalized(uuid) else { throw SymbolizeError.badArgument(path: uuid, "not a UUID") }
            guard let found = indexByUUID[canonical] ?? systemIndexByUUID[canonical] else {
                throw SymbolizeError.badArgument(
                    path: debugFiles.first?.path ?? "", "no slice with UUID \(canonical) (has \(debugFiles.flatMap(\.uuids).joined(separator: ", ")))"
                )
            }
            index = found
        } else {
            // A binary and its dSYM beside it (`--object crash` finding `crash.dSYM`) are one slice:
            // the file that answers its UUID.
            let answering = Set(indexByUUID.values).sorted()
            guard answering.count == 1 else {
                let slices = answering.map { "\(debugFiles[$0].arch) \(debugFiles[$0].uuids[0])" }.joined(separator: ", ")
                throw SymbolizeError.badArgument(
                    path: debugFiles.first?.path ?? "", "has \(answering.count) slices (\(slices)); pick one with --uuid")
            }
            index = answering[0]
        }
        return index
    }

    /// The symbol index answering `uuid`'s slice (or the only slice), for output written straight
    /// from its bytes; nil when the file is answered directly (no index folder, or an image no
    /// index can hold). Throws what `lookup(addresses:uuid:offsets:)` throws for an index that
    /// cannot be built or opened.
    public func indexedFrames(uuid: String?) throws(SymbolizeError) -> IndexedFrames? {
        let index = try slice(uuid: uuid)
        guard answersFromIndex(index) else { return nil }
        guard let symbolIndex = symbolIndex(at: index) else {
            if directOnly.contains(index) { return nil }
            throw openFailures[index]!
        }
        return IndexedFrames(index: symbolIndex, debugFile: debugFiles[index].path)
    }

    static var batchReleasingPages: Int { DebugImage.batchReleasingPages }
}
