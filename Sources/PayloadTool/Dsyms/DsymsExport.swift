import Foundation
import StackSymbolize

/// `payload-tool dsyms export --layout debuginfod [--dsyms ROOT] [--build B] DIR`: the store written
/// as `DIR/buildid/<uuid>/debuginfo` for a static symbol server (`StoreExport`).
enum DsymsExport {
    enum Layout: Sendable { case debuginfod }

    static let layout = CommandOption(
        "--layout", "LAYOUT", parser: .choice(["debuginfod": Layout.debuginfod], .invalidValue(detail: " (debuginfod).")),
        help: ["debuginfod: DIR/buildid/UUID/debuginfo, UUID as 32 lower-case hex", "digits (the only layout; required)."])
    static let build = CommandOption(
        "--build", "BUILD", parser: .storeBuildNumber, help: ["Only the files of this build's folder (default: every build)."])
    static let folder = PositionalArgument(placeholder: "DIR", help: ["The folder to write (made when missing)."])

    static let usage: [UsageItem] = [
        .optional(DebugFileArguments.dsyms.declaration), .required(layout.declaration), .optional(build.declaration), .positional(folder),
    ]

    static let description = CommandDescription(
        name: "dsyms export",
        abstract: "Write the store as a symbol server's files (debuginfod's layout).",
        overview: """
            OVERVIEW: Write the store's debug files where a static server or a bucket can serve them.

            One file per UUID, DIR/buildid/UUID/debuginfo (UUID: 32 lower-case hex digits), holding the
            file the store answers that UUID with (one with DWARF first); a fat file's slice is written
            alone. Each file is written whole or not at all; one already holding the same bytes is left as
            it is. Serve DIR (nginx, aws s3 sync, a CDN) and give its URL to --symbol-server.
            """,
        usage: [usage], arguments: [folder],
        options: [DebugFileArguments.dsyms.declaration, layout.declaration, build.declaration],
        epilogue: "Prints one line per file written ('exported UUID PATH'), then a summary.",
        exitStatuses: [ExitStatus(0, "Every file was written or already there."), ExitStatus(1, "A file could not be read or written."), .usage])

    struct Options: CommandOptions {
        static var description: CommandDescription { DsymsExport.description }

        var dsymsRoot: String?
        var build: String?
        var folder: String

        init(_ parsed: CommandArguments) throws(UsageError) {
            guard parsed.positionals.count == 1, let folder = parsed.positionals.first else {
                throw UsageError(message: "Give one folder to export to.")
            }
            guard try parsed.value(DsymsExport.layout) != nil else { throw UsageError(message: "Missing '--layout debuginfod'.") }
            self.folder = folder
            build = try parsed.value(DsymsExport.build)
            dsymsRoot = try parsed.value(DebugFileArguments.dsyms)
        }

        func run(stdin: FileHandle, stdout: inout some TextOutputStream, stderr: inout some TextOutputStream) -> Int32 {
            let store = DebugFileStore(root: dsymsRoot)
            if let build, !store.hasBuildFolder(build) {
                stderr.write("error: \((store.root as NSString).appendingPathComponent(build)): no such build folder\n")
                return PayloadTool.exitFailure
            }
            let outcome = StoreExport.debuginfod(store: store, build: build, to: folder)
            for (uuid, path) in outcome.written { stdout.write("exported \(uuid) \(path)\n") }
            for problem in outcome.problems { stderr.write("error: \(problem)\n") }
            stdout.write("\(outcome.written.count) exported, \(outcome.unchanged) unchanged\n")
            return outcome.problems.isEmpty ? PayloadTool.exitSuccess : PayloadTool.exitFailure
        }
    }
}
