/// What a command says about one of its options, in one place: the name, the placeholder of its
/// value, the help text, and whether it may repeat. The parser reads names from it, and the usage
/// line and the OPTIONS section of `--help` are written from it, so the three cannot drift apart.
struct OptionDeclaration: Sendable {
    let name: String
    /// The value's placeholder as written with upper-case style (`FILE`, `N`, `json|csv`); `nil`
    /// for a flag, which takes no value.
    let placeholder: String?
    /// The help text, one entry per line of the OPTIONS section (lines are kept as written, so the
    /// text is laid out by hand, not re-wrapped).
    let help: [String]
    let repeatable: Bool

    var takesValue: Bool { placeholder != nil }

    /// `--name PLACEHOLDER` (or just `--name` for a flag), as usage and help show it.
    func synopsis(_ style: PlaceholderStyle) -> String {
        guard let placeholder else { return name }
        return "\(name) \(style.render(placeholder))"
    }

    /// The same option with another help text, for a shared option whose meaning a command narrows
    /// (`top --user` also filters `--db` rows): name, placeholder and parsing stay shared.
    func helping(_ help: [String]) -> OptionDeclaration {
        OptionDeclaration(name: name, placeholder: placeholder, help: help, repeatable: repeatable)
    }
}

/// How placeholders are written. Upper-case (`--count N`) is the house style; `load` writes
/// argument-parser's `<n>` because its tests pin `USAGE: payload-tool load --db <url>` and its
/// error messages name options as `'--batch-size <n>'`.
enum PlaceholderStyle: Sendable {
    case upperCase
    case angleBrackets

    func render(_ placeholder: String) -> String {
        switch self {
        case .upperCase: placeholder
        case .angleBrackets: "<\(placeholder.lowercased())>"
        }
    }
}

/// An option that takes a value, parsed into `Value` by its value parser.
struct CommandOption<Value>: Sendable {
    let declaration: OptionDeclaration
    let parser: ValueParser<Value>

    /// - Parameters:
    ///   - placeholder: defaults to the parser's (`on|off` for a choice of words).
    init(
        _ name: String, _ placeholder: String? = nil, parser: ValueParser<Value>, repeatable: Bool = false,
        help: [String]
    ) {
        declaration = OptionDeclaration(
            name: name, placeholder: placeholder ?? parser.placeholder ?? "VALUE", help: help, repeatable: repeatable)
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

    init(_ name: String, help: [String]) {
        declaration = OptionDeclaration(name: name, placeholder: nil, help: help, repeatable: false)
    }

    var name: String { declaration.name }
}
