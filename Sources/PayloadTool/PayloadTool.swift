import BuildInfo
import Foundation

/// The command line's logic. `payload-tool`'s `main.swift` only forwards to `run`, so tests drive
/// every command in-process with their own streams.
public enum PayloadTool {
    /// Exit statuses (docs/ARCHITECTURE.md): 0 success, 1 some input failed, 64 usage error.
    public static let exitSuccess: Int32 = 0
    public static let exitFailure: Int32 = 1
    public static let exitUsage: Int32 = 64

    /// The version of the JSON that `--json` writes (symbolicate, top, dsyms, report): raised with
    /// every change a reader of the old one could trip on (docs/command-line.md, "JSON format").
    public static let jsonFormatVersion = 3

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
        case "-h", "--help":
            stdout.write(help)
            return exitSuccess
        case "--version", "version":
            stdout.write(versionText)
            return exitSuccess
        case "help":
            return CommandRunner.run(HelpCommand.Options.self, arguments: rest, stdin: stdin, stdout: &stdout, stderr: &stderr)
        case "rows":
            return CommandRunner.run(RowsOptions.self, arguments: rest, stdin: stdin, stdout: &stdout, stderr: &stderr)
        case "symbolicate":
            return CommandRunner.run(SymbolicateOptions.self, arguments: rest, stdin: stdin, stdout: &stdout, stderr: &stderr)
        case "top":
            return CommandRunner.run(TopOptions.self, arguments: rest, stdin: stdin, stdout: &stdout, stderr: &stderr)
        case "dsyms" where rest.first == "import":
            return CommandRunner.run(
                DsymsImport.Options.self, arguments: Array(rest.dropFirst()), stdin: stdin, stdout: &stdout, stderr: &stderr)
        case "dsyms" where rest.first == "export":
            return CommandRunner.run(
                DsymsExport.Options.self, arguments: Array(rest.dropFirst()), stdin: stdin, stdout: &stdout, stderr: &stderr)
        case "dsyms":
            return CommandRunner.run(DsymsCommand.Options.self, arguments: rest, stdin: stdin, stdout: &stdout, stderr: &stderr)
        case "load":
            return CommandRunner.run(LoadCommand.Options.self, arguments: rest, stdin: stdin, stdout: &stdout, stderr: &stderr)
        case "retention":
            return CommandRunner.run(RetentionCommand.Options.self, arguments: rest, stdin: stdin, stdout: &stdout, stderr: &stderr)
        case "report":
            return CommandRunner.run(ReportOptions.self, arguments: rest, stdin: stdin, stdout: &stdout, stderr: &stderr)
        case "completions":
            return CommandRunner.run(ShellCompletions.Options.self, arguments: rest, stdin: stdin, stdout: &stdout, stderr: &stderr)
        case "man":
            return CommandRunner.run(ManPage.Options.self, arguments: rest, stdin: stdin, stdout: &stdout, stderr: &stderr)
        default:
            stderr.write("Error: Unknown command '\(command)'.\n\(usage)\nSee 'payload-tool --help' for more information.\n")
            return exitUsage
        }
    }

    /// Every command, in the order help, the man page, the completions and docs/command-line.md
    /// list them. `run` dispatches on the same names (a test runs `NAME --help` for each).
    static let commands: [CommandDescription] = [
        RowsOptions.description, SymbolicateOptions.description, TopOptions.description, DsymsCommand.description,
        DsymsImport.description, DsymsExport.description, LoadCommand.description, RetentionCommand.description, ReportOptions.description,
        HelpCommand.description,
        ShellCompletions.description, ManPage.description,
    ]

    /// The command `help NAME...` names (`help dsyms import`).
    static func command(named words: [String]) -> CommandDescription? {
        commands.first { $0.name == words.joined(separator: " ") }
    }

    static let usage = "Usage: payload-tool COMMAND [OPTIONS] [ARGUMENTS]\n       payload-tool --version"

    static let overview = "Turn MetricKit payload dumps into yui_perf rows, symbolicate their stacks and rank the worst ones."

    /// `--version`: the release, the checkout it was built from when it was, and the JSON format.
    static var versionText: String {
        var line = "payload-tool \(BuildInfo.release)"
        if let described = BuildInfo.gitDescription { line += " (git \(described))" }
        return line + "\nJSON format \(jsonFormatVersion)\n"
    }

    /// `--version`, which only `payload-tool` itself takes.
    static let versionOption = CommandFlag(
        "--version", help: ["Print the version (and the git checkout it was built from) and the", "JSON format's version."]
    ).declaration

    /// The statuses every command shares; each command's help lists its own.
    static let exitStatuses = [
        ExitStatus(exitSuccess, "Success."), ExitStatus(exitFailure, "An input failed; the others were still processed and printed."),
        ExitStatus(exitUsage, "Usage error: an unknown command or option, a refused value."),
    ]

    static var help: String {
        var text = "OVERVIEW: \(overview)\n\nUSAGE: payload-tool COMMAND [OPTIONS] [ARGUMENTS]\n       payload-tool --version\n\nCOMMANDS:\n"
        for command in commands { text += CommandDescription.entry(command.name, [command.abstract]) }
        text += "\nOPTIONS:\n"
        for option in [versionOption, CommandDescription.helpOption] { text += CommandDescription.entry(option.helpLabel, option.help) }
        text += "\nSee 'payload-tool help COMMAND' or 'payload-tool COMMAND --help' for the options of each command.\n"
        text += "\nEXIT STATUS:\n"
        for status in exitStatuses { text += CommandDescription.entry(String(status.code), CommandDescription.wrapped(status.meaning)) }
        return text
    }
}
