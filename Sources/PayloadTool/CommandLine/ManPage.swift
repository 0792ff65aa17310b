import BuildInfo
import Foundation

/// `payload-tool man`: the man page, `payload-tool.1` in roff (the `man` macros), written from the
/// commands' declarations: each command's usage forms, description, options (every spelling) and
/// exit statuses, then the environment and files every command reads.
enum ManPage {
    static let description = CommandDescription(
        name: "man",
        abstract: "Write the man page, payload-tool.1 (roff).",
        overview: """
            OVERVIEW: Write the man page, payload-tool.1 (roff), to standard output.

            Read it with 'payload-tool man | man -l -'. scripts/install writes it to
            PREFIX/share/man/man1/payload-tool.1.
            """,
        usage: [[]], arguments: [], options: [], exitStatuses: [ExitStatus(0, "The page was written."), .usage])

    struct Options: CommandOptions {
        static var description: CommandDescription { ManPage.description }

        init(_ parsed: CommandArguments) throws(UsageError) {
            if let extra = parsed.positionals.first { throw UsageError(message: "Unexpected argument '\(extra)'.") }
        }

        func run(stdin: FileHandle, stdout: inout some TextOutputStream, stderr: inout some TextOutputStream) -> Int32 {
            stdout.write(ManPage.page())
            return PayloadTool.exitSuccess
        }
    }

    /// The environment variables the commands read, with what each changes.
    static let environment: [(String, String)] = [
        ("YUI_DSYMS", "The debug-file store's root when --dsyms is not given (default: ~/.yui-dsyms)."),
        ("YUI_SYSTEM_SYMBOLS", "Folders of system symbols, separated by ':', when --symbols is not given."),
        ("YUI_SYMBOL_CACHE", "The folder of symbol indexes for --index (default: ~/.cache/yui-perf/symbol-index)."),
        ("PGPASSWORD", "The database password for load, top --db and report --db, when the URL has none (libpq)."),
        ("HOME", "Where ~/.yui-dsyms, ~/.cache/yui-perf and ~/.yui-perf-builds.json are."),
    ]

    static let files: [(String, String)] = [
        ("~/.yui-dsyms/BUILD/", "The debug-file store: a folder per build, files named by UUID (dsyms import fills it)."),
        ("~/.cache/yui-perf/symbol-index/", "On-disk symbol indexes (symbolicate --index, top --index)."),
        ("~/.yui-perf-builds.json", "The build summaries of report."),
    ]

    static func page(commands: [CommandDescription] = PayloadTool.commands) -> String {
        var page = """
            .\\" Written by 'payload-tool man' from the commands' declarations; regenerate it rather than edit it.
            .TH PAYLOAD-TOOL 1 "" "payload-tool \(BuildInfo.release)" "User Commands"
            .\\" No hyphenation (an option name broken across lines could not be copied), ragged right
            .\\" (paths and option names are too long to justify around).
            .nh
            .ad l
            .SH NAME
            payload\\-tool \\- \(escaped(PayloadTool.overview.prefix(1).lowercased() + PayloadTool.overview.dropFirst().dropLast()))
            .SH SYNOPSIS

            """
        // `dsyms --help` shows the import form too: each form once.
        var forms: [String] = []
        for form in commands.flatMap(\.forms) + ["payload-tool --version"] where !forms.contains(form) { forms.append(form) }
        for form in forms { page += synopsisLine(form) }
        page += ".SH DESCRIPTION\n"
        page += paragraph(PayloadTool.overview + " Data goes to standard output, everything else to standard error; '-' is standard input.")
        page += ".SH COMMANDS\n"
        for command in commands {
            page += ".SS \"payload-tool \(command.name)\"\n"
            for form in command.forms { page += synopsisLine(form) }
            for text in command.overviewParagraphs { page += paragraph(text) }
            if !command.arguments.isEmpty {
                for argument in command.arguments {
                    page += ".TP\n.I \(escaped(argument.placeholder))\n\(escaped(argument.help.joined(separator: " ")))\n"
                }
            }
            for option in command.options + [CommandDescription.helpOption] { page += entry(option) }
            for text in command.epilogueParagraphs { page += paragraph(text) }
            page += ".PP\nExit status:\n"
            for status in command.exitStatuses { page += ".TP\n.B \(status.code)\n\(escaped(status.meaning))\n" }
        }
        page += ".SH OPTIONS\n"
        for option in [PayloadTool.versionOption, CommandDescription.helpOption] { page += entry(option) }
        page += ".SH \"EXIT STATUS\"\n"
        for status in PayloadTool.exitStatuses { page += ".TP\n.B \(status.code)\n\(escaped(status.meaning))\n" }
        page += ".SH ENVIRONMENT\n"
        for (name, meaning) in environment { page += ".TP\n.B \(name)\n\(escaped(meaning))\n" }
        page += ".SH FILES\n"
        for (path, meaning) in files { page += ".TP\n.I \(escaped(path))\n\(escaped(meaning))\n" }
        page += ".SH \"SEE ALSO\"\n.BR atos (1),\n.BR llvm\\-symbolizer (1),\n.BR psql (1)\n"
        return page
    }

