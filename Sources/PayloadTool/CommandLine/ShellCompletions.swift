import Foundation

/// `payload-tool completions SHELL`: the completion script of bash, zsh or fish, written from the
/// commands' option declarations (`PayloadTool.commands`), so it offers exactly what the parser
/// takes: every spelling of every option, the words of a choice, files or folders where a value is
/// a path, and the commands themselves.
enum ShellCompletions {
    enum Shell: String, CaseIterable, Sendable { case bash, zsh, fish }

    static let shell = PositionalArgument(
        placeholder: "SHELL", help: ["bash, zsh or fish."], completion: .words(Shell.allCases.map(\.rawValue)))

    static let description = CommandDescription(
        name: "completions",
        abstract: "Write the completion script of a shell (bash, zsh or fish).",
        overview: """
            OVERVIEW: Write the completion script of a shell (bash, zsh or fish) to standard output.

            Load it for this session with 'source <(payload-tool completions bash)' (zsh: the same with
            zsh), or put it where the shell looks: scripts/install writes all three under PREFIX/share
            (bash-completion/completions/payload-tool, zsh/site-functions/_payload-tool,
            fish/vendor_completions.d/payload-tool.fish).
            """,
        usage: [[.positional(shell)]], arguments: [shell], options: [],
        exitStatuses: [ExitStatus(0, "The script was written."), .usage])

    struct Options: CommandOptions {
        static var description: CommandDescription { ShellCompletions.description }

        var shell: Shell

        init(_ parsed: CommandArguments) throws(UsageError) {
            guard let name = parsed.positionals.first else { throw UsageError(message: "Missing shell: bash, zsh or fish.") }
            guard parsed.positionals.count == 1, let shell = Shell(rawValue: name) else {
                throw UsageError(message: "Unknown shell '\(parsed.positionals.joined(separator: " "))': bash, zsh or fish.")
            }
            self.shell = shell
        }

        func run(stdin: FileHandle, stdout: inout some TextOutputStream, stderr: inout some TextOutputStream) -> Int32 {
            stdout.write(ShellCompletions.script(for: shell))
            return PayloadTool.exitSuccess
        }
    }

    static func script(for shell: Shell, commands: [CommandDescription] = PayloadTool.commands) -> String {
        switch shell {
        case .bash: bash(commands)
        case .zsh: zsh(commands)
        case .fish: fish(commands)
        }
    }

    /// A command's options as the completions offer them: its own and `-h, --help`.
    private static func options(of command: CommandDescription) -> [OptionDeclaration] {
        command.options + [CommandDescription.helpOption]
    }

    /// What the command's positional arguments complete with: the first argument's that offers
    /// anything (files for `FILE...`, the shells for `completions SHELL`).
    private static func positional(of command: CommandDescription) -> ValueCompletion {
        command.arguments.map(\.valueCompletion).first { $0 != .none } ?? .none
    }

    /// The first word of every command, each once (`dsyms` for `dsyms`, `dsyms import` and `dsyms export`).
    private static func commandWords(_ commands: [CommandDescription]) -> [String] {
        var words: [String] = []
        for command in commands {
            let first = String(command.name.split(separator: " ")[0])
            if !words.contains(first) { words.append(first) }
        }
        return words
    }

    /// The help text in one line, as a completion's description.
    private static func summary(_ help: [String]) -> String {
        help.joined(separator: " ")
    }

    // MARK: bash

    private static func bash(_ commands: [CommandDescription]) -> String {
        let topLevel = commandWords(commands) + PayloadTool.versionOption.spellings + CommandDescription.helpOption.spellings
        var text = """
            # bash completion for payload-tool. Written by 'payload-tool completions bash' from the
            # commands' option declarations; regenerate it rather than edit it.
            _payload_tool() {
                local cur="${COMP_WORDS[COMP_CWORD]}" prev="" command=""
                [ "$COMP_CWORD" -gt 0 ] && prev="${COMP_WORDS[COMP_CWORD-1]}"
                # '--format=csv' reaches here as '--format' '=' 'csv' (= is a word break).
                if [ "$cur" = "=" ]; then
                    cur=""
                elif [ "$prev" = "=" ] && [ "$COMP_CWORD" -gt 1 ]; then
                    prev="${COMP_WORDS[COMP_CWORD-2]}"
                fi
                if [ "$COMP_CWORD" -le 1 ]; then
                    COMPREPLY=($(compgen -W "\(topLevel.joined(separator: " "))" -- "$cur"))
                    return 0
                fi
                command="${COMP_WORDS[1]}"
                if [ "$command" = dsyms ] && [ "$COMP_CWORD" -gt 2 ] && [ "${COMP_WORDS[2]}" = import ]; then
                    command="dsyms import"
                elif [ "$command" = dsyms ] && [ "$COMP_CWORD" -gt 2 ] && [ "${COMP_WORDS[2]}" = export ]; then
                    command="dsyms export"
                fi
                case "$command" in

            """
        for command in commands {
            text += "    \(bashWord(command.name)))\n"
            text += "        case \"$prev\" in\n"
            for option in options(of: command) where option.takesValue {
                text += "        \(option.spellings.joined(separator: "|"))) \(bashCompletion(option.completion, commands)); return 0 ;;\n"
            }
            text += "        esac\n"
            let names = options(of: command).flatMap(\.spellings)
            text += "        if [[ \"$cur\" == -* ]]; then\n"
            text += "            COMPREPLY=($(compgen -W \"\(names.joined(separator: " "))\" -- \"$cur\"))\n"
            text += "            return 0\n"
            text += "        fi\n"
            if command.name == "dsyms" {
                text += "        if [ \"$COMP_CWORD\" -eq 2 ]; then COMPREPLY=($(compgen -W \"import\" -- \"$cur\")); fi\n"
            }
            text += "        \(bashCompletion(positional(of: command), commands, appending: command.name == "dsyms")) ;;\n"
        }
        text += """
                esac
                return 0
            }
            complete -o filenames -F _payload_tool payload-tool

            """
        return text
    }

