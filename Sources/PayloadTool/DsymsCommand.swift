import Foundation
import PayloadDecode
import StackSymbolize

/// `payload-tool dsyms BUILD [FILE...]`: the debug files and UUIDs found for a build and, given
/// inputs, which of their frames' UUIDs have none.
enum DsymsCommand {
    static let usage = """
        Usage: payload-tool dsyms [--dsyms ROOT] [--symbols DIR]... [--json] BUILD [FILE...]
               payload-tool dsyms import [--dsyms ROOT] [--build B] PATH...
        """

    static let help = """
        OVERVIEW: List the debug files and UUIDs of a build, and the UUIDs of inputs that have none.

        USAGE:
        \(usage.split(separator: "\n").map { "  " + $0.replacingOccurrences(of: "Usage: ", with: "").trimmingCharacters(in: .whitespaces) }.joined(separator: "\n"))

        ARGUMENTS:
          <BUILD>                 The build folder's name under the root, e.g. 130.
          <FILE>                  Payload dumps or row files whose frames to check; '-' reads standard input.

        OPTIONS:
          --dsyms ROOT            Debug-file root (default: $YUI_DSYMS, else ~/.yui-dsyms).
          --symbols DIR           System images' symbol files, searched by UUID for images without a
                                  debug file (repeatable; default: $YUI_SYSTEM_SYMBOLS, else
                                  <ROOT>/system when it exists).
          --json                  Machine output (stable, sorted keys, snake_case).
          -h, --help              Show help information.

        """

    struct JSONFile: Codable {
        var arch: String
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
        var frames_checked: Int
        var frames_covered: Int
        var missing: [JSONMissing]
        var problems: [String]
        /// System images of the inputs' frames whose symbol files the symbol folders hold.
        var system_images_found: [JSONMissing]
        var system_symbol_files: Int
    }

