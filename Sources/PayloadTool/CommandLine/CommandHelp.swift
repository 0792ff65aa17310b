import Foundation
import PayloadDecode

/// A positional argument as `--help` lists it.
struct PositionalArgument: Sendable {
    /// Upper-case style, like option placeholders (`FILE`).
    let placeholder: String
    let help: [String]
    /// What a shell offers for it: read from the placeholder (`ValueCompletion.forPlaceholder`)
    /// unless given.
    var completion: ValueCompletion? = nil

    var valueCompletion: ValueCompletion { completion ?? .forPlaceholder(placeholder) }
}

/// One exit status a command can end with, and what it means there.
struct ExitStatus: Sendable {
    let code: Int32
    let meaning: String

    init(_ code: Int32, _ meaning: String) {
        self.code = code
        self.meaning = meaning
    }

    /// 64, worded the same for every command.
    static let usage = ExitStatus(PayloadTool.exitUsage, "Usage error: an unknown option, a refused value, a missing input.")
}

/// One piece of a usage line, naming declared options so the line cannot drift from them.
indirect enum UsageItem: Sendable {
    /// `[--name VALUE]`, `[--name VALUE]...` when repeatable.
    case optional(OptionDeclaration)
    /// `--name VALUE`
    case required(OptionDeclaration)
    /// `[--json | --folded]`: at most one of them.
    case oneOf([OptionDeclaration])
    /// `[--period-start TIME [--period-end TIME]]`: the second only with the first.
    case optionalPair(OptionDeclaration, OptionDeclaration)
    /// `FILE...`, `[FILE...]`, `BUILD`.
    case positional(PositionalArgument, optional: Bool = false, repeating: Bool = false)
    /// `(FILE... | --db URL)`: exactly one of the sequences.
    case either([[UsageItem]])
    /// A word typed as it is: `import` in `payload-tool dsyms import`.
    case word(String)
}

/// Everything `--help` and the usage line say about a command. The OVERVIEW line and prose are
/// written by hand; the usage line, ARGUMENTS, OPTIONS and EXIT STATUS are made from the
/// declarations, and so are the man page, the shell completions and docs/command-line.md.
struct CommandDescription: Sendable {
    /// As typed after `payload-tool`: `rows`, `dsyms import`.
    let name: String
    /// One line saying what the command does: the command list of `payload-tool --help`, the
    /// man page and the shell completions show it.
    let abstract: String
    /// `OVERVIEW: ...` and the paragraphs after it, up to (not including) the blank line before USAGE.
    let overview: String
    /// One line per way of calling the command.
    let usage: [[UsageItem]]
    let arguments: [PositionalArgument]
    let options: [OptionDeclaration]
    /// Paragraphs after OPTIONS (what is printed, where), or `nil`.
    var epilogue: String? = nil
    /// Every status the command exits with (64, the usage error, included).
    var exitStatuses: [ExitStatus]

    /// Where the help text starts in the ARGUMENTS, OPTIONS and EXIT STATUS sections.
    static let helpColumn = 26

    /// The OVERVIEW line (without `OVERVIEW: `) and the paragraphs after it, each joined into one
    /// line: the man page's and docs/command-line.md's description, which the reader lays out.
    var overviewParagraphs: [String] {
        var paragraphs = Self.paragraphs(overview)
        if let first = paragraphs.first, first.hasPrefix("OVERVIEW: ") { paragraphs[0] = String(first.dropFirst("OVERVIEW: ".count)) }
        return paragraphs
    }

    /// The epilogue's paragraphs, each joined into one line.
    var epilogueParagraphs: [String] { epilogue.map(Self.paragraphs) ?? [] }

    /// Paragraphs (separated by blank lines) of hand-wrapped text, each joined into one line.
    static func paragraphs(_ text: String) -> [String] {
        text.components(separatedBy: "\n\n").map { paragraph in
            paragraph.split(separator: "\n").map { $0.trimmingCharacters(in: .whitespaces) }.joined(separator: " ")
        }
    }

    /// The usage forms, `payload-tool` and the command's name first.
    var forms: [String] {
        usage.map { items in (["payload-tool", name] + items.map(Self.render)).joined(separator: " ") }
    }
    /// `Usage: payload-tool rows [--format json|jsonl|csv|sql] ... FILE...`, a line per form, the
    /// later ones aligned under the first.
    var usageLines: String {
        "Usage: " + forms.joined(separator: "\n       ")
    }

    var help: String {
        var text = overview + "\n\nUSAGE: " + forms.joined(separator: "\n       ") + "\n\n"
        if !arguments.isEmpty {
            text += "ARGUMENTS:\n"
            for argument in arguments { text += Self.entry(argument.placeholder, argument.help) }
            text += "\n"
        }
        text += "OPTIONS:\n"
        for option in options { text += Self.entry(option.helpLabel, option.help) }
        text += Self.entry(Self.helpOption.helpLabel, Self.helpOption.help)
        if let epilogue { text += "\n" + epilogue + "\n" }
        text += "\nEXIT STATUS:\n"
        for status in exitStatuses { text += Self.entry(String(status.code), Self.wrapped(status.meaning)) }
        return text
    }