    /// A `case` pattern for a command's name (`"dsyms import"` quoted, since it has a space).
    private static func bashWord(_ name: String) -> String {
        name.contains(" ") ? "\"\(name)\"" : name
    }

    private static func bashCompletion(_ completion: ValueCompletion, _ commands: [CommandDescription], appending: Bool = false) -> String {
        let assign = appending ? "COMPREPLY+=" : "COMPREPLY="
        switch completion {
        case .none: return appending ? ":" : "COMPREPLY=()"
        case .files: return "\(assign)($(compgen -f -- \"$cur\"))"
        case .folders: return "\(assign)($(compgen -d -- \"$cur\"))"
        case .words(let words): return "\(assign)($(compgen -W \"\(words.joined(separator: " "))\" -- \"$cur\"))"
        case .commandNames: return "\(assign)($(compgen -W \"\(commandWords(commands).joined(separator: " "))\" -- \"$cur\"))"
        }
    }

    // MARK: zsh

    private static func zsh(_ commands: [CommandDescription]) -> String {
        var text = """
            #compdef payload-tool
            # zsh completion for payload-tool. Written by 'payload-tool completions zsh' from the
            # commands' option declarations; regenerate it rather than edit it.

            _payload_tool() {
                local -a commands
                commands=(

            """
        var described: Set<String> = []
        for command in commands {
            let first = String(command.name.split(separator: " ")[0])
            guard described.insert(first).inserted else { continue }
            text += "        \(zshQuoted(zshEscaped(first, colons: true) + ":" + command.abstract))\n"
        }
        text += """
                )
                if (( CURRENT == 2 )); then
                    _describe -t commands 'payload-tool command' commands
                    _arguments \(zshSpec(PayloadTool.versionOption, commands)) \(zshSpec(CommandDescription.helpOption, commands))
                    return
                fi
                local command=$words[2]
                shift words
                (( CURRENT-- ))
                if [[ $command == dsyms && ( $words[2] == import || $words[2] == export ) ]]; then
                    command="dsyms $words[2]"
                    shift words
                    (( CURRENT-- ))
                fi
                case $command in

            """
        for command in commands {
            text += "    (\(command.name.contains(" ") ? "'\(command.name)'" : command.name))\n"
            text += "        _arguments \\\n"
            for option in options(of: command) { text += "            \(zshSpec(option, commands)) \\\n" }
            var positional = zshAction(positional(of: command), commands)
            if command.name == "dsyms" { positional = "(import)" }
            let placeholder = command.arguments.first?.placeholder ?? "ARGUMENT"
            text += "            \(zshQuoted("*:" + placeholder + ":" + positional))\n"
            text += "        ;;\n"
        }
        text += """
                esac
            }

            # Autoloaded from $fpath as _payload-tool, the file's body is that function: complete.
            # Sourced, it only registers the function.
            if [[ $funcstack[1] == _payload-tool ]]; then
                _payload_tool "$@"
            else
                compdef _payload_tool payload-tool
            fi

            """
        return text
    }

    /// One `_arguments` spec: `'(-o --object --obj)'{-o,--object,--obj}'=[help]:PATH:_files'`,
    /// `*` in front of a repeatable option.
    private static func zshSpec(_ option: OptionDeclaration, _ commands: [CommandDescription]) -> String {
        let spellings = option.spellings
        let exclusion = option.repeatable ? "*" : (spellings.count > 1 ? "(" + spellings.joined(separator: " ") + ")" : "")
        var tail = "[" + zshEscaped(summary(option.help), colons: false) + "]"
        if let placeholder = option.placeholder {
            tail = "=" + tail + ":" + zshEscaped(placeholder, colons: true) + ":" + zshAction(option.completion, commands)
        }
        let names = spellings.count > 1 ? "{" + spellings.joined(separator: ",") + "}" : spellings[0]
        return (exclusion.isEmpty ? "" : zshQuoted(exclusion)) + names + zshQuoted(tail)
    }

