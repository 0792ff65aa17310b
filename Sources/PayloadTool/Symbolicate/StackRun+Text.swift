import Foundation
import PayloadDecode
import StackSymbolize
import SystemIO

/// `symbolicate`'s text output over rows: each stack's lines written once from its batch's
/// answers as bytes, kept for later batches' rows of the same stack; stacks with a frame a crash
/// report names go frame by frame, so the report's names are kept where no debug file answers.
extension StackRun {
    /// Where a text batch's row finds the lines of its frames.
    enum StackLines {
        /// No build folder or debug files: every frame is `image + offset`.
        case unanswered
        /// Written for an earlier row of the same stack.
        case seen([UInt8])
        /// Stack `stack` of `textAnswers[batch]`.
        case answered(batch: Int, stack: Int)
        /// A frame of it is named by a crash report: answered frame by frame (`namedStackLines`).
        case named
    }

    /// `flush` for text output: each folder's new stacks in one `symbolicateForText` batch, each
    /// stack's lines written once from its answers' bytes and, unless this is the last batch
    /// (`keepingStacks` false), kept for later batches' rows of the stack.
    mutating func flushText(
        symbolizerOfRow: [BuildSymbolizer?], folderOfRow: [String?], rowsOfFolder: [String: [Int]], folderOrder: [String],
        keepingStacks: Bool, stdout: inout some TextOutputStream, stderr: inout some TextOutputStream
    ) -> [StackTextAnswers] {
        var lines = [StackLines](repeating: .unanswered, count: pending.count)
        // Stacks with a frame a crash report names go frame by frame; none when no report was read.
        if !frameNames.isEmpty {
            for (position, entry) in pending.enumerated()
            where entry.stack.contains(where: { frameNames.names(uuid: $0.uuid, offset: $0.offset) != nil }) {
                lines[position] = .named
            }
        }
        var batches: [StackTextAnswers] = []
        for folder in folderOrder {
            let symbolizer = symbolizerOfRow[rowsOfFolder[folder]![0]]!
            // Stacks an earlier row answered are taken as they were written; only the others are looked up.
            var positions: [Int] = []
            var firstOfStack: [StackKey: Int] = [:]
            firstOfStack.reserveCapacity(rowsOfFolder[folder]!.count)
            for position in rowsOfFolder[folder]! {
                if case .named = lines[position] { continue }
                if let known = seenStackLines[folder]?[StackKey(pending[position].stack)] {
                    lines[position] = .seen(known)
                } else if let first = firstOfStack[StackKey(pending[position].stack)], case .answered(_, let stack) = lines[first] {
                    lines[position] = .answered(batch: batches.count, stack: stack)
                } else {
                    firstOfStack[StackKey(pending[position].stack)] = position
                    lines[position] = .answered(batch: batches.count, stack: positions.count)
                    positions.append(position)
                }
            }
            guard !positions.isEmpty else { continue }
            batches.append(symbolizer.symbolicateForText(stacks: positions.map { SymbolicateStacks.requests(pending[$0].stack) }))
            for warning in symbolizer.takeWarnings() { stderr.write("warning: \(warning)\n") }
        }
        // Each new stack's lines, written once for all its rows in the batch.
        let rendered = renderNewStacks(lines, batches: batches)
        var writtenNewStacks = [Bool](repeating: false, count: rendered.count)
        // The output goes out in pieces of 64 kB, not a String made and written per stack.
        var out: [UInt8] = []
        out.reserveCapacity(1 << 17)
        for position in pending.indices {
            appendHeader(pending[position], into: &out)
            switch lines[position] {
            case .seen(let known):
                out.append(contentsOf: known)
            case .unanswered:
                for (index, frame) in pending[position].stack.enumerated() { appendMissingLine(frame, index: index, into: &out) }
            case .named:
                let entry = pending[position]
                out.append(
                    contentsOf: namedStackLines(entry, symbolizer: symbolizerOfRow[position], folder: folderOfRow[position], stderr: &stderr))
            case .answered(let batch, let stack):
                let index = rendered.index(batch: batch, stack: stack)
                if !writtenNewStacks[index] {
                    writtenNewStacks[index] = true
                    warnOfMissingFiles(
                        position, places: batches[batch].places[stack], symbolizer: symbolizerOfRow[position],
                        folder: folderOfRow[position], stderr: &stderr)
                    if keepingStacks, let folder = folderOfRow[position], seenStackCount < TopRanking.seenStacksKept {
                        if seenStackLines[folder] == nil {
                            seenStackLines[folder] = Dictionary(minimumCapacity: Swift.min(pending.count, TopRanking.seenStacksKept))
                        }
                        let kept = rendered.withLines(index) { Array($0) }
                        if seenStackLines[folder]!.updateValue(kept, forKey: StackKey(pending[position].stack)) == nil { seenStackCount += 1 }
                    }
                }
                rendered.withLines(index) { out.append(contentsOf: $0) }
            }
            stackCount += 1
            if out.count >= 1 << 16 {
                stdout.write(String(decoding: out, as: UTF8.self))
                out.removeAll(keepingCapacity: true)
            }
        }
        if !out.isEmpty { stdout.write(String(decoding: out, as: UTF8.self)) }
        return batches
    }

