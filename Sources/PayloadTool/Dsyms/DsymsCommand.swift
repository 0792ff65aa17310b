import Foundation
import PayloadDecode
import StackSymbolize

/// `payload-tool dsyms BUILD [FILE...]`: the debug files and UUIDs found for a build and, given
/// inputs, which of their frames' UUIDs have none.
enum DsymsCommand {
    static let json = CommandFlag("--json", help: ["Machine output (stable, sorted keys, snake_case)."])
    static let build = PositionalArgument(
        placeholder: "BUILD", help: ["The build folder's name under the root, e.g. 130."])
    static let file = PositionalArgument(
        placeholder: "FILE",
        help: ["Payload dumps, row files, crash reports, zips or folders whose frames", "to check; '-' reads standard input."])

    static let description = CommandDescription(
        name: "dsyms",
        abstract: "List the debug files and UUIDs of a build.",
        overview: """
            OVERVIEW: List the debug files and UUIDs of a build, and the UUIDs of inputs that have none.

            The store's rules (docs/symbolication.md, "The store"): ROOT/BUILD/ folders named by build
            number (130.1 is 130; 'system' is the system symbols, never a build); one entry per UUID, a
            file with DWARF before one without; a frame's UUID is looked up in its build's folder, then in
            every other build, then in --symbols; an image the store knows is the app's.
            """,
        usage: [
            [
                .optional(DebugFileArguments.dsyms.declaration), .optional(DebugFileArguments.symbols.declaration),
                .optional(json.declaration),
            ] + SymbolServerArguments.usage + [.positional(build), .positional(file, optional: true, repeating: true)],
            [.word("import")] + DsymsImport.usage,
            [.word("export")] + DsymsExport.usage,
        ],
        arguments: [build, file],
        options: [DebugFileArguments.dsyms.declaration, DebugFileArguments.symbols.declaration, json.declaration]
            + SymbolServerArguments.all,
        exitStatuses: [
            ExitStatus(0, "The build's files were listed and every input was read (UUIDs without a debug file are not failures)."),
            ExitStatus(1, "The build's folder, a debug file or an input could not be read; the rest are still listed."), .usage,
        ])

    struct Options: CommandOptions {
        static var description: CommandDescription { DsymsCommand.description }

        var dsymsRoot: String?
        var symbols: [String]
        var json: Bool
        var build: String
        /// Payload dumps or row files whose frames to check.
        var inputs: [String]
        /// `--symbol-server` and its bounds: the inputs' UUIDs the store lacks are fetched.
        var symbolServers: SymbolServerSettings?

        init(_ parsed: CommandArguments) throws(UsageError) {
            guard let build = parsed.positionals.first else { throw UsageError(message: "Missing build.") }
            self.build = build
            inputs = Array(parsed.positionals.dropFirst())
            dsymsRoot = try parsed.value(DebugFileArguments.dsyms)
            symbols = try parsed.values(DebugFileArguments.symbols)
            json = parsed.given(DsymsCommand.json)
            symbolServers = try SymbolServerArguments.settings(parsed)
        }

        func run(stdin: FileHandle, stdout: inout some TextOutputStream, stderr: inout some TextOutputStream) -> Int32 {
            DsymsCommand.list(self, stdin: stdin, stdout: &stdout, stderr: &stderr)
        }
    }

    struct JSONFile: Codable {
        var arch: String
        /// What libdw read because the bytes reader declined, and why (`DecoderFallbacks.summary`);
        /// absent when the bytes reader read everything asked.
        var decoder_fallbacks: String?
        var kind: String
        var path: String
        /// Why `symbolicate` cannot use the file; absent when it can.
        var problem: String?
        var uuids: [String]
    }

    struct JSONMissing: Codable {
        var frames: Int
        var images: [String]
        var uuid: String
    }

    struct JSONReport: Codable {
        var build: String
        var build_folder: String
        var debug_files: [JSONFile]
        /// Files of other builds in the store that answered the inputs' frames by UUID.
        var debug_files_of_other_builds: [JSONFile]
        var frames_checked: Int
        var frames_covered: Int
        var missing: [JSONMissing]
        var problems: [String]
        /// System images of the inputs' frames whose symbol files the symbol folders hold.
        var system_images_found: [JSONMissing]
        var system_symbol_files: Int
    }