    /// `-o, --object, --obj PATH` in bold and italics, then its help.
    private static func entry(_ option: OptionDeclaration) -> String {
        var label = option.spellings.map { "\\fB" + escaped($0) + "\\fR" }.joined(separator: ", ")
        if let placeholder = option.placeholder { label += " \\fI" + escaped(placeholder) + "\\fR" }
        return ".TP\n\(label)\n\(escaped(option.help.joined(separator: " ")))\n"
    }

    /// A usage form as a paragraph of its own, filled and ragged, its later lines indented under
    /// the first (a form is longer than a terminal is wide); the program and command in bold.
    private static func synopsisLine(_ form: String) -> String {
        let words = form.split(separator: " ", omittingEmptySubsequences: false)
        let command = words.prefix { !$0.hasPrefix("-") && !$0.hasPrefix("[") && !$0.hasPrefix("(") && $0 != $0.uppercased() }
        let rest = words.dropFirst(command.count).joined(separator: " ")
        return ".PP\n.in +4n\n.ti -4n\n\\fB\(escaped(command.joined(separator: " ")))\\fR \(escaped(rest))\n.in\n"
    }

    private static func paragraph(_ text: String) -> String {
        ".PP\n\(escaped(text))\n"
    }

    /// Text as roff prints it: backslashes and hyphens escaped (an option's `-` must stay a
    /// hyphen-minus when copied from the page), and a line that would start with `.` or `'` (a
    /// request) protected by `\&`.
    static func escaped(_ text: some StringProtocol) -> String {
        let body = text.replacingOccurrences(of: "\\", with: "\\e").replacingOccurrences(of: "-", with: "\\-")
        return body.hasPrefix(".") || body.hasPrefix("'") ? "\\&" + body : body
    }
}

/// docs/command-line.md's reference: every command's usage, arguments, options (every spelling)
/// and exit statuses as Markdown, written by `payload-tool help --markdown` from the declarations.
/// A test regenerates it and compares it with the file.
enum CommandReference {
    static func markdown(commands: [CommandDescription] = PayloadTool.commands) -> String {
        var text = ""
        for command in commands {
            text += "### `payload-tool \(command.name)`\n\n\(command.abstract)\n\n```\n\(command.forms.joined(separator: "\n"))\n```\n\n"
            if !command.arguments.isEmpty {
                text += "| argument | what it is |\n|---|---|\n"
                for argument in command.arguments { text += "| `\(argument.placeholder)` | \(cell(argument.help)) |\n" }
                text += "\n"
            }
            if !command.options.isEmpty {
                text += "| option | value | what it does |\n|---|---|---|\n"
                for option in command.options + [CommandDescription.helpOption] {
                    let names = option.spellings.map { "`\($0)`" }.joined(separator: ", ")
                    let value = option.placeholder.map { "`\($0.replacingOccurrences(of: "|", with: "\\|"))`" } ?? ""
                    text += "| \(names) | \(value) | \(cell(option.help)) |\n"
                }
                text += "\n"
            }
            for paragraph in command.epilogueParagraphs { text += paragraph + "\n\n" }
            text += "Exit status:\n\n" + command.exitStatuses.map { "- \($0.code): \($0.meaning)\n" }.joined() + "\n"
        }
        return text
    }

    /// Help lines as one table cell: joined, `|` escaped.
    private static func cell(_ lines: [String]) -> String {
        lines.joined(separator: " ").replacingOccurrences(of: "|", with: "\\|")
    }
}
