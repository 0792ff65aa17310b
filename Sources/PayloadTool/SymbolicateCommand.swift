import Foundation
import PayloadDecode
import StackSymbolize

/// `payload-tool symbolicate`: the stacks of payload dumps or row files, or addresses in one debug
/// file (atos / llvm-symbolizer style).
enum SymbolicateCommand {
    static let usage = """
        Usage: payload-tool symbolicate [--dsyms ROOT] [--build B] [--symbols DIR]... [--index] [--json | --folded] [FILE...]
               payload-tool symbolicate --object PATH [--uuid U] [--offsets] [--index] [--json | --folded] [ADDRESS...]
        """

    static let help = """
        OVERVIEW: Symbolicate the stacks of payload dumps or row files, or addresses in one debug file.

        Stacks are matched to debug files by image UUID in the build's folder, <ROOT>/<build>/.
        Every frame but the innermost is a return address and is looked up at its caller's
        instruction. With --object, addresses (or offsets) are looked up exactly as given, one per
        argument or one per line on standard input, and answered in the same order.

        USAGE:
        \(usage.split(separator: "\n").map { "  " + $0.replacingOccurrences(of: "Usage: ", with: "").trimmingCharacters(in: .whitespaces) }.joined(separator: "\n"))

        ARGUMENTS:
          <FILE>                  Payload dumps or row files; '-' reads standard input.
          <ADDRESS>               With --object: 0x-prefixed hex or decimal addresses.

        OPTIONS:
          --dsyms ROOT            Debug-file root (default: $YUI_DSYMS, else ~/.yui-dsyms).
          --build B               Use build folder B for every row (default: each row's app_build).
          --symbols DIR           System images' symbol files (Xcode's iOS DeviceSupport/<version>/
                                  Symbols), searched by UUID for images without a debug file in the
                                  build's folder (repeatable; default: $YUI_SYSTEM_SYMBOLS, folders
                                  separated by ':', else <ROOT>/system when it exists).
          --object PATH           A debug file, .dSYM bundle or folder to look addresses up in.
          --uuid U                With --object: the slice of a fat file to use.
          --offsets               With --object: the values are offsets from the text base.
          --index                 Answer from on-disk symbol indexes, built on first use of each debug
                                  file (in $YUI_SYMBOL_CACHE, else ~/.cache/yui-perf/symbol-index).
          --index-folder DIR      As --index, keeping the indexes in DIR.
          --json                  Machine output (stable, sorted keys, snake_case).
          --folded                Folded stacks for flame-graph tools ('outer;inner count').
          -h, --help              Show help information.

        """

    static let options: [OptionSpec] = [
        .value("--dsyms"), .value("--build"), .value("--object"), .value("--uuid"), .flag("--offsets"),
        .flag("--json"), .flag("--folded"), .flag("--index"), .value("--index-folder"), .value("--symbols", repeatable: true),
    ]

    enum Format { case text, json, folded }

    static func run(
        arguments: [String], stdin: FileHandle, stdout: inout some TextOutputStream,
        stderr: inout some TextOutputStream
    ) -> Int32 {
        let parsed: CommandArguments
        do {
            parsed = try CommandArguments(arguments, options: options)
            if parsed.wantsHelp {
                stdout.write(help)
                return PayloadTool.exitSuccess
            }
            if parsed.flag("--json") && parsed.flag("--folded") {
                throw UsageError(message: "Options '--json' and '--folded' cannot be combined.")
            }
            if parsed.value("--object") == nil {
                for name in ["--uuid", "--offsets"] where parsed.value(name) != nil || parsed.flag(name) {
                    throw UsageError(message: "Option '\(name)' needs '--object'.")
                }
            } else {
                for name in ["--dsyms", "--build", "--symbols"] where parsed.value(name) != nil {
                    throw UsageError(message: "Option '\(name)' cannot be combined with '--object'.")
                }
            }
            if let build = parsed.value("--build"), (try? BuildSymbolizer.buildFolder(root: "/", build: build)) == nil {
                throw UsageError(message: "Invalid value '\(build)' for '--build': one folder name (letters, digits, '.', '_', '-'), not a path.")
            }
            if parsed.value("--object") == nil, parsed.positionals.isEmpty {
                throw UsageError(message: "Missing input: give payload dumps or row files ('-' for standard input).")
            }
        } catch let error as UsageError {
            return reportUsage(error, command: "symbolicate", usage: usage, to: &stderr)
        } catch {
            return PayloadTool.exitFailure
        }
        let format: Format = parsed.flag("--json") ? .json : parsed.flag("--folded") ? .folded : .text
        let indexFolder = parsed.value("--index-folder") ?? (parsed.flag("--index") ? BuildSymbolizer.defaultIndexFolder : nil)
        if let object = parsed.value("--object") {
            return SymbolicateObject.run(
                object: object, uuid: parsed.value("--uuid"), offsets: parsed.flag("--offsets"), indexFolder: indexFolder,
                addressArguments: parsed.positionals, stdin: stdin, format: format, stdout: &stdout, stderr: &stderr)
        }
        return SymbolicateStacks.run(
            inputs: parsed.positionals, root: parsed.value("--dsyms"), build: parsed.value("--build"), indexFolder: indexFolder,
            systemSymbols: BuildSymbolizer.systemSymbolFolders(given: parsed.all("--symbols"), root: parsed.value("--dsyms")),
            stdin: stdin,
            format: format, stdout: &stdout, stderr: &stderr)
    }
}
