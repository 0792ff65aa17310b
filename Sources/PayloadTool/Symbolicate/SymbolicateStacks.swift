import Foundation
import PayloadDecode
import StackSymbolize

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
        /// A crash's Mach exception type and signal, when its payload dump has them (`CrashCause`).
        var exception_type: String?
        var frames: [JSONFrame]
        var kind: String
        var name: String
        var row_key: String
        var signal: String?
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
        for input in inputs {
            var rows: [Row] = []
            var causes: [String: CrashCause] = [:]
            let ok = RowSource.readRows(
                path: input, options: ConversionOptions(), standardInput: stdin,
                report: { diagnostics.append($0) }, emit: { rows.append($0) }, crashCause: { causes[$0.row_key] = $1 })
            for diagnostic in diagnostics { messages.write("\(diagnostic.severity.rawValue): \(diagnostic)\n") }
            diagnostics.removeAll()
            if !ok { run.failed = true }
            for row in rows {
                guard let stack = row.stack, !stack.isEmpty else { continue }
                run.symbolicate(row, stack: stack, cause: causes[row.row_key], stdout: &stdout, stderr: &messages)
            }
        }
        progress.erase()
        stderr = messages.base
        run.finish(stdout: &stdout)
        if verbose { for note in run.readingNotes() { stderr.write("note: \(note)\n") } }
        return run.failed ? PayloadTool.exitFailure : PayloadTool.exitSuccess
    }
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

    mutating func symbolicate(
        _ row: Row, stack: [StackFrame], cause: CrashCause? = nil, stdout: inout some TextOutputStream, stderr: inout some TextOutputStream
    ) {
        let buildName = build ?? String(row.app_build)
        let (symbolizer, folder) = symbolizer(for: buildName, stderr: &stderr)
        let requests = SymbolicateStacks.requests(stack)
        let answers =
            symbolizer?.symbolicate(requests)
            ?? requests.map {
                SymbolicatedFrame(request: $0, status: .missingDebugFile, lookupAddress: nil, debugFile: nil, frames: [])
            }
        for warning in symbolizer?.takeWarnings() ?? [] { stderr.write("warning: \(warning)\n") }
        for answer in answers where answer.status == .missingDebugFile {
            let uuid = answer.request.uuid ?? "(none)"
            if symbolizer != nil, reportedMissing.insert(uuid).inserted {
                var message = "warning: no debug file for UUID \(uuid) (image \(answer.request.image ?? "?")) in \(folder ?? buildName)"
                if let failure = symbolizer?.openFailure(uuid: uuid) { message += ": \(failure)" }
                stderr.write(message + "\n")
            }
        }
        write(row, answers: answers, folder: folder, cause: cause, stdout: &stdout)
        stackCount += 1
    }

    private mutating func write(
        _ row: Row, answers: [SymbolicatedFrame], folder: String?, cause: CrashCause?, stdout: inout some TextOutputStream
    ) {
        switch format {
        case .text, .atos:
            if stackCount > 0 { stdout.write("\n") }
            // A crash names what ended it where the payload says (`crash ... : EXC_BAD_ACCESS (SIGSEGV)`).
            let what = cause.map { ": " + $0.description } ?? ""
            stdout.write("\(row.name) \(row.row_key) build \(row.app_build) (\(row.period_start))\(what)\n")
            for (index, answer) in answers.enumerated() {
                let image = answer.request.image ?? "???"
                // The address column is the frame's offset into its image as the row gives it, on
                // every frame: named or not, return address or not (docs/command-line.md).
                stdout.write(SymbolicateOutput.textLines(index: index, image: image, address: answer.request.offset, frame: answer))
            }
        case .json:
            // One stack at a time: the output never holds every stack of a large input.
            stdout.write(stackCount == 0 ? "[" : ",")
            stdout.write(
                SymbolicateOutput.encodeCompact(
                    SymbolicateStacks.JSONStack(
                        app_build: row.app_build, build_folder: folder, exception_type: cause?.exceptionTypeName,
                        frames: answers.enumerated().map { index, answer in
                            SymbolicateStacks.JSONFrame(
                                debug_file: answer.debugFile, image: answer.request.image, index: index,
                                lookup_address: answer.lookupAddress.map(SymbolicateOutput.hex), offset: answer.request.offset,
                                status: SymbolicateOutput.jsonStatus(answer.status), symbols: answer.frames.map(SymbolicateOutput.JSONSource.init),
                                uuid: answer.request.uuid)
                        }, kind: row.kind.rawValue, name: row.name, row_key: row.row_key, signal: cause?.signalName)))
        case .folded:
            let line = answers.reversed().flatMap { answer in
                SymbolicateOutput.foldedNames(image: answer.request.image ?? "???", frame: answer)
            }.joined(separator: ";")
            if folded[line] == nil { foldedOrder.append(line) }
            folded[line, default: 0] += 1
        }
    }

    /// Closes the JSON array, or writes the folded stacks with their counts.
    /// How each build's debug files were read (`--verbose`), builds in name order.
    func readingNotes() -> [String] {
        symbolizers.keys.sorted().flatMap { symbolizers[$0]??.readingNotes() ?? [] }
    }

    func finish(stdout: inout some TextOutputStream) {
        switch format {
        case .json: stdout.write(stackCount == 0 ? "[]\n" : "]\n")
        case .folded: for line in foldedOrder { stdout.write("\(line) \(folded[line]!)\n") }
        case .text, .atos: break
        }
    }
}
