import Foundation
import PayloadDecode
import StackSymbolize
import Synchronization

/// `symbolicate FILE...`: every diagnostic row's stack, against its build's debug files.
enum SymbolicateStacks {
    struct JSONFrame: Codable {
        var debug_file: String?
        var image: String?
        var index: Int
        var lookup_address: String?
        var offset: UInt64
        var status: String
        var symbols: [SymbolicateOutput.JSONSource]
        var uuid: String?
    }

    struct JSONStack: Codable {
        var app_build: Int
        var build_folder: String?
        /// A crash's Mach exception type, signal and termination by name, when its row has them (`CrashCause`).
        var exception_type: String?
        var frames: [JSONFrame]
        var kind: String
        var name: String
        var row_key: String
        var signal: String?
        var termination: String?
    }

    /// The requests of one row's stack: frame 0 is the interrupted instruction, the rest return addresses.
    static func requests(_ stack: [StackFrame]) -> [FrameRequest] {
        stack.enumerated().map { index, frame in
            FrameRequest(image: frame.image, uuid: frame.uuid, offset: frame.offset, isReturnAddress: index > 0)
        }
    }

    static func run(
        inputs: [String], root: String?, build: String?, indexFolder: String?, systemSymbols: [String] = [], stdin: FileHandle,
        format: SymbolicateCommand.Format, verbose: Bool = false,
        stdout: inout some TextOutputStream, stderr: inout some TextOutputStream
    ) -> Int32 {
        let progress = ProgressLine.forSlowWork()
        var messages = ProgressErasingStream(base: stderr, progress: progress)
        var run = StackRun(
            root: root, build: build, indexFolder: indexFolder, systemSymbols: systemSymbols, format: format, progress: progress)
        var diagnostics: [InputDiagnostic] = []
        var conversion = ConversionOptions()
        conversion.frameNames = run.frameNames
        for input in inputs {
            let ok = RowSource.readRows(
                path: input, options: conversion, standardInput: stdin, report: { diagnostics.append($0) },
                emit: { row in
                    guard let stack = row.stack, !stack.isEmpty else { return }
                    run.add(row, stack: stack)
                    if run.isFull {
                        for diagnostic in diagnostics { messages.write("\(diagnostic.severity.rawValue): \(diagnostic)\n") }
                        diagnostics.removeAll()
                        run.flush(stdout: &stdout, stderr: &messages)
                    }
                })
            for diagnostic in diagnostics { messages.write("\(diagnostic.severity.rawValue): \(diagnostic)\n") }
            diagnostics.removeAll()
            if !ok { run.failed = true }
        }
        run.flush(stdout: &stdout, stderr: &messages, isLast: true)
        progress.erase()
        stderr = messages.base
        run.finish(stdout: &stdout)
        if verbose { for note in run.readingNotes() { stderr.write("note: \(note)\n") } }
        return run.failed ? PayloadTool.exitFailure : PayloadTool.exitSuccess
    }
}

/// What a stack's output needs of its row: a whole row kept per batch entry was most of a batch's
/// memory.
struct PendingStack {
    var name: String
    var rowKey: String
    var build: Int
    var periodStart: String
    var kind: String
    var stack: [StackFrame]
    var cause: CrashCause?
}

/// One run of `symbolicate FILE...`: the symbolizer of each build folder (opened once), the UUIDs
/// already warned about, and for `--folded` the stacks counted so far.
struct StackRun {
    let root: String?
    let build: String?
    let indexFolder: String?
    let systemSymbols: [String]
    let format: SymbolicateCommand.Format
    let progress: ProgressLine
    /// An error was printed, or an input failed: exit 1.
    var failed = false
    private var symbolizers: [String: BuildSymbolizer?] = [:]
    /// The store every build's frames are looked up in, by UUID, after the build's own folder.
    private let store: DebugFileStore
    private var reportedMissing: Set<String> = []
    private var folded: [String: Int] = [:]
    private var foldedOrder: [String] = []
    private var stackCount = 0
    /// Per build folder, the answers of the stacks symbolicated so far, so a later batch takes them
    /// as they are (as `top` does, `TopRanking.seenStacks`): at four times the rows of the same
    /// stacks each batch looked them up again, and the peak grew 1.10x (docs/speed.md).
    private var seenStacks: [String: [StackKey: [SymbolicatedFrame]]] = [:]
    /// For text output, the same as the lines each stack's frames wrote.
    private var seenStackLines: [String: [StackKey: [UInt8]]] = [:]
    private var seenStackCount = 0
    /// Each image name's text column, made once.
    private var imageColumns: [String: [UInt8]] = [:]
    /// The names crash reports give their frames: a frame no debug file answers keeps the report's.
    let frameNames = ReportFrameNames()

