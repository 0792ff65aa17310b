import Foundation
import SymbolNames
import SystemIO

// Stacks one at a time (through the batch path), and what the debug files say about themselves.
extension BuildSymbolizer {
    /// Symbolicates one stack, innermost frame first. Frames marked `isReturnAddress` are looked up
    /// at their caller's instruction. (`symbolicate(stacks:)` with one stack: many stacks at once
    /// cost far less than one by one.)
    public func symbolicate(_ stack: [FrameRequest]) -> [SymbolicatedFrame] {
        symbolicate(stacks: [stack])[0]
    }

    /// Whether `debugFiles[index]` is answered from a symbol index: with an index folder, unless the
    /// image is one no index can hold (its code spans 4 GB or more), which is answered directly.
    func answersFromIndex(_ index: Int) -> Bool { indexFolder != nil && !directOnly.contains(index) }

    static func changedError(_ path: String) -> SymbolizeError {
        SymbolizeError.changedWhileRead(path: path)
    }

    /// Why `debugFiles[index]` cannot be used, or nil when `symbolicate` can use it: the file is
    /// opened and its unit map built, exactly as a lookup would (a unit libdw cannot read, a
    /// file cut short). `dsyms` asks this, so it never calls usable a file `symbolicate` refuses.
    public func problem(withFileAt index: Int) -> SymbolizeError? {
        _ = image(at: index)
        return openFailures[index]
    }

    /// Why the debug file for `uuid` could not be opened, if it failed.
    public func openFailure(uuid: String) -> SymbolizeError? {
        guard let canonical = UUIDText.normalized(uuid), let index = resolve(canonical: canonical) else { return nil }
        return openFailures[index]
    }

    /// An answer from an index: one binary search, then frames converted once per place and reused.
    func indexedAnswer(_ symbolIndex: SymbolIndex, file: Int, address: UInt64) -> FileAnswer {
        let place = symbolIndex.place(of: address)
        switch place {
        case .location(let location):
            if let known = convertedLocations[file]?[location] {
                return FileAnswer(status: .symbolicated, frames: known.frames, functionStart: known.start)
            }
            let raw = symbolIndex.answer(location)
            let frames = sourceFrames(raw)
            convertedLocations[file, default: [:]][location] = (frames, raw.functionStart)
            return FileAnswer(status: .symbolicated, frames: frames, functionStart: raw.functionStart)
        case .symbol(let symbol):
            let raw = symbolIndex.symbolAnswer(symbol)
            if let known = convertedOthers[file]?[place] {
                return FileAnswer(status: .symbolTable, frames: known, functionStart: raw.functionStart)
            }
            let frames = sourceFrames(raw)
            convertedOthers[file, default: [:]][place] = frames
            return FileAnswer(status: .symbolTable, frames: frames, functionStart: raw.functionStart)
        case .nothing:
            return FileAnswer(status: .notFound, frames: [], functionStart: nil)
        }
    }

    func sourceFrames(_ lookup: RawLookup) -> [SourceFrame] {
        Self.sourceFrames(lookup, names: &names)
    }

    /// The answers of `addresses` from debug file `index` itself (no index). A large batch is
    /// answered on two threads, each making its half's answers and freeing its lookups as it goes:
    /// converting and freeing 100,000 lookups on one thread, after the lookups had used both, was a
    /// fifth of `top` over 20,000 rows (docs/speed.md).
    func directFileAnswers(_ index: Int, _ addresses: [UInt64]) throws(SymbolizeError) -> [FileAnswer] {
        guard let image = image(at: index, checkingUnits: false) else { throw openFailures[index]! }
        let prepared = preparedWorkers.removeValue(forKey: index)
        guard ParallelLookup.usesThreads(for: addresses.count) else {
            let raw = image.lookupBatch(addresses, releasingPages: addresses.count >= DebugImage.batchReleasingPages)
            try checkAfterBatch(index, image, count: addresses.count)
            names.reserve(addresses.count)
            return raw.map { Self.answer($0, &names) }
        }
        let (first, second) = ParallelLookup.inHalves(image, addresses, names: &names, prepared: prepared) { raw, names, _ in
            defer { raw = [] }
            return raw.map { BuildSymbolizer.answer($0, &names) }
        }
        try checkAfterBatch(index, image, count: addresses.count)
        return ParallelLookup.inOrder(first, second, filler: FileAnswer(status: .notFound, frames: [], functionStart: nil))
    }

