import Foundation
import Synchronization
import SystemIO

/// A long JSON Lines file (a row file `top`, `report` and `symbolicate` read, a day's dumps) is
/// converted a block at a time, each block in chunks that two threads claim in order. The calling
/// thread hands every row on, in order, so what it hands them to (`top`'s ranking, `rows`' writer)
/// needs no lock; the other thread only converts. Split in two fixed halves instead, the calling
/// thread converted one half, handed on its rows, then handed on the other half's while the second
/// thread waited: the handing on was 38% of `top`'s CPU, and the second thread idle for it
/// (docs/speed.md, "Reading row files").
extension InputSession {
    /// Blocks shorter than this are converted on the calling thread alone: a thread's start costs
    /// about what 5 kB of rows take to convert.
    static let twoThreadThreshold = 256 << 10
    /// How much of a long JSON Lines file is read at once. Blocks of 16 MB let `top` over 200,000
    /// rows gain 5% more (the other thread idles less while `top` ranks a batch), but not over a
    /// million (13.19 s against 13.11), and the rows converted ahead of their turn grew `symbolicate`'s
    /// and `top`'s peak at four times the rows to 1.10x the 1x figure, past bench/run's target.
    static let blockBytes = 4 << 20
    /// How much of a block one claim takes: small enough that the thread left last at a block's end
    /// waits under a millisecond, large enough that claiming costs nothing measurable.
    static let chunkBytes = 64 << 10

    /// The complete lines at the start of `bytes` (up to and including the last newline), or nil
    /// when there is no newline.
    static func completeLines(_ bytes: UnsafeRawBufferPointer) -> UnsafeRawBufferPointer? {
        // Backwards: the last newline is at most a line from the end.
        guard let last = bytes.lastIndex(of: 0x0a) else { return nil }
        return UnsafeRawBufferPointer(rebasing: bytes[...last])
    }

    /// The chunks of `block` (complete lines): ranges of about `chunkBytes`, each ending after a
    /// newline, with the number of lines before each, so either thread numbers its lines (and its
    /// messages) as one thread would.
    static func chunks(of block: UnsafeRawBufferPointer) -> (chunks: [(bytes: Range<Int>, linesBefore: Int)], lines: Int) {
        var chunks: [(bytes: Range<Int>, linesBefore: Int)] = []
        var (start, end, lines, linesBefore) = (0, 0, 0, 0)
        while end < block.count {
            end = newline(in: UnsafeRawBufferPointer(rebasing: block[end...])).map { end + $0 + 1 } ?? block.count
            lines += 1
            if end - start >= chunkBytes || end == block.count {
                chunks.append((start..<end, linesBefore))
                (start, linesBefore) = (end, lines)
            }
        }
        return (chunks, lines)
    }

    /// Converts `block`, complete lines of which the first is number `after + 1`, on this thread and
    /// a second one. Rows, warnings and errors reach `emit` and `report` in the order of the lines,
    /// on the calling thread, as one thread gives them. Returns the number of the block's last line.
    func convertLinesOnTwoThreads(_ block: UnsafeRawBufferPointer, after lineNumber: Int) -> Int {
        let (chunks, lines) = Self.chunks(of: block)
        guard chunks.count > 1, ProcessInfo.processInfo.activeProcessorCount > 1 else {
            return convertLines(block, after: lineNumber)
        }
        let claims = ChunkClaims(count: chunks.count)
        // The bytes stay in the reader's buffer, untouched, until the join below.
        let (blockStart, blockCount) = (Int(bitPattern: block.baseAddress!), block.count)
        let (file, options, frameStrings) = (file, options, frameStrings)
        let chunkRanges = chunks.map(\.bytes)
        let second = SecondThread {
            let bytes = UnsafeRawBufferPointer(start: UnsafeRawPointer(bitPattern: blockStart), count: blockCount)
            let converter = BufferingConverter(file: file, options: options, frameStrings: frameStrings)
            while let chunk = claims.claimNext() {
                let (range, linesBefore) = chunks[chunk]
                claims.finish(chunk, converter.convert(UnsafeRawBufferPointer(rebasing: bytes[range]), after: lineNumber + linesBefore))
            }
        }
        var buffering: BufferingConverter?
        var next = 0
        while next < chunks.count {
            switch claims.take(next) {
            case .unclaimed:
                // Nobody has it: converted here, its rows handed on as they come.
                convertLines(UnsafeRawBufferPointer(rebasing: block[chunkRanges[next]]), after: lineNumber + chunks[next].linesBefore)
                next += 1
            case .converted(let converted):
                for item in converted.items {
                    switch item {
                    case .row(let row): emit(row)
                    case .diagnostic(let diagnostic): report(diagnostic)
                    }
                }
                if converted.failed { failed = true }
                if converted.isNotAnInput { isNotAnInput = true }
                next += 1
            case .inProgress:
                // The other thread is on it: a later chunk is converted meanwhile, or, with none
                // left, the wait is for that one.
                if let later = claims.claimNext() {
                    let converter = buffering ?? BufferingConverter(file: file, options: options, frameStrings: frameStrings)
                    buffering = converter
                    claims.finish(
                        later,
                        converter.convert(UnsafeRawBufferPointer(rebasing: block[chunkRanges[later]]), after: lineNumber + chunks[later].linesBefore))
                } else {
                    claims.waitForChange()
                }
            }
        }
        second.join()
        return lineNumber + lines
    }
}

