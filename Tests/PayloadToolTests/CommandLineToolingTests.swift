import BuildInfo
import Foundation
import TestSupport
import Testing

@testable import PayloadTool

/// `--version`, `help COMMAND`, the shell completions and the man page, as a user meets them: the
/// built executable run, its completions sourced by the real shells, its page rendered by `man`.
@Suite struct VersionAndHelp {
    /// `payload-tool 0.1.0 (git 36651ef-dirty)`, then the JSON format's version. The git part
    /// names a commit of this repository (the build ran in this checkout).
    @Test(arguments: ["--version", "version"])
    func versionNamesTheReleaseTheCheckoutAndTheJSONFormat(spelling: String) throws {
        let run = try ToolBinary.run([spelling])
        #expect(run.status == 0)
        #expect(ToolBinary.messages(run.stderr).isEmpty)
        let lines = run.stdout.split(separator: "\n").map(String.init)
        try #require(lines.count == 2, "\(run.stdout)")
        #expect(lines[1] == "JSON format \(PayloadTool.jsonFormatVersion)")
        let prefix = "payload-tool \(BuildInfo.release)"
        #expect(lines[0].hasPrefix(prefix), "\(lines[0])")
        #expect(BuildInfo.release.split(separator: ".").count == 3 && BuildInfo.release.allSatisfy { $0.isNumber || $0 == "." })
        guard FileManager.default.fileExists(atPath: Repository.root.appendingPathComponent(".git").path) else { return }
        let described = try #require(BuildInfo.gitDescription, "built in a git checkout, so git describe ran")
        #expect(lines[0] == "\(prefix) (git \(described))")
        // `36651ef`, `36651ef-dirty`, `v0.1.0-3-g36651ef`: the commit is the last hex word.
        let words = described.split(separator: "-").filter { $0 != "dirty" }
        let commit = try #require(words.last.map { $0.hasPrefix("g") && words.count > 1 ? String($0.dropFirst()) : String($0) })
        let check = try ToolBinary.run(
            ["-C", Repository.root.path, "cat-file", "-e", commit + "^{commit}"], executable: URL(fileURLWithPath: "/usr/bin/git"))
        #expect(check.status == 0, "\(commit): \(check.stderr)")
    }

    /// `help COMMAND` prints exactly `COMMAND --help`, for every command (`dsyms import` in two
    /// words); `help` alone is `--help`.
    @Test(arguments: PayloadTool.commands.map(\.name))
    func helpCommandIsCommandHelp(command: String) throws {
        let words = command.split(separator: " ").map(String.init)
        let viaHelp = try ToolBinary.run(["help"] + words)
        let viaFlag = try ToolBinary.run(words + ["--help"])
        #expect(viaHelp.status == 0 && viaFlag.status == 0)
        #expect(viaHelp.stdout == viaFlag.stdout)
        #expect(viaHelp.stdout.hasPrefix("OVERVIEW: "))
        // Every command says how it exits, usage errors included.
        #expect(viaHelp.stdout.contains("\nEXIT STATUS:\n  0 "), "\(command)")
        #expect(viaHelp.stdout.contains("\n  64                      Usage error"), "\(command)")
    }

    @Test func helpAloneIsTheGeneralHelpAndAnUnknownCommandIsAUsageError() throws {
        let general = try ToolBinary.run(["help"])
        #expect(general.stdout == (try ToolBinary.run(["--help"])).stdout)
        for command in PayloadTool.commands { #expect(general.stdout.contains("\n  \(command.name) "), "\(command.name)") }
        let unknown = try ToolBinary.run(["help", "frobnicate"])
        #expect(unknown.status == 64)
        #expect(unknown.stderr.hasPrefix("Error: Unknown command 'frobnicate'."))
    }
}

/// docs/command-line.md lists every option of every command: its reference section is what
/// `payload-tool help --markdown` writes from the declarations, byte for byte. After a change to
/// an option, re-record with `YUI_RECORD_SNAPSHOTS=1` and review the diff.
@Suite struct CommandReferenceDocs {
    static let file = Repository.root.appendingPathComponent("docs/command-line.md")
    static let begin = "<!-- BEGIN: written by `payload-tool help --markdown`; do not edit by hand -->\n"
    static let end = "<!-- END of the generated reference -->\n"