    private static func zshAction(_ completion: ValueCompletion, _ commands: [CommandDescription]) -> String {
        switch completion {
        case .none: " "
        case .files: "_files"
        case .folders: "_files -/"
        case .words(let words): "(" + words.joined(separator: " ") + ")"
        case .commandNames: "(" + commandWords(commands).joined(separator: " ") + ")"
        }
    }

    /// Brackets (and with `colons` the colons) a spec's fields would end at, escaped.
    private static func zshEscaped(_ text: String, colons: Bool) -> String {
        var escaped = text.replacingOccurrences(of: "\\", with: "\\\\").replacingOccurrences(of: "[", with: "\\[")
            .replacingOccurrences(of: "]", with: "\\]")
        if colons { escaped = escaped.replacingOccurrences(of: ":", with: "\\:") }
        return escaped
    }

    private static func zshQuoted(_ text: String) -> String {
        "'" + text.replacingOccurrences(of: "'", with: "'\\''") + "'"
    }

    // MARK: fish

    private static func fish(_ commands: [CommandDescription]) -> String {
        var text = """
            # fish completion for payload-tool. Written by 'payload-tool completions fish' from the
            # commands' option declarations; regenerate it rather than edit it.

            # The command being completed: 'rows', 'dsyms import', or nothing before the command word.
            function __payload_tool_command
                set -l words (commandline -opc)
                if test (count $words) -ge 3; and test "$words[2]" = dsyms; and contains -- "$words[3]" import export
                    echo "dsyms $words[3]"
                else if test (count $words) -ge 2
                    echo $words[2]
                end
            end

            function __payload_tool_in
                test "$(__payload_tool_command)" = "$argv"
            end

            complete -c payload-tool -f

            """
        var described: Set<String> = []
        for command in commands {
            let first = String(command.name.split(separator: " ")[0])
            guard described.insert(first).inserted else { continue }
            text += "complete -c payload-tool -n 'test -z \"$(__payload_tool_command)\"' -a \(first) -d \(fishQuoted(command.abstract))\n"
        }
        for option in [PayloadTool.versionOption, CommandDescription.helpOption] {
            text +=
                "complete -c payload-tool -n 'test -z \"$(__payload_tool_command)\"' \(fishNames(option)) -d \(fishQuoted(summary(option.help)))\n"
        }
        for command in commands {
            let condition = fishQuoted("__payload_tool_in \(command.name)")
            text += "\n"
            for option in options(of: command) {
                var line = "complete -c payload-tool -n \(condition) \(fishNames(option))"
                if option.takesValue { line += " " + fishValue(option.completion, commands) }
                text += line + " -d \(fishQuoted(summary(option.help)))\n"
            }
            if command.name == "dsyms" {
                text += "complete -c payload-tool -n \(condition) -a import -d \(fishQuoted(DsymsImport.description.abstract))\n"
            }
            switch positional(of: command) {
            case .none: break
            case .files: text += "complete -c payload-tool -n \(condition) -F\n"
            case .folders: text += "complete -c payload-tool -n \(condition) -a '(__fish_complete_directories)'\n"
            case .words(let words): text += "complete -c payload-tool -n \(condition) -a \(fishQuoted(words.joined(separator: " ")))\n"
            case .commandNames:
                text += "complete -c payload-tool -n \(condition) -a \(fishQuoted(commandWords(commands).joined(separator: " ")))\n"
            }
        }
        return text
    }

    /// `-l object -s o -l obj`: `-s` for one letter, `-o` for atos's single-dash words (`-arch`).
    private static func fishNames(_ option: OptionDeclaration) -> String {
        option.spellings.map { spelling in
            if spelling.hasPrefix("--") { return "-l " + spelling.dropFirst(2) }
            return spelling.count == 2 ? "-s " + spelling.dropFirst() : "-o " + spelling.dropFirst()
        }.joined(separator: " ")
    }

    private static func fishValue(_ completion: ValueCompletion, _ commands: [CommandDescription]) -> String {
        switch completion {
        case .none: "-x"
        case .files: "-r -F"
        case .folders: "-x -a '(__fish_complete_directories)'"
        case .words(let words): "-x -a " + fishQuoted(words.joined(separator: " "))
        case .commandNames: "-x -a " + fishQuoted(commandWords(commands).joined(separator: " "))
        }
    }

    private static func fishQuoted(_ text: String) -> String {
        "'" + text.replacingOccurrences(of: "\\", with: "\\\\").replacingOccurrences(of: "'", with: "\\'") + "'"
    }
}