    init(
        root: String?, build: String?, indexFolder: String?, systemSymbols: [String], format: SymbolicateCommand.Format,
        progress: ProgressLine
    ) {
        self.root = root
        store = DebugFileStore(root: root)
        self.build = build
        self.indexFolder = indexFolder
        self.systemSymbols = systemSymbols
        self.format = format
        self.progress = progress
    }

    /// The symbolizer of a build's folder and the folder, opened on first use; `nil` (with a
    /// message) when the build names no folder or it holds no debug file.
    mutating func symbolizer(for buildName: String, stderr: inout some TextOutputStream) -> (BuildSymbolizer?, String?) {
        let folder: String
        do {
            folder = try BuildSymbolizer.buildFolder(root: root, build: buildName)
        } catch {
            if reportedMissing.insert("build \(buildName)").inserted { stderr.write("error: \(error)\n") }
            failed = true  // an error printed means exit 1
            return (nil, nil)
        }
        if let known = symbolizers[folder] { return (known, folder) }
        var made: BuildSymbolizer?
        do {
            made = try BuildSymbolizer(build: buildName, store: store, indexFolder: indexFolder, systemSymbols: systemSymbols)
            made?.progress = progress.show
            // Text and folded output print simplified names only, as `--object` does: full names
            // (swift_demangle for every function) were a tenth of a cold run over rows.
            made?.makesFullNames = format == .json || format == .atos
            if !store.hasBuildFolder(buildName), made?.problems.isEmpty ?? true {
                stderr.write("warning: no folder \(folder) for build \(buildName); its frames are looked up by UUID in the store's other builds\n")
            }
            // A broken debug file is an error (exit 1); the build's other files still symbolicate.
            for problem in made!.problems {
                stderr.write("error: \(problem)\n")
                failed = true
            }
        } catch {
            stderr.write("warning: no debug files for build \(buildName): \(error)\n")
        }
        symbolizers[folder] = made
        return (made, folder)
    }

    /// Rows read and not yet symbolicated: a batch, bounded so memory stays flat on any input.
    private var pending: [PendingStack] = []
    /// Each image UUID once: a batch's frames share one string per image.
    private var uuids = UUIDStrings()
    private var pendingFrames = 0
    /// A batch ends at this many rows or frames: one batch holds the 100,000 frames of 20,000
    /// five-frame rows, whose distinct addresses each debug file looks up at once (docs/speed.md).
    static let batchRows = 32_768
    static let batchFrames = 131_072

    private static let lastBatch = Mutex<KeptBatch?>(nil)

    private struct KeptBatch: @unchecked Sendable {
        let rows: [PendingStack]
        let answers: [[SymbolicatedFrame]]
        let textAnswers: [StackTextAnswers]
        /// The run's debug files and the stacks it kept, as `--object` keeps its symbolizer:
        /// freeing them before exit was 3% of a cold run over 20,000 rows.
        let symbolizers: [String: BuildSymbolizer?]
        let seenStacks: [String: [StackKey: [SymbolicatedFrame]]]
        let seenStackLines: [String: [StackKey: [UInt8]]]
    }

    /// Where a text batch's row finds the lines of its frames.
    private enum StackLines {
        /// No build folder or debug files: every frame is `image + offset`.
        case unanswered
        /// Written for an earlier row of the same stack.
        case seen([UInt8])
        /// Stack `stack` of `textAnswers[batch]`.
        case answered(batch: Int, stack: Int)
        /// A frame of it is named by a crash report: answered frame by frame (`namedStackLines`).
        case named
    }

    var writesText: Bool { format == .text || format == .atos }

    var isFull: Bool { pending.count >= Self.batchRows || pendingFrames >= Self.batchFrames }

    /// Keeps a row for the next batch.
    mutating func add(_ row: Row, stack: [StackFrame]) {
        pending.append(
            PendingStack(
                name: row.name, rowKey: row.row_key, build: row.app_build, periodStart: row.period_start, kind: row.kind.rawValue,
                stack: uuids.sharing(stack), cause: CrashCause(row: row)))
        pendingFrames += stack.count
    }