/// What a chunk converted ahead of its turn gave, in the order of its lines: rows and messages, so
/// the calling thread hands them on as if it had read those lines itself.
struct ConvertedChunk: @unchecked Sendable {
    enum Item {
        case row(Row)
        case diagnostic(InputDiagnostic)
    }

    var items: [Item]
    var failed: Bool
    var isNotAnInput: Bool
}

/// An `InputSession` of its own that keeps what each chunk it converts gives, for the thread that
/// hands it on in order.
private final class BufferingConverter {
    private var items: [ConvertedChunk.Item] = []
    private var session: InputSession!

    /// `frameStrings`: the calling thread's, so a UUID or image both threads read is one string
    /// (`UUIDStrings` in `top` then keeps the frames as they come, where a copy of every second
    /// row's stack with its UUIDs replaced was 4% of `top`'s CPU).
    init(file: String, options: ConversionOptions, frameStrings: RowReader.FrameStrings) {
        session = InputSession(
            file: file, options: options, report: { [unowned self] in items.append(.diagnostic($0)) },
            emit: { [unowned self] in items.append(.row($0)) })
        session.frameStrings = frameStrings
    }

    func convert(_ chunk: UnsafeRawBufferPointer, after lineNumber: Int) -> ConvertedChunk {
        items = []
        session.failed = false
        session.isNotAnInput = false
        session.convertLines(chunk, after: lineNumber)
        return ConvertedChunk(items: items, failed: session.failed, isNotAnInput: session.isNotAnInput)
    }
}

/// The chunks of one block: which are claimed (always the lowest unclaimed first), and the rows
/// of those converted ahead of their turn until the calling thread takes them.
private final class ChunkClaims: Sendable {
    enum Turn {
        case unclaimed
        case inProgress
        case converted(ConvertedChunk)
    }

    private enum Slot {
        case waiting
        case converting
        case converted(ConvertedChunk)
        case taken
    }

    private struct State {
        var slots: [Slot]
        var nextUnclaimed = 0
    }

    private let state: Mutex<State>
    /// Signalled at each chunk finished, so a wait for one wakes (extra signals only cost a recheck).
    private let changed = DispatchSemaphore(value: 0)

    init(count: Int) {
        state = Mutex(State(slots: Array(repeating: .waiting, count: count)))
    }

    /// Claims the lowest chunk nobody has, to convert ahead of its turn; nil when all are claimed.
    func claimNext() -> Int? {
        state.withLock { state in
            guard state.nextUnclaimed < state.slots.count else { return nil }
            let chunk = state.nextUnclaimed
            state.nextUnclaimed += 1
            state.slots[chunk] = .converting
            return chunk
        }
    }

    func finish(_ chunk: Int, _ converted: sending ConvertedChunk) {
        state.withLock { $0.slots[chunk] = .converted(converted) }
        changed.signal()
    }

    /// Chunk `chunk`'s turn to be handed on: claimed here when nobody has it (it is then the lowest
    /// unclaimed, as every chunk before it was taken), its rows when it was converted ahead.
    func take(_ chunk: Int) -> Turn {
        state.withLock { state in
            switch state.slots[chunk] {
            case .waiting:
                state.nextUnclaimed = chunk + 1
                state.slots[chunk] = .taken
                return .unclaimed
            case .converting:
                return .inProgress
            case .converted(let converted):
                state.slots[chunk] = .taken
                return .converted(converted)
            case .taken:
                preconditionFailure("chunk \(chunk) taken twice")
            }
        }
    }

    func waitForChange() { changed.wait() }
}