    @Test func theDocsListWhatTheDeclarationsSay() throws {
        let text = try String(contentsOf: Self.file, encoding: .utf8)
        let start = try #require(text.range(of: Self.begin), "docs/command-line.md has no generated section")
        let stop = try #require(text.range(of: Self.end, range: start.upperBound..<text.endIndex))
        let generated = try #require(try CommandLineOutput.run(["help", "--markdown"]))
        if ProcessInfo.processInfo.environment["YUI_RECORD_SNAPSHOTS"] == "1" {
            try Data((text[..<start.upperBound] + generated + text[stop.lowerBound...]).utf8).write(to: Self.file)
            return
        }
        #expect(
            String(text[start.upperBound..<stop.lowerBound]) == generated,
            "docs/command-line.md differs from 'payload-tool help --markdown'; re-record with YUI_RECORD_SNAPSHOTS=1")
        // Every spelling of every option is in it.
        for command in PayloadTool.commands {
            for spelling in command.options.flatMap(\.spellings) { #expect(generated.contains("`\(spelling)`"), "\(command.name) \(spelling)") }
        }
    }
}

/// The executable's standard output for `arguments`, nil unless it exits 0 with nothing on stderr.
enum CommandLineOutput {
    static func run(_ arguments: [String]) throws -> String? {
        let run = try ToolBinary.run(arguments)
        return run.status == 0 && ToolBinary.messages(run.stderr).isEmpty ? run.stdout : nil
    }

    /// A file of a temporary folder holding `text`.
    static func file(_ name: String, _ text: String) throws -> URL {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("yui-cli-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        let file = folder.appendingPathComponent(name)
        try Data(text.utf8).write(to: file)
        return file
    }

    static func shell(
        _ path: String, _ arguments: [String], environment: [String: String] = [:]
    ) throws -> (
        status: Int32, stdout: String, stderr: String
    ) {
        try ToolBinary.run(arguments, environment: environment, executable: URL(fileURLWithPath: path))
    }
}

/// `payload-tool completions SHELL`, loaded by each shell as its users load it, and asked what it
/// completes: the options (every spelling), a choice's words, the commands.
@Suite struct ShellCompletionScripts {
    @Test func bashSourcesItAndCompletesOptionsValuesAndCommands() throws {
        let script = try #require(try CommandLineOutput.run(["completions", "bash"]))
        let file = try CommandLineOutput.file("payload-tool.bash", script)
        defer { try? FileManager.default.removeItem(at: file.deletingLastPathComponent()) }
        // Each case sets the words typed so far as bash's completion does, and prints the answers.
        let probe = """
            source "$1" || exit 3
            complete -p payload-tool || exit 4
            ask() { COMP_WORDS=("$@"); COMP_CWORD=$(( $# - 1 )); COMPREPLY=(); _payload_tool; echo "${COMPREPLY[*]}"; }
            ask payload-tool sym
            ask payload-tool symbolicate --ar
            ask payload-tool symbolicate -ar
            ask payload-tool symbolicate -arch arm64
            ask payload-tool rows --format ''
            ask payload-tool rows --format = js
            ask payload-tool help dsy
            ask payload-tool completions ''
            ask payload-tool dsyms import --b
            """
        let run = try CommandLineOutput.shell("/bin/bash", ["--norc", "--noprofile", "-c", probe, "bash", file.path])
        #expect(run.status == 0, "\(run.stderr)")
        #expect(run.stderr.isEmpty, "\(run.stderr)")
        let lines = run.stdout.split(separator: "\n", omittingEmptySubsequences: false).map(String.init)
        #expect(
            Array(lines.prefix(10)) == [
                "complete -o filenames -F _payload_tool payload-tool", "symbolicate", "--arch", "-arch", "arm64 arm64e arm64_32",
                "json jsonl csv sql", "json jsonl", "dsyms", "bash zsh fish", "--build",
            ], "\(run.stdout)")
    }

