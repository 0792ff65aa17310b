import PayloadDecode

/// A usage error: printed with the command's usage line and exits 64.
struct UsageError: Error {
    let message: String
}

/// An option a command accepts. Flags take no value; the others take one, as `--name VALUE` or
/// `--name=VALUE`, and may repeat when `repeatable`.
struct OptionSpec {
    let name: String
    let takesValue: Bool
    var repeatable = false

    static func flag(_ name: String) -> OptionSpec { OptionSpec(name: name, takesValue: false) }
    static func value(_ name: String, repeatable: Bool = false) -> OptionSpec {
        OptionSpec(name: name, takesValue: true, repeatable: repeatable)
    }
}

/// A command line split into options and positional arguments, following argument-parser's
/// conventions: `--` ends the options and `-` is a positional (standard input).
struct CommandArguments {
    private(set) var values: [String: [String]] = [:]
    private(set) var flags: Set<String> = []
    private(set) var positionals: [String] = []
    private(set) var wantsHelp = false

    init(_ arguments: [String], options: [OptionSpec]) throws(UsageError) {
        let byName = Dictionary(options.map { ($0.name, $0) }, uniquingKeysWith: { first, _ in first })
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
            guard let spec = byName[name] else {
                throw UsageError(message: "Unknown option '\(name)'.")
            }
            if !spec.takesValue {
                if inlineValue != nil { throw UsageError(message: "Option '\(name)' takes no value.") }
                flags.insert(name)
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
            if !spec.repeatable, values[name] != nil {
                throw UsageError(message: "Option '\(name)' was given more than once.")
            }
            values[name, default: []].append(value)
        }
    }

    func flag(_ name: String) -> Bool { flags.contains(name) }
    func value(_ name: String) -> String? { values[name]?.last }
    func all(_ name: String) -> [String] { values[name] ?? [] }
}

/// Prints a usage error the way argument-parser does and returns the usage exit status.
func reportUsage(
    _ error: UsageError, command: String, usage: String, to stderr: inout some TextOutputStream
) -> Int32 {
    stderr.write("Error: \(InputText.escaped(error.message))\n\(usage)\nSee 'payload-tool \(command) --help' for more information.\n")
    return PayloadTool.exitUsage
}
