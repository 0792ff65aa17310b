import Foundation

// The one answer path: every question (a stack, many stacks, a batch of addresses) becomes the
// distinct addresses of each debug file, and each file answers its addresses in one batch, from
// its symbol index or from the file itself.
extension BuildSymbolizer {
    /// What answers one debug file's addresses: its symbol index, or the file itself.
    enum Answerer {
        case index(SymbolIndex)
        case image(DebugImage)
    }

    /// One address's answer, before it is tied to the frame that asked.
    struct FileAnswer {
        var status: SymbolicatedFrame.Status
        var frames: [SourceFrame]
        var functionStart: UInt64?
    }

    /// The answerer of `debugFiles[index]`, opened once: its symbol index with an index folder (unless
    /// no index can hold the image, or the folder cannot be used), else the file. Nil when the file
    /// cannot be used; `openFailures[index]` says why.
    func answerer(for index: Int) -> Answerer? {
        if answersFromIndex(index) {
            if let symbolIndex = symbolIndex(at: index) { return .index(symbolIndex) }
            guard directOnly.contains(index) else { return nil }
        }
        // Not joining a preparation under way (`prepareForBatch`): an answerer's image is asked for
        // its constants only (text base, instruction set, path) until a batch opens it through
        // `image(at:)`, which waits for the preparation first.
        if let open = images[index] { return .image(open) }
        return image(at: index, checkingUnits: false).map(Answerer.image)
    }

    /// Where the answerer's offsets start, and what a return address becomes there.
    func textBase(of answerer: Answerer) -> UInt64 {
        switch answerer {
        case .index(let symbolIndex): symbolIndex.textBase
        case .image(let image): image.textBase
        }
    }

    func instructionSet(of answerer: Answerer, file index: Int) -> InstructionSet {
        switch answerer {
        case .index: InstructionSet(architecture: debugFiles[index].arch)
        case .image(let image): image.instructionSet
        }
    }

    /// The path the answers name as their debug file.
    func answeringPath(_ answerer: Answerer, file index: Int) -> String {
        switch answerer {
        case .index: debugFiles[index].path
        case .image(let image): image.path
        }
    }

    /// The answers for `addresses` (in the file's own address space) in one batch. Nil when the
    /// file turned out unusable while answering: a unit that cannot be read, or the file changed
    /// under the batch (`openFailures[index]` says which; the file gives no more answers).
    func answers(_ answerer: Answerer, file index: Int, addresses: [UInt64]) -> [FileAnswer]? {
        switch answerer {
        case .index(let symbolIndex):
            let answers = addresses.map { indexedAnswer(symbolIndex, file: index, address: $0) }
            if symbolIndex.hasChanged {
                indexes[index] = nil
                openFailures[index] = Self.changedError(symbolIndex.path)
                return nil
            }
            return answers
        case .image:
            return try? directFileAnswers(index, addresses)
        }
    }

    /// One debug file's share of a batch of stacks: its frames as (stack, frame) positions, the
    /// distinct addresses they look up in the file, and each position's slot among them.
    struct FileFrames {
        var file: Int
        var answerer: Answerer?
        var positions: [(stack: Int32, frame: Int32)] = []
        var distinct: [UInt64] = []
        var slots: [Int32] = []
    }

    /// The frames of `stacks` gathered by debug file, files in the order their frames come, so
    /// they open (and their indexes build) in the order a stack-by-stack run opened them. Repeated
    /// frames (the same function in many stacks) are looked up once. A frame whose UUID no file
    /// answers is in none of them; a file that cannot be used has no answerer and no addresses.
    func framesByFile(_ stacks: [[FrameRequest]]) -> [FileFrames] {
        fetchMissingFiles(stacks)
        var slotOfFile: [Int: Int] = [:]
        var files: [FileFrames] = []
        // Frames in a row mostly name the same UUID (one string, shared): comparing it with the last
        // one is cheaper than hashing it for every frame.
        var last: (uuid: String, file: Int?)?
        for (stackIndex, stack) in stacks.enumerated() {
            for (frameIndex, request) in stack.enumerated() {
                guard let uuid = request.uuid else { continue }
                let resolved: Int?
                if let last, last.uuid == uuid {
                    resolved = last.file
                } else {
                    resolved = resolve(given: uuid)
                    last = (uuid, resolved)
                }
                guard let file = resolved else { continue }
                let slot = slotOfFile[file] ?? files.count
                if slot == files.count {
                    slotOfFile[file] = slot
                    files.append(FileFrames(file: file))
                }
                files[slot].positions.append((Int32(stackIndex), Int32(frameIndex)))
            }
        }
        for slot in files.indices {
            let file = files[slot].file
            guard let answerer = answerer(for: file) else { continue }
            files[slot].answerer = answerer
            let base = textBase(of: answerer)
            let instructions = instructionSet(of: answerer, file: file)
            var slotOfAddress: [UInt64: Int32] = [:]
            slotOfAddress.reserveCapacity(files[slot].positions.count)
            var distinct: [UInt64] = []
            var slots: [Int32] = []
            slots.reserveCapacity(files[slot].positions.count)
            for (stack, frame) in files[slot].positions {
                let request = stacks[Int(stack)][Int(frame)]
                var address = base &+ request.offset
                if request.isReturnAddress { address = instructions.callerAddress(address) }
                if let known = slotOfAddress[address] {
                    slots.append(known)
                } else {
                    let next = Int32(distinct.count)
                    slotOfAddress[address] = next
                    distinct.append(address)
                    slots.append(next)
                }
            }
            files[slot].distinct = distinct
            files[slot].slots = slots
        }
        return files
    }

