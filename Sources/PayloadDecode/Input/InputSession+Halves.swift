import Foundation
import SystemIO

/// A long JSON Lines file (a row file `top` and `symbolicate` read, a day's dumps) is converted a
/// block at a time, each block in two halves at once: reading and checking the rows was a quarter
/// of `symbolicate` over 20,000 rows, all of it on one core (docs/speed.md, "Stacks").
extension InputSession {
    /// Blocks shorter than this are converted on the calling thread alone: a thread's start costs
    /// about what 5 kB of rows take to convert.
    static let halvesThreshold = 256 << 10
    /// How much of a long JSON Lines file is read at once.
    static let blockBytes = 4 << 20

    /// What a session converting on the second thread emitted and reported, kept in order so the
    /// calling thread can hand it on as if it had read those lines itself.
    private enum Converted {
        case row(Row)
        case diagnostic(InputDiagnostic)
    }

    /// The complete lines at the start of `bytes` (up to and including the last newline), or nil
    /// when there is no newline.
    static func completeLines(_ bytes: UnsafeRawBufferPointer) -> UnsafeRawBufferPointer? {
        // Backwards: the last newline is at most a line from the end.
        guard let last = bytes.lastIndex(of: 0x0a) else { return nil }
        return UnsafeRawBufferPointer(rebasing: bytes[...last])
    }

    /// Converts `block`, complete lines of which the first is number `after + 1`: its second half
    /// on a second thread with a session of its own, its first half here, then what the second
    /// half gave, in order. Rows, warnings and errors reach `emit` and `report` in the order of
    /// the lines, on the calling thread, as the one-thread reading gives them. Returns the
    /// number of the block's last line.
    func convertLinesInHalves(_ block: UnsafeRawBufferPointer, after lineNumber: Int) -> Int {
        let middle = block.count / 2
        guard let split = Self.newline(in: UnsafeRawBufferPointer(rebasing: block[middle...])).map({ middle + $0 + 1 }),
            split < block.count
        else { return convertLines(block, after: lineNumber) }
        let firstHalf = UnsafeRawBufferPointer(rebasing: block[..<split])
        var firstHalfLines = 0
        var scan = firstHalf
        while let newline = Self.newline(in: scan) {
            firstHalfLines += 1
            scan = UnsafeRawBufferPointer(rebasing: scan[(newline + 1)...])
        }
        // The bytes stay in the reader's buffer, untouched, until the join below.
        let secondStart = Int(bitPattern: block.baseAddress! + split)
        let secondCount = block.count - split
        let (file, options, secondFirstLine) = (file, options, lineNumber + firstHalfLines)
        let second = SecondThread { () -> sending (converted: [Converted], lastLine: Int, failed: Bool, notAnInput: Bool) in
            var converted: [Converted] = []
            let session = InputSession(
                file: file, options: options, report: { converted.append(.diagnostic($0)) }, emit: { converted.append(.row($0)) })
            let bytes = UnsafeRawBufferPointer(start: UnsafeRawPointer(bitPattern: secondStart), count: secondCount)
            let lastLine = session.convertLines(bytes, after: secondFirstLine)
            return (converted, lastLine, session.failed, session.isNotAnInput)
        }
        convertLines(firstHalf, after: lineNumber)
        let (converted, lastLine, failed, notAnInput) = second.join()
        for item in converted {
            switch item {
            case .row(let row): emit(row)
            case .diagnostic(let diagnostic): report(diagnostic)
            }
        }
        if failed { self.failed = true }
        if notAnInput { isNotAnInput = true }
        return lastLine
    }
}