    /// Names each debug file missing for a frame of the stack of row `position`, once a run, where
    /// its first frame is written.
    private mutating func warnOfMissingFiles(
        _ position: Int, places: [StackTextAnswers.Place], symbolizer: BuildSymbolizer?, folder: String?,
        stderr: inout some TextOutputStream
    ) {
        for (frame, place) in zip(pending[position].stack, places) where place == .missingDebugFile {
            let uuid = frame.uuid ?? "(none)"
            guard reportedMissing.insert(uuid).inserted else { continue }
            let place = folder ?? build ?? String(pending[position].build)
            var message = "warning: no debug file for UUID \(uuid) (image \(frame.image ?? "?")) in \(place)"
            if let failure = symbolizer?.openFailure(uuid: uuid) { message += ": \(failure)" }
            stderr.write(message + "\n")
        }
    }

    /// A stack's line in text output: `name row-key build N (period start)`, after a blank line
    /// from the stack before; a crash names what ended it where the payload says
    /// (`crash ... : EXC_BAD_ACCESS (SIGSEGV)`).
    private func appendHeader(_ row: PendingStack, into out: inout [UInt8]) {
        if stackCount > 0 { out.append(UInt8(ascii: "\n")) }
        out.append(contentsOf: row.name.utf8)
        out.append(UInt8(ascii: " "))
        out.append(contentsOf: row.rowKey.utf8)
        out.append(contentsOf: " build ".utf8)
        SymbolicateOutput.appendDecimal(UInt64(bitPattern: Int64(row.build)), signed: true, into: &out)
        out.append(contentsOf: " (".utf8)
        out.append(contentsOf: row.periodStart.utf8)
        out.append(UInt8(ascii: ")"))
        if let cause = row.cause {
            out.append(contentsOf: ": ".utf8)
            out.append(contentsOf: cause.description.utf8)
        }
        out.append(UInt8(ascii: "\n"))
    }

    /// Each image name's text column, made once.
    private mutating func imageColumn(_ image: String) -> [UInt8] {
        if let known = imageColumns[image] { return known }
        let column = SymbolicateOutput.imageColumn(image)
        imageColumns[image] = column
        return column
    }

    /// The lines of every stack first answered in `batches`. Many stacks are written on two
    /// threads, each a half of them: written on one after the lookups, they were a twelfth of
    /// `symbolicate` over 20,000 rows (docs/speed.md). Each half goes into one buffer: an array
    /// per stack, grown line by line, was a third of the writing (allocations, copies, frees).
    private mutating func renderNewStacks(_ lines: [StackLines], batches: [StackTextAnswers]) -> RenderedStacks {
        var indexOfStack = batches.map { [Int32](repeating: -1, count: $0.places.count) }
        var firstRows: [(batch: Int, stack: Int, position: Int)] = []
        for (position, line) in lines.enumerated() {
            guard case .answered(let batch, let stack) = line, indexOfStack[batch][stack] < 0 else { continue }
            indexOfStack[batch][stack] = Int32(firstRows.count)
            firstRows.append((batch, stack, position))
            for frame in pending[position].stack { _ = imageColumn(frame.image ?? "???") }
        }
        let stacks = firstRows.map { pending[$0.position].stack }
        let places = firstRows.map { batches[$0.batch].places[$0.stack] }
        let answerBatches = firstRows.map(\.batch)
        let columns = imageColumns
        let parts = SecondThread<Void>.mapInHalves(firstRows.count, minimum: 2_000) { range -> [RenderedStacks.Part] in
            var part = RenderedStacks.Part(first: range.lowerBound)
            part.bytes.reserveCapacity(range.count * 1_024)
            part.ends.reserveCapacity(range.count)
            var lineEnds: [Int] = []
            for index in range {
                StackRun.appendStackLines(
                    stacks[index], places: places[index], answers: batches[answerBatches[index]], imageColumns: columns,
                    into: &part.bytes, lineEnds: &lineEnds)
                part.ends.append(part.bytes.count)
                lineEnds.removeAll(keepingCapacity: true)
            }
            return range.isEmpty ? [] : [part]
        }
        return RenderedStacks(indexOfStack: indexOfStack, parts: parts)
    }