    /// Symbolicates the rows kept so far, every build's stacks in one batch per debug file, and
    /// writes them in input order.
    mutating func flush(stdout: inout some TextOutputStream, stderr: inout some TextOutputStream, isLast: Bool = false) {
        var answers = [[SymbolicatedFrame]](repeating: [], count: writesText ? 0 : pending.count)
        var textAnswers: [StackTextAnswers] = []
        defer {
            // The last batch is kept rather than freed: the process ends right after, and tearing
            // down every row and answer exit drops anyway was a twentieth of a run (as `--object`
            // keeps its last batch). At most one batch is kept, so tests in one process do not pile up.
            if isLast {
                let kept = KeptBatch(
                    rows: pending, answers: answers, textAnswers: textAnswers, symbolizers: symbolizers, seenStacks: seenStacks,
                    seenStackLines: seenStackLines)
                Self.lastBatch.withLock { $0 = kept }
                seenStacks = [:]
                seenStackLines = [:]
            }
            pending.removeAll(keepingCapacity: !isLast)
            pendingFrames = 0
        }
        // Each row's build folder, opened in the order the rows come (its messages likewise).
        var symbolizerOfRow: [BuildSymbolizer?] = []
        var folderOfRow: [String?] = []
        // Each build's folder found once a batch: finding it for every row was 1% of a run.
        var ofBuild: [Int: (BuildSymbolizer?, String?)] = [:]
        for entry in pending {
            let (symbolizer, folder) = ofBuild[entry.build] ?? symbolizer(for: build ?? String(entry.build), stderr: &stderr)
            ofBuild[entry.build] = (symbolizer, folder)
            symbolizerOfRow.append(symbolizer)
            folderOfRow.append(folder)
        }
        // Builds in the order their rows come.
        var rowsOfFolder: [String: [Int]] = [:]
        var folderOrder: [String] = []
        for (position, folder) in folderOfRow.enumerated() {
            guard let folder, symbolizerOfRow[position] != nil else { continue }
            if rowsOfFolder[folder] == nil { folderOrder.append(folder) }
            rowsOfFolder[folder, default: []].append(position)
        }
        if writesText {
            textAnswers = flushText(
                symbolizerOfRow: symbolizerOfRow, folderOfRow: folderOfRow, rowsOfFolder: rowsOfFolder, folderOrder: folderOrder,
                keepingStacks: !isLast, stdout: &stdout, stderr: &stderr)
            return
        }
        for folder in folderOrder {
            let symbolizer = symbolizerOfRow[rowsOfFolder[folder]![0]]!
            // Stacks an earlier batch answered are taken as they were; only the others are looked up.
            var positions: [Int] = []
            for position in rowsOfFolder[folder]! {
                if let known = seenStacks[folder]?[StackKey(pending[position].stack)] {
                    answers[position] = known
                } else {
                    positions.append(position)
                }
            }
            guard !positions.isEmpty else { continue }
            let stacks = positions.map { SymbolicateStacks.requests(pending[$0].stack) }
            for (position, stack) in zip(positions, symbolizer.symbolicate(stacks: stacks)) {
                answers[position] = stack
                if !isLast, seenStackCount < TopRanking.seenStacksKept,
                    seenStacks[folder, default: [:]].updateValue(stack, forKey: StackKey(pending[position].stack)) == nil
                {
                    seenStackCount += 1
                }
            }
            for warning in symbolizer.takeWarnings() { stderr.write("warning: \(warning)\n") }
        }
        for (position, entry) in pending.enumerated() {
            let symbolizer = symbolizerOfRow[position]
            var rowAnswers = answers[position]
            if symbolizer == nil {
                rowAnswers = SymbolicateStacks.requests(entry.stack).map {
                    SymbolicatedFrame(request: $0, status: .missingDebugFile, lookupAddress: nil, debugFile: nil, frames: [])
                }
            }
            frameNames.fill(&rowAnswers)
            for answer in rowAnswers where answer.status == .missingDebugFile {
                let uuid = answer.request.uuid ?? "(none)"
                if symbolizer != nil, reportedMissing.insert(uuid).inserted {
                    let place = folderOfRow[position] ?? build ?? String(entry.build)
                    var message = "warning: no debug file for UUID \(uuid) (image \(answer.request.image ?? "?")) in \(place)"
                    if let failure = symbolizer?.openFailure(uuid: uuid) { message += ": \(failure)" }
                    stderr.write(message + "\n")
                }
            }
            write(entry, answers: rowAnswers, folder: folderOfRow[position], stdout: &stdout)
            stackCount += 1
        }
    }

