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
            guard let (_, raw, _) = try? directLookups(index, addresses, offsets: false) else { return nil }
            return raw.map { FileAnswer(status: Self.status(of: $0.source), frames: sourceFrames($0), functionStart: $0.functionStart) }
        }
    }

    /// Symbolicates many stacks at once, each innermost frame first: the frames are gathered by
    /// debug file, and each file looks up its distinct addresses in one batch (on two threads when
    /// there are many), as `--object` does. Frames marked `isReturnAddress` are looked up at their
    /// caller's instruction. The answers are those `symbolicate(_:)` gives each stack alone.
    public func symbolicate(stacks: [[FrameRequest]]) -> [[SymbolicatedFrame]] {
        var results = stacks.map { stack in
            stack.map { SymbolicatedFrame(request: $0, status: .missingDebugFile, lookupAddress: nil, debugFile: nil, frames: []) }
        }
        // Each file's frames as (stack, frame) positions; files in the order their frames come, so
        // they open (and their indexes build) in the order a stack-by-stack run opened them.
        var framesOfFile: [Int: [(stack: Int32, frame: Int32)]] = [:]
        var fileOrder: [Int] = []
        for (stackIndex, stack) in stacks.enumerated() {
            for (frameIndex, request) in stack.enumerated() {
                guard let uuid = request.uuid, let file = resolve(given: uuid) else { continue }
                if framesOfFile[file] == nil { fileOrder.append(file) }
                framesOfFile[file, default: []].append((Int32(stackIndex), Int32(frameIndex)))
            }
        }
        for file in fileOrder {
            let positions = framesOfFile[file]!
            guard let answerer = answerer(for: file) else {
                for (stack, frame) in positions { results[Int(stack)][Int(frame)].debugFile = debugFiles[file].path }
                continue
            }
            let base = textBase(of: answerer)
            let instructions = instructionSet(of: answerer, file: file)
            // Repeated frames (the same function in many stacks) are looked up once.
            var slotOfAddress: [UInt64: Int32] = [:]
            var distinct: [UInt64] = []
            var slots: [Int32] = []
            slots.reserveCapacity(positions.count)
            for (stack, frame) in positions {
                let request = stacks[Int(stack)][Int(frame)]
                var address = base &+ request.offset
                if request.isReturnAddress { address = instructions.callerAddress(address) }
                if let known = slotOfAddress[address] {
                    slots.append(known)
                } else {
                    let slot = Int32(distinct.count)
                    slotOfAddress[address] = slot
                    distinct.append(address)
                    slots.append(slot)
                }
            }
            guard let answers = answers(answerer, file: file, addresses: distinct) else {
                for (stack, frame) in positions { results[Int(stack)][Int(frame)].debugFile = debugFiles[file].path }
                continue
            }
            let path = answeringPath(answerer, file: file)
            // Filled in place: the request is already there (a new frame value per answer copied it
            // again, and released the first).
            for ((stack, frame), slot) in zip(positions, slots) {
                let answer = answers[Int(slot)]
                results[Int(stack)][Int(frame)].status = answer.status
                results[Int(stack)][Int(frame)].lookupAddress = distinct[Int(slot)]
                results[Int(stack)][Int(frame)].debugFile = path
                results[Int(stack)][Int(frame)].frames = answer.frames
                results[Int(stack)][Int(frame)].functionStart = answer.functionStart
            }
        }
        return results
    }
}
