import Foundation

/// The command line's logic. `payload-tool`'s `main.swift` only forwards to `run`, so tests drive
/// every command in-process with their own streams.
public enum PayloadTool {
    /// Exit statuses (docs/ARCHITECTURE.md): 0 success, 1 some input failed, 64 usage error.
    public static let exitSuccess: Int32 = 0
    public static let exitFailure: Int32 = 1
    public static let exitUsage: Int32 = 64

    /// Runs one command line. `arguments` excludes the program name.
    public static func run(
        arguments: [String], stdin: FileHandle, stdout: inout some TextOutputStream,
        stderr: inout some TextOutputStream
    ) -> Int32 {
        guard let command = arguments.first else {
            stderr.write("Error: Missing command.\n\(usage)\nSee 'payload-tool --help' for more information.\n")
            return exitUsage
        }
        let rest = Array(arguments.dropFirst())
        switch command {
        case "-h", "--help", "help":
            stdout.write(help)
            return exitSuccess
        case "rows":
            return CommandRunner.run(RowsOptions.self, arguments: rest, stdin: stdin, stdout: &stdout, stderr: &stderr)
        case "symbolicate":
            return CommandRunner.run(SymbolicateOptions.self, arguments: rest, stdin: stdin, stdout: &stdout, stderr: &stderr)
        case "top":
            return CommandRunner.run(TopOptions.self, arguments: rest, stdin: stdin, stdout: &stdout, stderr: &stderr)
        case "dsyms" where rest.first == "import":
            return CommandRunner.run(
                DsymsImport.Options.self, arguments: Array(rest.dropFirst()), stdin: stdin, stdout: &stdout, stderr: &stderr)
        case "dsyms":
            return CommandRunner.run(DsymsCommand.Options.self, arguments: rest, stdin: stdin, stdout: &stdout, stderr: &stderr)
        case "load":
            return CommandRunner.run(LoadCommand.Options.self, arguments: rest, stdin: stdin, stdout: &stdout, stderr: &stderr)
        case "report":
            return CommandRunner.run(ReportOptions.self, arguments: rest, stdin: stdin, stdout: &stdout, stderr: &stderr)
        default:
            stderr.write("Error: Unknown command '\(command)'.\n\(usage)\nSee 'payload-tool --help' for more information.\n")
            return exitUsage
        }
    }

    static let usage = "Usage: payload-tool <rows|symbolicate|top|dsyms|load|report> [options] [FILE...]"

    static let help = """
        OVERVIEW: Turn MetricKit payload dumps into yui_perf rows, symbolicate their stacks and rank the worst ones.

        USAGE: payload-tool <command> [options]

        COMMANDS:
          rows          Convert payload dumps to yui_perf rows.
          symbolicate   Symbolicate the stacks of payload dumps or row files, or addresses (atos style).
          top           List the heaviest hang and crash signatures per build.
          dsyms         List the debug files and UUIDs of a build.
          load          Insert rows into PostgreSQL.
          report        The daily speed report, build against build.

        See 'payload-tool <command> --help' for the options of each command.

        """
}