    /// The build's debug files and, given inputs, which of their frames' UUIDs have none.
    static func list(
        _ options: Options, stdin: FileHandle, stdout: inout some TextOutputStream, stderr: inout some TextOutputStream
    ) -> Int32 {
        let folder: String
        let symbolizer: BuildSymbolizer
        do {
            folder = try BuildSymbolizer.buildFolder(root: options.dsymsRoot, build: options.build)
            let store = DebugFileStore(root: options.dsymsRoot)
            // With a symbol server, a build with no folder yet gets one from what is fetched.
            guard store.hasBuildFolder(options.build) || options.symbolServers != nil else {
                throw SymbolizeError.fileSystem(path: folder, "no such build folder")
            }
            symbolizer = try BuildSymbolizer(
                build: options.build, store: store, indexFolder: nil,
                systemSymbols: BuildSymbolizer.systemSymbolFolders(given: options.symbols, root: options.dsymsRoot))
            symbolizer.symbolServers = options.symbolServers.map(SymbolServerFetcher.init)
        } catch {
            stderr.write("error: \(error)\n")
            return PayloadTool.exitFailure
        }
        var failed = false
        // A file that looks like a debug file but cannot be read is an error (exit 1); the others still count.
        for problem in symbolizer.problems {
            stderr.write("error: \(problem)\n")
            failed = true
        }
        let (unusable, anyUnusable) = unusableFiles(symbolizer, stderr: &stderr)
        if anyUnusable { failed = true }
        var coverage = FrameCoverage(symbolizer: symbolizer, unusable: unusable)
        let list = InputList.expand(options.inputs)
        for error in list.errors { stderr.write("error: \(error)\n") }
        if !list.errors.isEmpty { failed = true }
        var skipped = 0
        // The frames are counted once every input is read: their missing files are fetched in one round.
        var stacks: [[StackFrame]] = []
        for item in list.items {
            var diagnostics: [InputDiagnostic] = []
            let outcome = InputReading.read(
                item, options: ConversionOptions(), standardInput: stdin, report: { diagnostics.append($0) },
                emit: { row in
                    if let stack = row.stack { stacks.append(stack) }
                })
            for diagnostic in diagnostics { stderr.write("\(diagnostic.severity.rawValue): \(diagnostic)\n") }
            if !outcome.succeeded { failed = true }
            skipped += outcome.skipped
        }
        symbolizer.fetchMissingFiles(stacks.map(SymbolicateStacks.requests))
        for stack in stacks {
            for frame in stack { coverage.count(frame) }
        }
        for warning in symbolizer.takeWarnings() { stderr.write("warning: \(warning)\n") }
        if let note = InputReading.skippedNote(skipped) { stderr.write(note + "\n") }
        if options.json {
            stdout.write(jsonReport(options, folder: folder, symbolizer: symbolizer, coverage: coverage))
        } else {
            stdout.write(textReport(options, folder: folder, symbolizer: symbolizer, coverage: coverage))
        }
        return failed ? PayloadTool.exitFailure : PayloadTool.exitSuccess
    }

    /// Every file opened as `symbolicate` would open it: one it would refuse is not usable (named on
    /// stderr); its UUIDs map to why.
    private static func unusableFiles(
        _ symbolizer: BuildSymbolizer, stderr: inout some TextOutputStream
    ) -> (byUUID: [String: SymbolizeError], any: Bool) {
        var unusable: [String: SymbolizeError] = [:]
        var any = false
        // (System symbol folders can hold thousands of files: those are opened when a frame needs them.)
        for (index, file) in symbolizer.debugFiles.enumerated() where symbolizer.isOwnFile(index) {
            guard let problem = symbolizer.problem(withFileAt: index) else { continue }
            stderr.write("error: \(problem)\n")
            any = true
            for uuid in file.uuids { unusable[uuid] = problem }
        }
        return (unusable, any)
    }

    /// What libdw read of a file `unusableFiles` opened because the bytes reader declined, or nil.
    private static func fallbacks(_ symbolizer: BuildSymbolizer, _ index: Int) -> String? {
        guard let fallbacks = symbolizer.decoderFallbacks(ofFileAt: index), !fallbacks.isEmpty else { return nil }
        return fallbacks.summary
    }

    private static func jsonReport(
        _ options: Options, folder: String, symbolizer: BuildSymbolizer, coverage: FrameCoverage
    ) -> String {
        let unusable = coverage.unusable
        let report = JSONReport(
            build: options.build, build_folder: folder,
            debug_files: symbolizer.debugFiles.enumerated().filter { symbolizer.isOwnFile($0.offset) }.map {
                JSONFile(
                    arch: $1.arch, decoder_fallbacks: fallbacks(symbolizer, $0), kind: $1.kind.rawValue, path: $1.path,
                    problem: unusable[$1.uuids[0]]?.message, uuids: $1.uuids)
            },
            debug_files_of_other_builds: symbolizer.filesFromOtherBuilds.sorted().map {
                let file = symbolizer.debugFiles[$0]
                return JSONFile(
                    arch: file.arch, decoder_fallbacks: nil, kind: file.kind.rawValue, path: file.path, problem: nil, uuids: file.uuids)
            },
            frames_checked: coverage.checked, frames_covered: coverage.covered,
            missing: coverage.missingOrder.map {
                JSONMissing(frames: coverage.missing[$0]!.frames, images: coverage.missing[$0]!.images.sorted(), uuid: $0)
            },
            problems: symbolizer.problems.map(\.description),
            system_images_found: coverage.systemFound.keys.sorted().map {
                JSONMissing(frames: coverage.systemFound[$0]!.frames, images: coverage.systemFound[$0]!.images.sorted(), uuid: $0)
            },
            system_symbol_files: symbolizer.systemSymbolFiles.count)
        return SymbolicateOutput.encode(report)
    }

