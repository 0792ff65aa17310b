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

    /// The chunks of `block` (complete lines): ranges of about `chunkBytes`, each ending after a newline.
    static func chunks(of block: UnsafeRawBufferPointer) -> [Range<Int>] {
        var chunks: [Range<Int>] = []
        var start = 0
        while start < block.count {
            let target = start + chunkBytes
            guard target < block.count,
                let newline = newline(in: UnsafeRawBufferPointer(rebasing: block[target...]))
            else {
                chunks.append(start..<block.count)
                break
            }
            chunks.append(start..<(target + newline + 1))
            start = target + newline + 1
        }
        return chunks
    }

    /// Converts `block`, complete lines of which the first is number `after + 1`, on this thread and
    /// a second one. Rows, warnings and errors reach `emit` and `report` in the order of the lines,
    /// on the calling thread, as one thread gives them. Returns the number of the block's last line.
    func convertLinesOnTwoThreads(_ block: UnsafeRawBufferPointer, after lineNumber: Int) -> Int {
        let chunks = Self.chunks(of: block)
        guard chunks.count > 1, ProcessInfo.processInfo.activeProcessorCount > 1 else {
            return convertLines(block, after: lineNumber)
        }
        let claims = ChunkClaims(count: chunks.count)
        // The bytes stay in the reader's buffer, untouched, until the join below.
        let (blockStart, blockCount) = (Int(bitPattern: block.baseAddress!), block.count)
        let (file, options) = (file, options)
        let second = SecondThread {
            let bytes = UnsafeRawBufferPointer(start: UnsafeRawPointer(bitPattern: blockStart), count: blockCount)
            let converter = BufferingConverter(file: file, options: options)
            while let chunk = claims.claimNext() {
                claims.finish(chunk, converter.convert(UnsafeRawBufferPointer(rebasing: bytes[chunks[chunk]])))
            }
        }
        var line = lineNumber
        var buffering: BufferingConverter?
        var next = 0
        while next < chunks.count {
            switch claims.take(next) {
            case .unclaimed:
                // Nobody has it: converted here, its rows handed on as they come.
                line = convertLines(UnsafeRawBufferPointer(rebasing: block[chunks[next]]), after: line)
                next += 1
            case .converted(let converted):
                if converted.isClean {
                    for row in converted.rows { emit(row) }
                    line += converted.lines
                } else {
                    // Its messages name lines the other thread could not number: converted again
                    // here, where the line numbers are known (bad lines are rare).
                    line = convertLines(UnsafeRawBufferPointer(rebasing: block[chunks[next]]), after: line)
                }
                next += 1
            case .inProgress:
                // The other thread is on it: a later chunk is converted meanwhile, or, with none
                // left, the wait is for that one.
                if let later = claims.claimNext() {
                    let converter = buffering ?? BufferingConverter(file: file, options: options)
                    buffering = converter
                    claims.finish(later, converter.convert(UnsafeRawBufferPointer(rebasing: block[chunks[later]])))
                } else {
                    claims.waitForChange()
                }
            }
        }
        second.join()
        return line
    }
}

/// What a chunk converted ahead of its turn gave: its rows, its number of lines, and whether it is
/// clean (no message, nothing failed, nothing that is no input), the only kind handed on as it is.
struct ConvertedChunk: @unchecked Sendable {
    var rows: [Row]
    var lines: Int
    var isClean: Bool
}

/// An `InputSession` of its own that keeps the rows of each chunk it converts, for the thread that
/// hands them on in order.
private final class BufferingConverter {
    private var rows: [Row] = []
    private var messages = 0
    private var session: InputSession!

    init(file: String, options: ConversionOptions) {
        session = InputSession(
            file: file, options: options, report: { [unowned self] _ in messages += 1 }, emit: { [unowned self] in rows.append($0) })
    }

    func convert(_ chunk: UnsafeRawBufferPointer) -> ConvertedChunk {
        rows = []
        messages = 0
        session.failed = false
        session.isNotAnInput = false
        let lines = session.convertLines(chunk, after: 0)
        let clean = messages == 0 && !session.failed && !session.isNotAnInput
        return ConvertedChunk(rows: clean ? rows : [], lines: lines, isClean: clean)
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