    /// `flush` for text output: each folder's new stacks in one `symbolicateForText` batch, each
    /// stack's lines written once from its answers' bytes and, unless this is the last batch
    /// (`keepingStacks` false), kept for later batches' rows of the stack.
    private mutating func flushText(
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
        var rendered = batches.map { [[UInt8]?](repeating: nil, count: $0.places.count) }
        // The output goes out in pieces of 64 kB, not a String made and written per stack.
        var out: [UInt8] = []
        out.reserveCapacity(1 << 17)
        for (position, entry) in pending.enumerated() {
            var bytes: [UInt8]
            switch lines[position] {
            case .seen(let known):
                bytes = known
            case .unanswered:
                bytes = []
                for (index, frame) in entry.stack.enumerated() { appendMissingLine(frame, index: index, into: &bytes) }
            case .named:
                bytes = namedStackLines(entry, symbolizer: symbolizerOfRow[position], folder: folderOfRow[position], stderr: &stderr)
            case .answered(let batch, let stack):
                if let known = rendered[batch][stack] {
                    bytes = known
                    break
                }
                let answers = batches[batch]
                let places = answers.places[stack]
                // Each missing debug file is named once, where its first frame is written.
                for (frame, place) in zip(entry.stack, places) where place == .missingDebugFile {
                    let uuid = frame.uuid ?? "(none)"
                    if reportedMissing.insert(uuid).inserted {
                        let place = folderOfRow[position] ?? build ?? String(entry.build)
                        var message = "warning: no debug file for UUID \(uuid) (image \(frame.image ?? "?")) in \(place)"
                        if let failure = symbolizerOfRow[position]?.openFailure(uuid: uuid) { message += ": \(failure)" }
                        stderr.write(message + "\n")
                    }
                }
                bytes = stackLines(entry.stack, places: places, answers: answers)
                rendered[batch][stack] = bytes
                if keepingStacks, let folder = folderOfRow[position], seenStackCount < TopRanking.seenStacksKept {
                    if seenStackLines[folder] == nil {
                        seenStackLines[folder] = Dictionary(minimumCapacity: Swift.min(pending.count, TopRanking.seenStacksKept))
                    }
                    if seenStackLines[folder]!.updateValue(bytes, forKey: StackKey(entry.stack)) == nil { seenStackCount += 1 }
                }
            }
            appendHeader(entry, into: &out)
            out.append(contentsOf: bytes)
            stackCount += 1
            if out.count >= 1 << 16 {
                stdout.write(String(decoding: out, as: UTF8.self))
                out.removeAll(keepingCapacity: true)
            }
        }
        if !out.isEmpty { stdout.write(String(decoding: out, as: UTF8.self)) }
        return batches
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

    /// The lines of `stack`'s frames from their answers' bytes. The address column is the frame's
    /// offset into its image as the row gives it, on every frame: named or not, return address or
    /// not (docs/command-line.md).
    private mutating func stackLines(_ stack: [StackFrame], places: [StackTextAnswers.Place], answers: StackTextAnswers) -> [UInt8] {
        var bytes: [UInt8] = []
        var lineEnds: [Int] = []
        var currentImage: (name: String, column: [UInt8])?
        var index = 0
        while index < stack.count {
            guard case .answer(let file, _) = places[index] else {
                appendMissingLine(stack[index], index: index, into: &bytes)
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
                        if currentImage?.name != image { currentImage = (image, imageColumn(image)) }
                        SymbolicateOutput.appendTextLines(
                            imageColumn: currentImage!.column, image: image, address: frame.offset, offset: frame.offset,
                            answer: direct.answers[Int(slot)], frames: frames, text: text, indexColumn: position, into: &bytes,
                            lineEnds: &lineEnds)
                    }
                }
            }
            index = end
        }
        return bytes
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

    private mutating func write(
        _ row: PendingStack, answers: [SymbolicatedFrame], folder: String?, stdout: inout some TextOutputStream
    ) {
        switch format {
        case .text, .atos:
            // `flushText` writes text output.
            break
        case .json:
            // One stack at a time: the output never holds every stack of a large input.
            stdout.write(stackCount == 0 ? "[" : ",")
            stdout.write(
                SymbolicateOutput.encodeCompact(
                    SymbolicateStacks.JSONStack(
                        app_build: row.build, build_folder: folder, exception_type: row.cause?.exceptionTypeName,
                        frames: answers.enumerated().map { index, answer in
                            SymbolicateStacks.JSONFrame(
                                debug_file: answer.debugFile, image: answer.request.image, index: index,
                                lookup_address: answer.lookupAddress.map(SymbolicateOutput.hex), offset: answer.request.offset,
                                status: SymbolicateOutput.jsonStatus(answer.status), symbols: answer.frames.map(SymbolicateOutput.JSONSource.init),
                                uuid: answer.request.uuid)
                        }, kind: row.kind, name: row.name, row_key: row.rowKey, signal: row.cause?.signalName,
                        termination: row.cause?.terminationName)))
        case .folded:
            let line = answers.reversed().flatMap { answer in
                SymbolicateOutput.foldedNames(image: answer.request.image ?? "???", frame: answer)
            }.joined(separator: ";")
            if folded[line] == nil { foldedOrder.append(line) }
            folded[line, default: 0] += 1
        }
    }

    /// How each build's debug files were read (`--verbose`), builds in name order.
    func readingNotes() -> [String] {
        symbolizers.keys.sorted().flatMap { symbolizers[$0]??.readingNotes() ?? [] }
    }

    /// Closes the JSON array, or writes the folded stacks with their counts.
    func finish(stdout: inout some TextOutputStream) {
        switch format {
        case .json: stdout.write(stackCount == 0 ? "[]\n" : "]\n")
        case .folded: for line in foldedOrder { stdout.write("\(line) \(folded[line]!)\n") }
        case .text, .atos: break
        }
    }
}