    private static func textReport(
        _ options: Options, folder: String, symbolizer: BuildSymbolizer, coverage: FrameCoverage
    ) -> String {
        var text = "Debug files for build \(options.build) (\(folder)):\n"
        for (index, file) in symbolizer.debugFiles.enumerated() where symbolizer.isOwnFile(index) {
            text += "  \(file.uuids.joined(separator: " ")) \(file.arch) \(file.kind.rawValue) \(file.path)"
            if let problem = coverage.unusable[file.uuids[0]] { text += " [not usable: \(problem.message)]" }
            if let fallbacks = fallbacks(symbolizer, index) { text += " [\(fallbacks)]" }
            text += "\n"
        }
        if !symbolizer.systemSymbolFiles.isEmpty {
            text += "System symbol files: \(symbolizer.systemSymbolFiles.count)\n"
        }
        guard !options.inputs.isEmpty else { return text }
        if !symbolizer.filesFromOtherBuilds.isEmpty {
            text += "Found by UUID in other builds:\n"
            for index in symbolizer.filesFromOtherBuilds.sorted() {
                let file = symbolizer.debugFiles[index]
                text += "  \(file.uuids.joined(separator: " ")) \(file.arch) \(file.kind.rawValue) \(file.path)\n"
            }
        }
        if !coverage.systemFound.isEmpty {
            text += "System images named from the symbol files:\n"
            for uuid in coverage.systemFound.keys.sorted() {
                let entry = coverage.systemFound[uuid]!
                text += "  \(uuid) \(entry.images.sorted().joined(separator: ",")) (\(entry.frames) frames)\n"
            }
        }
        text += "Frames checked: \(coverage.checked), with a usable debug file: \(coverage.covered)\n"
        if coverage.missing.isEmpty {
            text += "Every UUID has a usable debug file.\n"
        } else {
            text += "UUIDs without a usable debug file:\n"
            for uuid in coverage.missingOrder {
                let entry = coverage.missing[uuid]!
                text += "  \(uuid) \(entry.images.sorted().joined(separator: ",")) (\(entry.frames) frames)"
                if let problem = coverage.unusable[uuid] { text += " [its debug file is not usable: \(problem.message)]" }
                text += "\n"
            }
        }
        return text
    }
}

/// Which frames of the inputs have a usable debug file in the build's folder, which are system
/// images named from the symbol folders, and which UUIDs have nothing.
struct FrameCoverage {
    let symbolizer: BuildSymbolizer
    /// UUID → why its debug file cannot be used.
    let unusable: [String: SymbolizeError]
    private let systemUUIDs: Set<String>
    /// UUID → (frames, images) for frames without a usable debug file, in the order first seen.
    private(set) var missing: [String: (frames: Int, images: Set<String>)] = [:]
    private(set) var missingOrder: [String] = []
    private(set) var checked = 0
    private(set) var covered = 0
    /// System images named from the symbol folders: UUID → (frames, image names).
    private(set) var systemFound: [String: (frames: Int, images: Set<String>)] = [:]

    init(symbolizer: BuildSymbolizer, unusable: [String: SymbolizeError]) {
        self.symbolizer = symbolizer
        self.unusable = unusable
        systemUUIDs = Set(symbolizer.systemSymbolFiles.flatMap { symbolizer.debugFiles[$0].uuids })
    }

    mutating func count(_ frame: StackFrame) {
        checked += 1
        let uuid = frame.uuid ?? "(none)"
        if let known = frame.uuid, systemUUIDs.contains(known) {
            systemFound[known, default: (0, [])].frames += 1
            if let image = frame.image { systemFound[known]!.images.insert(image) }
            return
        }
        if let known = frame.uuid, symbolizer.hasDebugFile(uuid: known), unusable[UUIDText.normalized(known) ?? known] == nil {
            covered += 1
            return
        }
        if missing[uuid] == nil { missingOrder.append(uuid) }
        missing[uuid, default: (0, [])].frames += 1
        if let image = frame.image { missing[uuid]!.images.insert(image) }
    }
}
