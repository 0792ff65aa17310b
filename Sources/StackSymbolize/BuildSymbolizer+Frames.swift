import Foundation
import SymbolNames

// Stacks frame by frame: each frame from the symbol index or the debug file, the files opened once.
extension BuildSymbolizer {
    /// Symbolicates one stack, innermost frame first. Frames marked `isReturnAddress` are looked up
    /// at their caller's instruction.
    public func symbolicate(_ stack: [FrameRequest]) -> [SymbolicatedFrame] {
        stack.map { request in
            guard let given = request.uuid, let index = resolve(given: given) else {
                return SymbolicatedFrame(request: request, status: .missingDebugFile, lookupAddress: nil, debugFile: nil, frames: [])
            }
            if answersFromIndex(index) {
                guard let symbolIndex = symbolIndex(at: index) else {
                    if directOnly.contains(index) { return symbolicateDirectly(request, index: index) }
                    return missingDebugFile(request, index: index)
                }
                var address = symbolIndex.textBase &+ request.offset
                if request.isReturnAddress { address = InstructionSet(architecture: debugFiles[index].arch).callerAddress(address) }
                let answer = indexedFrame(symbolIndex, file: index, request: request, address: address)
                if symbolIndex.changedSinceLastCheck() {
                    indexes[index] = nil
                    openFailures[index] = Self.changedError(symbolIndex.path)
                    return missingDebugFile(request, index: index)
                }
                return answer
            }
            return symbolicateDirectly(request, index: index)
        }
    }

    /// The answer for a frame whose debug file cannot be used (any more).
    func missingDebugFile(_ request: FrameRequest, index: Int) -> SymbolicatedFrame {
        SymbolicatedFrame(request: request, status: .missingDebugFile, lookupAddress: nil, debugFile: debugFiles[index].path, frames: [])
    }

    /// One frame looked up in the debug file itself.
    func symbolicateDirectly(_ request: FrameRequest, index: Int) -> SymbolicatedFrame {
        guard let image = image(at: index) else {
            return missingDebugFile(request, index: index)
        }
        var address = image.textBase &+ request.offset
        if request.isReturnAddress { address = image.instructionSet.callerAddress(address) }
        let answer = frame(for: image.lookup(address), request: request, address: address, path: image.path)
        // A file that changed under us gives no more answers; the others still do.
        if image.changedSinceLastCheck() {
            images[index] = nil
            openFailures[index] = Self.changedError(image.path)
            return missingDebugFile(request, index: index)
        }
        return answer
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
    func indexedFrame(_ symbolIndex: SymbolIndex, file: Int, request: FrameRequest, address: UInt64) -> SymbolicatedFrame {
        let place = symbolIndex.place(of: address)
        let status: SymbolicatedFrame.Status
        let frames: [SourceFrame]
        var start: UInt64?
        switch place {
        case .location(let location):
            status = .symbolicated
            if let known = convertedLocations[file]?[location] {
                frames = known.frames
                start = known.start
            } else {
                let raw = symbolIndex.answer(location)
                frames = sourceFrames(raw)
                start = raw.functionStart
                convertedLocations[file, default: [:]][location] = (frames, start)
            }
        case .symbol(let symbol):
            status = .symbolTable
            let raw = symbolIndex.symbolAnswer(symbol)
            start = raw.functionStart
            if let known = convertedOthers[file]?[place] {
                frames = known
            } else {
                frames = sourceFrames(raw)
                convertedOthers[file, default: [:]][place] = frames
            }
        case .nothing:
            status = .notFound
            frames = []
        }
        return SymbolicatedFrame(
            request: request, status: status, lookupAddress: address, debugFile: debugFiles[file].path, frames: frames,
            functionStart: start)
    }

    func sourceFrames(_ lookup: RawLookup) -> [SourceFrame] {
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
        if let open = images[index] { return open }
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

    func frame(for lookup: RawLookup, request: FrameRequest, address: UInt64, path: String) -> SymbolicatedFrame {
        let frames = sourceFrames(lookup)
        return SymbolicatedFrame(
            request: request, status: Self.status(of: lookup.source), lookupAddress: address, debugFile: path, frames: frames,
            functionStart: lookup.functionStart)
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
        guard let image = images[index], image.hasDWARF else { return nil }
        return image.decoderFallbacks
    }
}
