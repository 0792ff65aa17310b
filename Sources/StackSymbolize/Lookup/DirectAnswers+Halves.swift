/// A batch answered on two threads: each half's answers made on its own thread, then joined.
extension DirectAnswers {
    /// The answers of one half of a batch: `raw` are the lookups of `addresses[positions]`, in
    /// that order, and so are the answers. Each name and path is kept once in the half's `text`.
    init(
        half raw: [RawLookup], at positions: [Int], given addresses: [UInt64], lookupAddresses: [UInt64], offsets: Bool,
        textBase: UInt64, debugFile: String, names: inout NameCache
    ) {
        self.init(debugFile: debugFile)
        answers.reserveCapacity(positions.count)
        frames.reserveCapacity(positions.count * 3 / 2)
        names.reserve(positions.count)
        var nameSpans: [String: Range<Int32>] = [:]
        var fileSpans: [String: Range<Int32>] = [:]
        for (place, position) in positions.enumerated() {
            let given = addresses[position]
            let first = Int32(frames.count)
            // An offset past 2^64 is no address in the image (see `BuildSymbolizer.lookup`).
            guard !BuildSymbolizer.offsetLeavesTheAddressSpace(given, offsets: offsets, textBase: textBase) else {
                answers.append(.init(status: .notFound, offset: given, lookupAddress: nil, functionStart: nil, frames: first..<first))
                continue
            }
            let lookup = raw[place]
            for frame in lookup.frames {
                let simplified = names.simplifiedName(
                    for: frame.linkageName ?? frame.plainName ?? "??", simplified: frame.simplifiedName)
                let name = nameSpans[simplified] ?? keep(simplified)
                nameSpans[simplified] = name
                var file: Range<Int32>?
                if let path = frame.file {
                    file = fileSpans[path] ?? keep(path)
                    fileSpans[path] = file
                }
                frames.append(.init(name: name, file: file, line: frame.line, isInlined: frame.isInlined))
            }
            answers.append(
                .init(
                    status: BuildSymbolizer.status(of: lookup.source), offset: offsets ? given : given &- textBase,
                    lookupAddress: lookupAddresses[position], functionStart: lookup.functionStart,
                    frames: first..<Int32(frames.count)))
        }
        lookups = [raw]
    }

    /// Two halves as one batch's answers: each half's answers go back to their positions, and the
    /// second half's frames and text follow the first's (a name both halves found is kept twice,
    /// which costs less than hashing every frame's name again on one thread).
    init(joining first: ParallelLookup.Half<DirectAnswers>, _ second: ParallelLookup.Half<DirectAnswers>) {
        self.init(debugFile: first.finished.debugFile)
        let textShift = Int32(first.finished.text.count)
        let frameShift = Int32(first.finished.frames.count)
        text = first.finished.text + second.finished.text
        frames = first.finished.frames
        frames.reserveCapacity(first.finished.frames.count + second.finished.frames.count)
        for var frame in second.finished.frames {
            frame.name = (frame.name.lowerBound + textShift)..<(frame.name.upperBound + textShift)
            if let file = frame.file { frame.file = (file.lowerBound + textShift)..<(file.upperBound + textShift) }
            frames.append(frame)
        }
        var shifted = second.finished.answers
        for index in shifted.indices {
            shifted[index].frames = (shifted[index].frames.lowerBound + frameShift)..<(shifted[index].frames.upperBound + frameShift)
        }
        answers = ParallelLookup.inOrder(
            .init(positions: first.positions, finished: first.finished.answers), .init(positions: second.positions, finished: shifted),
            filler: Answer(status: .notFound, offset: 0, lookupAddress: nil, functionStart: nil, frames: 0..<0))
        lookups = first.finished.lookups + second.finished.lookups
    }
}