    static func run(
        arguments: [String], stdin: FileHandle, stdout: inout some TextOutputStream,
        stderr: inout some TextOutputStream
    ) -> Int32 {
        if arguments.first == "import" {
            return DsymsImport.run(arguments: Array(arguments.dropFirst()), stdout: &stdout, stderr: &stderr)
        }
        let parsed: CommandArguments
        do {
            parsed = try CommandArguments(arguments, options: [.value("--dsyms"), .flag("--json"), .value("--symbols", repeatable: true)])
            if parsed.wantsHelp {
                stdout.write(help)
                return PayloadTool.exitSuccess
            }
            guard !parsed.positionals.isEmpty else { throw UsageError(message: "Missing build.") }
        } catch let error as UsageError {
            return reportUsage(error, command: "dsyms", usage: usage, to: &stderr)
        } catch {
            return PayloadTool.exitFailure
        }
        let build = parsed.positionals[0]
        let folder: String
        let symbolizer: BuildSymbolizer
        do {
            folder = try BuildSymbolizer.buildFolder(root: parsed.value("--dsyms"), build: build)
            symbolizer = try BuildSymbolizer(
                buildFolder: folder, indexFolder: nil,
                systemSymbols: BuildSymbolizer.systemSymbolFolders(given: parsed.all("--symbols"), root: parsed.value("--dsyms")))
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
        // Every file is opened as `symbolicate` would open it: one it would refuse is not usable.
        var unusable: [String: SymbolizeError] = [:]
        // (System symbol folders can hold thousands of files: those are opened when a frame needs them.)
        for (index, file) in symbolizer.debugFiles.enumerated() where !symbolizer.systemSymbolFiles.contains(index) {
            guard let problem = symbolizer.problem(withFileAt: index) else { continue }
            stderr.write("error: \(problem)\n")
            failed = true
            for uuid in file.uuids { unusable[uuid] = problem }
        }
        // UUID → (frames, images) for frames without a usable debug file.
        var missing: [String: (frames: Int, images: Set<String>)] = [:]
        var missingOrder: [String] = []
        var checked = 0
        var covered = 0
        // System images named from the symbol folders: UUID → (frames, image names).
        var systemFound: [String: (frames: Int, images: Set<String>)] = [:]
        let systemUUIDs = Set(symbolizer.systemSymbolFiles.flatMap { symbolizer.debugFiles[$0].uuids })
        for input in parsed.positionals.dropFirst() {
            var diagnostics: [InputDiagnostic] = []
            let ok = RowSource.readRows(
                path: input, options: ConversionOptions(), standardInput: stdin, report: { diagnostics.append($0) },
                emit: { row in
                    for frame in row.stack ?? [] {
                        checked += 1
                        let uuid = frame.uuid ?? "(none)"
                        if let known = frame.uuid, systemUUIDs.contains(known) {
                            systemFound[known, default: (0, [])].frames += 1
                            if let image = frame.image { systemFound[known]!.images.insert(image) }
                            continue
                        }
                        if let known = frame.uuid, symbolizer.hasDebugFile(uuid: known),
                            unusable[UUIDText.normalized(known) ?? known] == nil
                        {
                            covered += 1
                            continue
                        }
                        if missing[uuid] == nil { missingOrder.append(uuid) }
                        missing[uuid, default: (0, [])].frames += 1
                        if let image = frame.image { missing[uuid]!.images.insert(image) }
                    }
                })
            for diagnostic in diagnostics { stderr.write("\(diagnostic.severity.rawValue): \(diagnostic)\n") }
            if !ok { failed = true }
        }
        let hasInputs = parsed.positionals.count > 1
        if parsed.flag("--json") {
            let report = JSONReport(
                build: build, build_folder: folder,
                debug_files: symbolizer.debugFiles.enumerated().filter { !symbolizer.systemSymbolFiles.contains($0.offset) }.map {
                    JSONFile(arch: $1.arch, kind: $1.kind.rawValue, path: $1.path, problem: unusable[$1.uuids[0]]?.message, uuids: $1.uuids)
                },
                frames_checked: checked, frames_covered: covered,
                missing: missingOrder.map { JSONMissing(frames: missing[$0]!.frames, images: missing[$0]!.images.sorted(), uuid: $0) },
                problems: symbolizer.problems.map(\.description),
                system_images_found: systemFound.keys.sorted().map {
                    JSONMissing(frames: systemFound[$0]!.frames, images: systemFound[$0]!.images.sorted(), uuid: $0)
                },
                system_symbol_files: symbolizer.systemSymbolFiles.count)
            stdout.write(SymbolicateOutput.encode(report))
        } else {
            stdout.write("Debug files for build \(build) (\(folder)):\n")
            for (index, file) in symbolizer.debugFiles.enumerated() where !symbolizer.systemSymbolFiles.contains(index) {
                var line = "  \(file.uuids.joined(separator: " ")) \(file.arch) \(file.kind.rawValue) \(file.path)"
                if let problem = unusable[file.uuids[0]] { line += " [not usable: \(problem.message)]" }
                stdout.write(line + "\n")
            }
            if !symbolizer.systemSymbolFiles.isEmpty {
                stdout.write("System symbol files: \(symbolizer.systemSymbolFiles.count)\n")
            }
            if hasInputs {
                if !systemFound.isEmpty {
                    stdout.write("System images named from the symbol files:\n")
                    for uuid in systemFound.keys.sorted() {
                        let entry = systemFound[uuid]!
                        stdout.write("  \(uuid) \(entry.images.sorted().joined(separator: ",")) (\(entry.frames) frames)\n")
                    }
                }
                stdout.write("Frames checked: \(checked), with a usable debug file: \(covered)\n")
                if missing.isEmpty {
                    stdout.write("Every UUID has a usable debug file.\n")
                } else {
                    stdout.write("UUIDs without a usable debug file:\n")
                    for uuid in missingOrder {
                        let entry = missing[uuid]!
                        var line = "  \(uuid) \(entry.images.sorted().joined(separator: ",")) (\(entry.frames) frames)"
                        if let problem = unusable[uuid] { line += " [its debug file is not usable: \(problem.message)]" }
                        stdout.write(line + "\n")
                    }
                }
            }
        }
        return failed ? PayloadTool.exitFailure : PayloadTool.exitSuccess
    }
}