    /// The lines of `stack`'s frames from their answers' bytes, appended to `bytes`. The address
    /// column is the frame's offset into its image as the row gives it, on every frame: named or
    /// not, return address or not (docs/command-line.md). `imageColumns` holds the stack's image
    /// names' columns.
    private static func appendStackLines(
        _ stack: [StackFrame], places: [StackTextAnswers.Place], answers: StackTextAnswers, imageColumns: [String: [UInt8]],
        into bytes: inout [UInt8], lineEnds: inout [Int]
    ) {
        var currentImage: (name: String, column: [UInt8])?
        var index = 0
        while index < stack.count {
            guard case .answer(let file, _) = places[index] else {
                let image = stack[index].image ?? "???"
                SymbolicateOutput.appendMissingDebugFileLine(
                    imageColumn: imageColumns[image] ?? SymbolicateOutput.imageColumn(image), image: image, address: stack[index].offset,
                    uuid: stack[index].uuid ?? "(none)", indexColumn: index, into: &bytes, lineEnds: &lineEnds)
                index += 1
                continue
            }
            // A run of frames answered by one debug file (most stacks are one run) is written with
            // its answers' bytes taken once: taking them for every frame retained five arrays each.
            var end = index + 1
            while end < stack.count, case .answer(let next, _) = places[end], next == file { end += 1 }
            let direct = answers.files[Int(file)]
            direct.frames.withUnsafeBufferPointer { frames in
                direct.text.withUnsafeBytes { text in
                    for position in index..<end {
                        guard case .answer(_, let slot) = places[position] else { continue }
                        let frame = stack[position]
                        let image = frame.image ?? "???"
                        if currentImage?.name != image { currentImage = (image, imageColumns[image] ?? SymbolicateOutput.imageColumn(image)) }
                        SymbolicateOutput.appendTextLines(
                            imageColumn: currentImage!.column, image: image, address: frame.offset, offset: frame.offset,
                            answer: direct.answers[Int(slot)], frames: frames, text: text, indexColumn: position, into: &bytes,
                            lineEnds: &lineEnds)
                    }
                }
            }
            index = end
        }
    }

    /// The lines of a stack with a frame a crash report names: its answers from the build's
    /// debug files (if any), the report's names where none answers, each frame written from its
    /// answer (as `--format text` writes a report's threads).
    private mutating func namedStackLines(
        _ entry: PendingStack, symbolizer: BuildSymbolizer?, folder: String?, stderr: inout some TextOutputStream
    ) -> [UInt8] {
        let requests = SymbolicateStacks.requests(entry.stack)
        var answers =
            symbolizer?.symbolicate(stacks: [requests]).first
            ?? requests.map { SymbolicatedFrame(request: $0, status: .missingDebugFile, lookupAddress: nil, debugFile: nil, frames: []) }
        if let symbolizer { for warning in symbolizer.takeWarnings() { stderr.write("warning: \(warning)\n") } }
        frameNames.fill(&answers)
        var bytes: [UInt8] = []
        var lineEnds: [Int] = []
        for (index, answer) in answers.enumerated() {
            if answer.status == .missingDebugFile, symbolizer != nil, reportedMissing.insert(answer.request.uuid ?? "(none)").inserted {
                let place = folder ?? build ?? String(entry.build)
                stderr.write(
                    "warning: no debug file for UUID \(answer.request.uuid ?? "(none)") (image \(answer.request.image ?? "?")) in \(place)\n")
            }
            let image = answer.request.image ?? "???"
            SymbolicateOutput.appendTextLines(
                imageColumn: imageColumn(image), image: image, address: answer.request.offset, frame: answer, indexColumn: index,
                into: &bytes, lineEnds: &lineEnds)
        }
        return bytes
    }

    /// The line of a frame no debug file answered.
    private mutating func appendMissingLine(_ frame: StackFrame, index: Int, into bytes: inout [UInt8]) {
        var lineEnds: [Int] = []
        let image = frame.image ?? "???"
        SymbolicateOutput.appendMissingDebugFileLine(
            imageColumn: imageColumn(image), image: image, address: frame.offset, uuid: frame.uuid ?? "(none)", indexColumn: index,
            into: &bytes, lineEnds: &lineEnds)
    }
}

/// The lines of a text batch's new stacks (`renderNewStacks`): one buffer per thread that wrote
/// them, each stack a span of one.
struct RenderedStacks {
    /// Each batch's stacks' index among the written stacks (-1: not written here).
    var indexOfStack: [[Int32]]
    /// The buffers, in order: a part holds the stacks from `first` on, each ending at its `ends`.
    var parts: [Part]

    struct Part: Sendable {
        var first: Int
        var bytes: [UInt8] = []
        var ends: [Int] = []
    }

    /// How many stacks were written.
    var count: Int { parts.last.map { $0.first + $0.ends.count } ?? 0 }

    func index(batch: Int, stack: Int) -> Int { Int(indexOfStack[batch][stack]) }

    /// `body` with the lines of written stack `index`, lent for the call.
    func withLines<Result>(_ index: Int, _ body: (UnsafeBufferPointer<UInt8>) -> Result) -> Result {
        let part = parts.last { $0.first <= index }!
        let local = index - part.first
        let start = local == 0 ? 0 : part.ends[local - 1]
        return part.bytes.withUnsafeBufferPointer { body(UnsafeBufferPointer(rebasing: $0[start..<part.ends[local]])) }
    }
}
