import PayloadDecode

/// A usage error: printed with the command's usage line and exits 64.
struct UsageError: Error {
    let message: String
}

/// A command line split into options and positional arguments, following argument-parser's
/// conventions: `--` ends the options and `-` is a positional (standard input). Options take their
/// value as `--name VALUE` or `--name=VALUE`; flags take none. Any declared spelling is taken,
/// single-dash ones included (`-o`, atos's `-arch`), and recorded under the option's name. Values
/// are read back through the option's declaration, so each is parsed and checked by the option's
/// own value parser.
struct CommandArguments {
    /// By option name (not the spelling given), every value in the order given.
    private(set) var values: [String: [String]] = [:]
    private(set) var flags: Set<String> = []
    private(set) var positionals: [String] = []
    private(set) var wantsHelp = false

    init(_ arguments: [String], options: [OptionDeclaration]) throws(UsageError) {
        let byName = Dictionary(
            options.flatMap { option in option.spellings.map { ($0, option) } }, uniquingKeysWith: { first, _ in first })
        var index = 0
        var optionsEnded = false
        while index < arguments.count {
            let argument = arguments[index]
            index += 1
            if optionsEnded || argument == "-" || !argument.hasPrefix("-") {
                positionals.append(argument)
                continue
            }
            if argument == "--" {
                optionsEnded = true
                continue
            }
            if argument == "-h" || argument == "--help" {
                wantsHelp = true
                continue
            }
            var name = argument
            var inlineValue: String?
            if let equals = argument.firstIndex(of: "=") {
                name = String(argument[..<equals])
                inlineValue = String(argument[argument.index(after: equals)...])
            }
            guard let option = byName[name] else {
                throw UsageError(message: "Unknown option '\(name)'.")
            }
            if !option.takesValue {
                if inlineValue != nil { throw UsageError(message: "Option '\(name)' takes no value.") }
                flags.insert(option.name)
                continue
            }
            let value: String
            if let inlineValue {
                value = inlineValue
            } else {
                guard index < arguments.count else { throw UsageError(message: "Missing value for option '\(name)'.") }
                value = arguments[index]
                index += 1
            }
            if !option.repeatable, values[option.name] != nil {
                throw UsageError(message: "Option '\(option.name)' was given more than once.")
            }
            values[option.name, default: []].append(value)
        }
    }

    func given(_ flag: CommandFlag) -> Bool { flags.contains(flag.name) }

    func given(_ option: CommandOption<some Any>) -> Bool { values[option.name] != nil }

    /// The option's value, parsed; `nil` when it was not given.
    func value<Value>(_ option: CommandOption<Value>) throws(UsageError) -> Value? {
        try value(option, parsedBy: option.parser)
    }

    /// The option's value parsed by a parser that needs what earlier options said (a time is read in
    /// the `--timezone` zone).
    func value<Value>(_ option: CommandOption<some Any>, parsedBy parser: ValueParser<Value>) throws(UsageError) -> Value? {
        guard let text = values[option.name]?.last else { return nil }
        return try parser.parse(text, for: context(option.declaration))
    }

    /// Every value of a repeatable option, parsed, in the order given.
    func values<Value>(_ option: CommandOption<Value>) throws(UsageError) -> [Value] {
        var parsed: [Value] = []
        for text in values[option.name] ?? [] {
            parsed.append(try option.parser.parse(text, for: context(option.declaration)))
        }
        return parsed
    }

    /// A usage error for a required option that is missing: `Missing expected argument '--db URL'.`
    func missing(_ option: CommandOption<some Any>) -> UsageError {
        UsageError(message: "Missing expected argument '\(option.declaration.synopsis)'.")
    }

    private func context(_ declaration: OptionDeclaration) -> ValueContext {
        ValueContext(name: declaration.name, synopsis: declaration.synopsis)
    }
}