    private static func answer(_ lookup: RawLookup, _ names: inout NameCache) -> FileAnswer {
        FileAnswer(status: status(of: lookup.source), frames: sourceFrames(lookup, names: &names), functionStart: lookup.functionStart)
    }

    static func sourceFrames(_ lookup: RawLookup, names: inout NameCache) -> [SourceFrame] {
        lookup.frames.map { raw -> SourceFrame in
            let stored = raw.linkageName ?? raw.plainName ?? "??"
            let (full, simple) = names.names(for: stored, simplified: raw.simplifiedName)
            return SourceFrame(
                linkageName: raw.linkageName, function: full, simplifiedName: simple, file: raw.file, line: raw.line, isInlined: raw.isInlined)
        }
    }

    func symbolIndex(at index: Int) -> SymbolIndex? {
        if let open = indexes[index] { return open }
        guard let indexFolder, openFailures[index] == nil else { return nil }
        do {
            let info = debugFiles[index]
            let opened = try SymbolIndexCache.open(folder: indexFolder, for: info) { () throws(SymbolizeError) in
                progress?("building the symbol index of \(info.path) (\(info.arch))")
                return try DebugFileCatalog.open(info)
            }
            switch opened {
            case .index(let symbolIndex):
                indexes[index] = symbolIndex
                return symbolIndex
            case .direct(let reason):
                directOnly.insert(index)
                if warnedReasons.insert(reason).inserted { pendingWarnings.append(reason) }
                return nil
            }
        } catch {
            if case .unsupported(_, SymbolIndexFormat.imageTooLarge) = error {
                directOnly.insert(index)
            } else {
                openFailures[index] = error
            }
            return nil
        }
    }

    /// The debug image of `debugFiles[index]`, opened once. With `checkingUnits` (the default) its
    /// unit map is built and a unit that cannot be read makes it fail; a batch passes false and
    /// checks after building the map on two threads.
    func image(at index: Int, checkingUnits: Bool = true) -> DebugImage? {
        if let open = images[index] {
            finishPreparation(of: index)
            return open
        }
        if openFailures[index] != nil { return nil }
        do {
            let image = try DebugFileCatalog.open(debugFiles[index])
            if checkingUnits, let problem = image.dwarfProblem {
                openFailures[index] = SymbolizeError.corrupt(path: image.path, problem)
                return nil
            }
            images[index] = image
            return image
        } catch {
            openFailures[index] = error
            return nil
        }
    }

    static func status(of source: RawLookup.Source) -> SymbolicatedFrame.Status {
        switch source {
        case .dwarf: .symbolicated
        case .symbolTable: .symbolTable
        case .none: .notFound
        }
    }
}

extension BuildSymbolizer {
    /// How each debug file opened so far was read, one line each (`symbolicate --verbose`): from
    /// its symbol index, or over the section bytes with what libdw answered instead and why.
    public func readingNotes() -> [String] {
        debugFiles.indices.compactMap { index -> String? in
            let file = "\(debugFiles[index].path) (\(debugFiles[index].arch))"
            if let symbolIndex = indexes[index] { return "\(file): answered from the symbol index \(symbolIndex.path)" }
            guard let image = images[index] else { return nil }
            finishPreparation(of: index)
            guard image.hasDWARF else { return "\(file): no DWARF, answered from the symbol table" }
            let fallbacks = image.decoderFallbacks
            if fallbacks.isEmpty {
                let asked = DecodeStep.allCases.map { "\(fallbacks.asked[$0.rawValue]) \($0.label)" }.joined(separator: ", ")
                return "\(file): read over the section bytes (\(asked)); libdw read none of them"
            }
            return "\(file): \(fallbacks.summary)"
        }
    }

    /// What libdw answered for `debugFiles[index]` because the bytes reader declined, once the file
    /// is open (`dsyms` opens every file of the build); nil when it is not open or has no DWARF.
    public func decoderFallbacks(ofFileAt index: Int) -> DecoderFallbacks? {
        guard let image = images[index] else { return nil }
        finishPreparation(of: index)
        guard image.hasDWARF else { return nil }
        return image.decoderFallbacks
    }
}
