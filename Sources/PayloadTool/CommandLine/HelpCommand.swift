import Foundation

/// `payload-tool help [COMMAND]`: the general help, or a command's, as `COMMAND --help` prints it;
/// `help --markdown` writes every command's reference for docs/command-line.md.
enum HelpCommand {
    static let markdown = CommandFlag(
        "--markdown", help: ["Write every command's usage, options and exit statuses as Markdown", "(docs/command-line.md's reference)."])
    static let command = PositionalArgument(
        placeholder: "COMMAND", help: ["The command (dsyms import: two words)."],
        completion: .commandNames)

    static let description = CommandDescription(
        name: "help",
        abstract: "Show the help of payload-tool or of one command.",
        overview: """
            OVERVIEW: Show the help of payload-tool or of one command.

            'payload-tool help COMMAND' prints what 'payload-tool COMMAND --help' prints.
            """,
        usage: [[.optional(markdown.declaration), .positional(command, optional: true, repeating: true)]],
        arguments: [command], options: [markdown.declaration],
        exitStatuses: [ExitStatus(0, "The help was printed."), ExitStatus(64, "Usage error: no such command, or an unknown option.")])

    struct Options: CommandOptions {
        static var description: CommandDescription { HelpCommand.description }

        var words: [String]
        var markdown: Bool

        init(_ parsed: CommandArguments) throws(UsageError) {
            words = parsed.positionals
            markdown = parsed.given(HelpCommand.markdown)
            if !words.isEmpty, PayloadTool.command(named: words) == nil {
                throw UsageError(message: "Unknown command '\(words.joined(separator: " "))'.")
            }
            if markdown, !words.isEmpty { throw UsageError(message: "Option '--markdown' writes every command; give no command.") }
        }

        func run(stdin: FileHandle, stdout: inout some TextOutputStream, stderr: inout some TextOutputStream) -> Int32 {
            if markdown {
                stdout.write(CommandReference.markdown())
            } else if let command = PayloadTool.command(named: words) {
                stdout.write(command.help)
            } else {
                stdout.write(PayloadTool.help)
            }
            return PayloadTool.exitSuccess
        }
    }
}