    /// Symbolicates many stacks at once, each innermost frame first: the frames are gathered by
    /// debug file, and each file looks up its distinct addresses in one batch (on two threads when
    /// there are many), as `--object` does. Frames marked `isReturnAddress` are looked up at their
    /// caller's instruction. The answers are those `symbolicate(_:)` gives each stack alone.
    public func symbolicate(stacks: [[FrameRequest]]) -> [[SymbolicatedFrame]] {
        var results = stacks.map { stack in
            stack.map { SymbolicatedFrame(request: $0, status: .missingDebugFile, lookupAddress: nil, debugFile: nil, frames: []) }
        }
        for share in framesByFile(stacks) {
            guard let answerer = share.answerer, let answers = answers(answerer, file: share.file, addresses: share.distinct) else {
                for (stack, frame) in share.positions { results[Int(stack)][Int(frame)].debugFile = debugFiles[share.file].path }
                continue
            }
            let path = answeringPath(answerer, file: share.file)
            // Filled in place: the request is already there (a new frame value per answer copied it
            // again, and released the first).
            for ((stack, frame), slot) in zip(share.positions, share.slots) {
                let answer = answers[Int(slot)]
                results[Int(stack)][Int(frame)].status = answer.status
                results[Int(stack)][Int(frame)].lookupAddress = share.distinct[Int(slot)]
                results[Int(stack)][Int(frame)].debugFile = path
                results[Int(stack)][Int(frame)].frames = answer.frames
                results[Int(stack)][Int(frame)].functionStart = answer.functionStart
            }
        }
        return results
    }

    /// `symbolicate(stacks:)` as text output needs it, the answers kept as `lookupForText` keeps
    /// them (names and paths as bytes, each once): no `SymbolicatedFrame` or `SourceFrame` per
    /// frame. Making those, and reading them back to write each line, was about 15% of a cold
    /// `symbolicate` over rows (docs/history.md). The text written from either is the same.
    public func symbolicateForText(stacks: [[FrameRequest]]) -> StackTextAnswers {
        var result = StackTextAnswers(places: stacks.map { [StackTextAnswers.Place](repeating: .missingDebugFile, count: $0.count) })
        for share in framesByFile(stacks) {
            guard let answerer = share.answerer, let direct = directAnswers(answerer, file: share.file, addresses: share.distinct) else {
                continue
            }
            let file = Int32(result.files.count)
            result.files.append(direct)
            for ((stack, frame), slot) in zip(share.positions, share.slots) {
                result.places[Int(stack)][Int(frame)] = .answer(file: file, slot: slot)
            }
        }
        return result
    }

    /// One file's answers for `addresses` (its own address space) as `lookupForText` gives them:
    /// from the file itself straight to bytes, or from its symbol index through `answers`. Nil
    /// when the file turned out unusable (`answers`).
    private func directAnswers(_ answerer: Answerer, file index: Int, addresses: [UInt64]) -> DirectAnswers? {
        if case .image = answerer {
            return try? directAnswers(index, addresses, offsets: false)
        }
        guard let answers = answers(answerer, file: index, addresses: addresses) else { return nil }
        let base = textBase(of: answerer)
        var result = DirectAnswers(debugFile: answeringPath(answerer, file: index))
        result.answers.reserveCapacity(addresses.count)
        var spans: [String: Range<Int32>] = [:]
        func kept(_ text: String) -> Range<Int32> {
            if let known = spans[text] { return known }
            let span = result.keep(text)
            spans[text] = span
            return span
        }
        for (answer, address) in zip(answers, addresses) {
            let first = Int32(result.frames.count)
            for source in answer.frames {
                result.frames.append(
                    .init(name: kept(source.simplifiedName), file: source.file.map(kept), line: source.line, isInlined: source.isInlined))
            }
            result.answers.append(
                .init(
                    status: answer.status, offset: address &- base, lookupAddress: address, functionStart: answer.functionStart,
                    frames: first..<Int32(result.frames.count)))
        }
        return result
    }
}
