import Foundation

/// What every command that reads inputs takes besides its FILE arguments: folders and zips are
/// FILE arguments too (docs/command-line.md, "Inputs").
enum InputArguments {
    static let fromList = CommandOption(
        "--from-list", "FILE", parser: .text, repeatable: true,
        help: [
            "Also read the inputs named in FILE, one path a line ('-': standard",
            "input): for inputs another tool lists, in any number (repeatable).",
        ])

    /// The FILE arguments and the `--from-list` files; at least one of them.
    static func inputs(_ parsed: CommandArguments) throws(UsageError) -> (inputs: [String], fromLists: [String]) {
        let fromLists = try parsed.values(fromList)
        let inputs = parsed.positionals
        if inputs.isEmpty && fromLists.isEmpty {
            throw UsageError(message: "Missing input: give files or folders, '-' for standard input, or '\(fromList.name) FILE'.")
        }
        if fromLists.contains("-"), inputs.contains("-") {
            throw UsageError(message: "'\(fromList.name) -' and the input '-' cannot both read standard input.")
        }
        return (inputs, fromLists)
    }
}