    /// zsh: sourced after `compinit` it registers its function; put in `$fpath` as
    /// `_payload-tool` (where scripts/install puts it), `compinit` finds it by its `#compdef`.
    @Test func zshSourcesAndAutoloadsIt() throws {
        let script = try #require(try CommandLineOutput.run(["completions", "zsh"]))
        let file = try CommandLineOutput.file("_payload-tool", script)
        defer { try? FileManager.default.removeItem(at: file.deletingLastPathComponent()) }
        let folder = file.deletingLastPathComponent().path
        let syntax = try CommandLineOutput.shell("/usr/bin/zsh", ["-f", "-n", file.path])
        #expect(syntax.status == 0 && syntax.stderr.isEmpty, "\(syntax.stderr)")
        // `compinit -D` writes no dump file; HOME is the test's folder all the same, so no run can
        // touch a file of the machine's (`-d FILE` would replace FILE, even /dev/null, as root).
        let home = ["HOME": folder, "ZDOTDIR": folder]
        let sourced = try CommandLineOutput.shell(
            "/usr/bin/zsh",
            ["-f", "-c", "autoload -Uz compinit && compinit -u -D && source \"$1\" && print -r -- $_comps[payload-tool]", "zsh", file.path],
            environment: home)
        #expect(sourced.status == 0, "\(sourced.stderr)")
        #expect(sourced.stderr.isEmpty, "\(sourced.stderr)")
        #expect(sourced.stdout == "_payload_tool\n")
        let autoloaded = try CommandLineOutput.shell(
            "/usr/bin/zsh",
            ["-f", "-c", "fpath=(\"$1\" $fpath); autoload -Uz compinit && compinit -u -D && print -r -- $_comps[payload-tool]", "zsh", folder],
            environment: home)
        #expect(autoloaded.status == 0 && autoloaded.stderr.isEmpty, "\(autoloaded.stderr)")
        #expect(autoloaded.stdout == "_payload-tool\n")
    }

    /// fish: `complete -C` answers as the shell would at a tab.
    @Test func fishSourcesItAndCompletes() throws {
        let script = try #require(try CommandLineOutput.run(["completions", "fish"]))
        let file = try CommandLineOutput.file("payload-tool.fish", script)
        defer { try? FileManager.default.removeItem(at: file.deletingLastPathComponent()) }
        func complete(_ line: String) throws -> [String] {
            // fish makes its config and data folders under HOME: the test's folder.
            let home = file.deletingLastPathComponent().path
            let run = try CommandLineOutput.shell(
                "/usr/bin/fish", ["--no-config", "-c", "source $argv[1]; complete -C $argv[2]", file.path, line],
                environment: ["HOME": home, "XDG_CONFIG_HOME": home + "/config", "XDG_DATA_HOME": home + "/data"])
            #expect(run.status == 0 && run.stderr.isEmpty, "\(line): \(run.stderr)")
            return run.stdout.split(separator: "\n").map { String($0.split(separator: "\t")[0]) }
        }
        #expect(
            try complete("payload-tool ").sorted()
                == PayloadTool.commands.map { String($0.name.split(separator: " ")[0]) }.reduce(into: []) {
                    if !$0.contains($1) { $0.append($1) }
                }.sorted())
        #expect(try complete("payload-tool symbolicate --ar") == ["--arch"])
        #expect(try complete("payload-tool symbolicate -ar") == ["-arch"])
        #expect(try complete("payload-tool rows --format ").sorted() == ["csv", "json", "jsonl", "sql"])
        #expect(try complete("payload-tool dsyms import --b") == ["--build"])
    }
}

/// `payload-tool man`: roff that groff reads without a warning and `man -l` renders, naming every
/// command and every spelling of every option.
@Suite struct ManPageRendering {
    @Test func manRendersThePageWithEveryOption() throws {
        let page = try #require(try CommandLineOutput.run(["man"]))
        let file = try CommandLineOutput.file("payload-tool.1", page)
        defer { try? FileManager.default.removeItem(at: file.deletingLastPathComponent()) }
        let checked = try CommandLineOutput.shell("/usr/bin/groff", ["-man", "-ww", "-z", "-Tutf8", file.path])
        #expect(checked.status == 0 && checked.stderr.isEmpty, "\(checked.stderr)")
        let rendered = try CommandLineOutput.shell(
            "/usr/bin/man", ["-l", file.path], environment: ["MANWIDTH": "80", "MANPAGER": "cat", "PAGER": "cat"])
        #expect(rendered.status == 0, "\(rendered.stderr)")
        #expect(rendered.stderr.isEmpty, "\(rendered.stderr)")
        // man writes bold and underline as overstrikes when asked to keep formatting; not here.
        let text = rendered.stdout
        #expect(text.hasPrefix("PAYLOAD-TOOL(1)"))
        for section in ["NAME", "SYNOPSIS", "DESCRIPTION", "COMMANDS", "EXIT STATUS", "ENVIRONMENT", "FILES", "SEE ALSO"] {
            #expect(text.contains("\n\(section)\n"), "\(section)")
        }
        for command in PayloadTool.commands {
            #expect(text.contains("   payload-tool \(command.name)\n"), "\(command.name)")
            for spelling in command.options.flatMap(\.spellings) { #expect(text.contains(spelling), "\(command.name) \(spelling)") }
        }
        #expect(text.contains("-o, --object, --obj PATH"))
        #expect(text.contains("-arch, --arch, --default-arch NAME"))
    }
}
