import Foundation
import PayloadDecode
import StackSignature
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
        inputs: InputList, root: String?, build: String?, indexFolder: String?, systemSymbols: [String] = [],
        symbolServers: SymbolServerSettings? = nil, stdin: FileHandle,
        format: SymbolicateCommand.Format, verbose: Bool = false, allSamples: Bool = false,
        stdout: inout some TextOutputStream, stderr: inout some TextOutputStream
    ) -> Int32 {
        let progress = ProgressLine.forSlowWork()
        var messages = ProgressErasingStream(base: stderr, progress: progress)
        var run = StackRun(
            root: root, build: build, indexFolder: indexFolder, systemSymbols: systemSymbols, format: format, progress: progress)
        run.symbolServers = symbolServers.map(SymbolServerFetcher.init)
        var diagnostics: [InputDiagnostic] = []
        var conversion = ConversionOptions()
        conversion.frameNames = run.frameNames
        // A bare call-stack tree names no build: `--build` gives it one.
        conversion.treeBuild = build.flatMap { try? ColumnPatterns.appBuild($0).get() }
        conversion.treeAllSamples = allSamples
        for error in inputs.errors { messages.write("error: \(error)\n") }
        for warning in inputs.warnings { messages.write("warning: \(warning)\n") }
        if !inputs.errors.isEmpty { run.failed = true }
        var skipped = 0
        for input in inputs.items {
            let outcome = InputReading.read(
                input, options: conversion, standardInput: stdin, report: { diagnostics.append($0) },
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
            if !outcome.succeeded { run.failed = true }
            skipped += outcome.skipped
        }
        run.flush(stdout: &stdout, stderr: &messages, isLast: true)
        progress.erase()
        stderr = messages.base
        run.finish(stdout: &stdout)
        if let note = InputReading.skippedNote(skipped) { stderr.write(note + "\n") }
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
    /// What `--folded` counts it as: 1, or a call-stack tree path's samples (`Row.n`).
    var weight = 1
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
    /// Where UUIDs the store lacks are fetched from, shared by every build of the run.
    var symbolServers: SymbolServerFetcher?
    var reportedMissing: Set<String> = []
    private var folded: [String: Int] = [:]
    private var foldedOrder: [String] = []
    var stackCount = 0
    /// Per build folder, the answers of the stacks symbolicated so far, so a later batch takes them
    /// as they are (as `top` does, `TopRanking.seenStacks`): at four times the rows of the same
    /// stacks each batch looked them up again, and the peak grew 1.10x (docs/history.md).
    private var seenStacks: [String: [StackKey: [SymbolicatedFrame]]] = [:]
    /// For text output, the same as the lines each stack's frames wrote.
    var seenStackLines: [String: [StackKey: [UInt8]]] = [:]
    var seenStackCount = 0
    /// Each image name's text column, made once.
    var imageColumns: [String: [UInt8]] = [:]
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
            made?.symbolServers = symbolServers
            // Text and folded output print simplified names only, as `--object` does: full names
            // (swift_demangle for every function) were a tenth of a cold run over rows.
            made?.makesFullNames = format == .json || format == .atos
            if !store.hasBuildFolder(buildName), made?.problems.isEmpty ?? true, symbolServers == nil {
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
    /// (Not private: the text output, `StackRun+Text.swift`, writes them.)
    var pending: [PendingStack] = []
    /// Each image UUID once: a batch's frames share one string per image.
    private var uuids = UUIDStrings()
    var pendingFrames = 0
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

    var writesText: Bool { format == .text || format == .atos }

    var isFull: Bool { pending.count >= Self.batchRows || pendingFrames >= Self.batchFrames }

    /// Keeps a row for the next batch.
    mutating func add(_ row: Row, stack: [StackFrame]) {
        pending.append(
            PendingStack(
                name: row.name, rowKey: row.row_key, build: row.app_build, periodStart: row.period_start, kind: row.kind.rawValue,
                stack: uuids.sharing(stack), cause: CrashCause(row: row), weight: row.n))
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
        // By position: taking each row out of `pending` copied it (retaining its five strings).
        for position in pending.indices {
            let rowBuild = pending[position].build
            let (symbolizer, folder) = ofBuild[rowBuild] ?? symbolizer(for: build ?? String(rowBuild), stderr: &stderr)
            ofBuild[rowBuild] = (symbolizer, folder)
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
        // Each build's debug files start reading what a large batch reads first (unit maps, symbol
        // tables) on the other core, while this one finds the batch's distinct stacks.
        for folder in folderOrder {
            let positions = rowsOfFolder[folder]!
            let (imageUUIDs, frameCount) = StackExpander.imageUUIDs(positions.map { pending[$0].stack })
            symbolizerOfRow[positions[0]]!.prepareForBatch(uuids: imageUUIDs, frameCount: frameCount)
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
            folded[line, default: 0] += row.weight
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
