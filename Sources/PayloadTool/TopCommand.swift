import Foundation
import PayloadDecode
import StackSignature
import StackSymbolize

/// `payload-tool top`: the heaviest hang and crash signatures per build (SPEC section 7).
enum TopCommand {
    static let usage = "Usage: payload-tool top [--build B] [--count N] [--dsyms ROOT] [--app-image NAME]... [--symbols DIR]... [--json | --folded] (FILE... | --db URL)"

    static let help = """
        OVERVIEW: List the heaviest hang and crash signatures per build.

        Reads row files (as 'payload-tool rows' writes them) and payload dumps, symbolicates each
        stack against its build's debug files, and groups the hangs and crashes of a build by
        signature: the simplified names of the top five app frames, innermost first. A hang
        weighs its duration, a crash weighs --crash-weight. Builds are listed newest first.

        USAGE: payload-tool top [options] FILE...
               payload-tool top [options] --db URL [FILE...]

        ARGUMENTS:
          FILE                    A row file or a payload dump; '-' reads standard input.

        OPTIONS:
          --build B               Only build B (its integer number, e.g. 131).
          --count N               How many signatures per build (default: 3).
          --dsyms ROOT            Folder of per-build debug-file folders (default: $YUI_DSYMS,
                                  then ~/.yui-dsyms).
          --app-image NAME        Count frames of image NAME as app frames even where its name is
                                  one of Apple's system images (repeatable). Every other image
                                  is the app's, with or without a debug file.
          --symbols DIR           System images' symbol files, searched by UUID for images without a
                                  debug file (repeatable; default: $YUI_SYSTEM_SYMBOLS, else
                                  <ROOT>/system when it exists).
          --crash-weight SECONDS  What one crash weighs (default: 1).
          --user UUID             The user of payload dumps, so their row keys match 'rows --user';
                                  with --db, only that user's rows.
          --db URL                Also rank the diagnostic rows stored in PostgreSQL (libpq URL).
          --json                  Write JSON: per signature its build, kind, weight, count, max,
                                  frames with file and line, and row keys.
          --folded                Write folded stacks weighted in milliseconds, for flame-graph
                                  tools (all hangs and crashes, not only the top N).
          -h, --help              Show this help.

        """

    static let options: [OptionSpec] = [
        .value("--build"), .value("--count"), .value("--dsyms"), .value("--app-image", repeatable: true), .value("--symbols", repeatable: true),
        .value("--crash-weight"), .value("--user"), .value("--db"), .flag("--json"), .flag("--folded"),
    ]

    static func run(
        arguments: [String], stdin: FileHandle, stdout: inout some TextOutputStream,
        stderr: inout some TextOutputStream
    ) -> Int32 {
        let options: TopOptions
        do {
            let parsed = try CommandArguments(arguments, options: Self.options)
            if parsed.wantsHelp {
                stdout.write(help)
                return PayloadTool.exitSuccess
            }
            options = try TopOptions(parsed)
        } catch {
            return reportUsage(error, command: "top", usage: usage, to: &stderr)
        }
        return TopRun(options: options).run(stdin: stdin, stdout: &stdout, stderr: &stderr)
    }
}
