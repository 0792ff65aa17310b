/// What a command says about one of its options, in one place: the name and its other spellings,
/// the placeholder of its value, the help text, and whether it may repeat. The parser reads names
/// from it; the usage line, the OPTIONS section of `--help`, the man page, the shell completions and
/// docs/command-line.md are written from it, so none of them can drift from the others.
struct OptionDeclaration: Sendable {
    /// The name usage lines and messages use (`--object`).
    let name: String
    /// Other spellings the parser takes for the same option, as other tools spell it: atos's `-o`
    /// and `-arch`, llvm-symbolizer's `--obj`. They are listed in help, man page and completions.
    let aliases: [String]
    /// The value's placeholder as written with upper-case style (`FILE`, `N`, `json|csv`); `nil`
    /// for a flag, which takes no value.
    let placeholder: String?
    /// The help text, one entry per line of the OPTIONS section (lines are kept as written, so the
    /// text is laid out by hand, not re-wrapped).
    let help: [String]
    let repeatable: Bool
    /// What a shell offers for the value (`ValueCompletion`).
    let completion: ValueCompletion

    var takesValue: Bool { placeholder != nil }

    /// Every spelling: the single-dash ones (`-o`, `-arch`) first, then the name, then the other
    /// double-dash ones (`--obj`), the order help and the man page list them in.
    var spellings: [String] {
        aliases.filter { !$0.hasPrefix("--") } + [name] + aliases.filter { $0.hasPrefix("--") }
    }

    /// `--name PLACEHOLDER` (or just `--name` for a flag), as usage lines and messages show it.
    var synopsis: String {
        guard let placeholder else { return name }
        return "\(name) \(placeholder)"
    }

    /// `-o, --object, --obj PATH`: every spelling, as the OPTIONS section lists the option.
    var helpLabel: String {
        let names = spellings.joined(separator: ", ")
        guard let placeholder else { return names }
        return "\(names) \(placeholder)"
    }

    /// The same option with another help text, for a shared option whose meaning a command narrows
    /// (`top --user` also filters `--db` rows): names, placeholder and parsing stay shared.
    func helping(_ help: [String]) -> OptionDeclaration {
        OptionDeclaration(
            name: name, aliases: aliases, placeholder: placeholder, help: help, repeatable: repeatable, completion: completion)
    }
}

/// What a shell completes an option's value (or a positional argument) with. Read from the
/// placeholder unless the declaration says otherwise: `FILE` and `PATH` are files, `DIR` and
/// `ROOT` folders, a choice its words; anything else (`N`, `URL`, `UUID`) is left to the user.
enum ValueCompletion: Sendable, Equatable {
    case none
    case files
    case folders
    case words([String])
    /// The first words of payload-tool's commands (`help COMMAND`).
    case commandNames

    static func forPlaceholder(_ placeholder: String?) -> ValueCompletion {
        switch placeholder {
        case "FILE", "PATH": .files
        case "DIR", "ROOT": .folders
        default: .none
        }
    }
}

/// An option that takes a value, parsed into `Value` by its value parser.
struct CommandOption<Value>: Sendable {
    let declaration: OptionDeclaration
    let parser: ValueParser<Value>

    /// - Parameters:
    ///   - placeholder: defaults to the parser's (`on|off` for a choice of words).
    ///   - aliases: other spellings of the option (`-o` for `--object`).
    init(
        _ name: String, _ placeholder: String? = nil, aliases: [String] = [], parser: ValueParser<Value>, repeatable: Bool = false,
        help: [String]
    ) {
        let shown = placeholder ?? parser.placeholder ?? "VALUE"
        declaration = OptionDeclaration(
            name: name, aliases: aliases, placeholder: shown, help: help, repeatable: repeatable,
            completion: parser.words.map { .words($0) } ?? .forPlaceholder(shown))
        self.parser = parser
    }

    private init(declaration: OptionDeclaration, parser: ValueParser<Value>) {
        self.declaration = declaration
        self.parser = parser
    }

    var name: String { declaration.name }

    /// See `OptionDeclaration.helping(_:)`.
    func helping(_ help: [String]) -> CommandOption<Value> {
        CommandOption(declaration: declaration.helping(help), parser: parser)
    }

    /// The same option checked by another parser, for a command that is stricter than the others
    /// (`top --dsyms` refuses the empty string); name, placeholder and help stay shared.
    func parsed(by parser: ValueParser<Value>) -> CommandOption<Value> {
        CommandOption(declaration: declaration, parser: parser)
    }
}

/// An option that takes no value.
struct CommandFlag: Sendable {
    let declaration: OptionDeclaration

    init(_ name: String, aliases: [String] = [], help: [String]) {
        declaration = OptionDeclaration(name: name, aliases: aliases, placeholder: nil, help: help, repeatable: false, completion: .none)
    }

    var name: String { declaration.name }
}