    /// `text` in lines of at most `width` characters, broken between words: exit statuses are
    /// written as one sentence, and the help column leaves 70 of the 96 the hand-wrapped text uses.
    static func wrapped(_ text: String, width: Int = 70) -> [String] {
        var lines: [String] = []
        var line = ""
        for word in text.split(separator: " ") {
            if !line.isEmpty, line.count + 1 + word.count > width {
                lines.append(line)
                line = ""
            }
            line += (line.isEmpty ? "" : " ") + word
        }
        if !line.isEmpty { lines.append(line) }
        return lines
    }

    /// `-h, --help`, which every command takes (the parser answers it, not the command).
    static let helpOption = CommandFlag("--help", aliases: ["-h"], help: ["Show help information."]).declaration

    static func render(_ item: UsageItem) -> String {
        switch item {
        case .optional(let option): "[\(option.synopsis)]" + (option.repeatable ? "..." : "")
        case .required(let option): option.synopsis
        case .oneOf(let options): "[" + options.map(\.synopsis).joined(separator: " | ") + "]"
        case .optionalPair(let first, let second): "[\(first.synopsis) [\(second.synopsis)]]"
        case .positional(let argument, let optional, let repeating):
            optional ? "[\(argument.placeholder)\(repeating ? "..." : "")]" : argument.placeholder + (repeating ? "..." : "")
        case .either(let sequences): "(" + sequences.map { $0.map(render).joined(separator: " ") }.joined(separator: " | ") + ")"
        case .word(let word): word
        }
    }

    /// `  --name VALUE            First line of help` and the further lines indented to the help
    /// column; a name too long for the column gets its help on the next line.
    static func entry(_ label: String, _ help: [String]) -> String {
        let indent = String(repeating: " ", count: helpColumn)
        var lines = help
        var text = "  " + label
        if text.count + 2 > helpColumn, !lines.isEmpty {
            text += "\n"
        } else if let first = lines.first {
            text += String(repeating: " ", count: helpColumn - text.count) + first
            lines.removeFirst()
            text += "\n"
        } else {
            text += "\n"
        }
        for line in lines { text += indent + line + "\n" }
        return text
    }

    /// Every option the command declares that no usage form names: each should be in one.
    var optionsMissingFromUsage: [String] {
        var named: Set<String> = []
        func collect(_ item: UsageItem) {
            switch item {
            case .optional(let option), .required(let option): named.insert(option.name)
            case .oneOf(let options): named.formUnion(options.map(\.name))
            case .optionalPair(let first, let second): named.formUnion([first.name, second.name])
            case .positional, .word: break
            case .either(let sequences): sequences.joined().forEach(collect)
            }
        }
        usage.joined().forEach(collect)
        return options.map(\.name).filter { !named.contains($0) }
    }
}

/// A command's checked options, and how the command runs with them (argument-parser's
/// `ParsableCommand`): `CommandRunner` parses the arguments against `description`, answers
/// `--help`, builds the options with `init`, and calls `run`.
protocol CommandOptions {
    static var description: CommandDescription { get }
    /// The options, checked; a usage error names what is wrong.
    init(_ arguments: CommandArguments) throws(UsageError)
    func run(stdin: FileHandle, stdout: inout some TextOutputStream, stderr: inout some TextOutputStream) -> Int32
}

/// The shape every command shares: parse the arguments, answer `--help`, check the options, and
/// run; a usage error is printed with the usage line and exits 64.
enum CommandRunner {
    static func run<Command: CommandOptions>(
        _ command: Command.Type, arguments: [String], stdin: FileHandle, stdout: inout some TextOutputStream,
        stderr: inout some TextOutputStream
    ) -> Int32 {
        let options: Command
        do throws(UsageError) {
            let parsed = try CommandArguments(arguments, options: Command.description.options)
            if parsed.wantsHelp {
                stdout.write(Command.description.help)
                return PayloadTool.exitSuccess
            }
            options = try Command(parsed)
        } catch {
            return reportUsage(error, of: Command.description, to: &stderr)
        }
        return options.run(stdin: stdin, stdout: &stdout, stderr: &stderr)
    }

    /// Prints a usage error the way argument-parser does and returns the usage exit status.
    static func reportUsage(
        _ error: UsageError, of description: CommandDescription, to stderr: inout some TextOutputStream
    ) -> Int32 {
        stderr.write(
            "Error: \(InputText.escaped(error.message))\n\(description.usageLines)\n"
                + "See 'payload-tool \(description.name) --help' for more information.\n")
        return PayloadTool.exitUsage
    }
}
