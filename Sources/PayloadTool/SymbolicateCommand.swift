import Foundation
import PayloadDecode
import StackSymbolize

/// `payload-tool symbolicate`: the stacks of payload dumps or row files, or addresses in one debug
/// file (atos / llvm-symbolizer style).
enum SymbolicateCommand {
    enum Format { case text, json, folded }
}

/// `payload-tool symbolicate`'s options, declared once: parsing, usage and help all come from here.
struct SymbolicateOptions: CommandOptions {
    static let build = CommandOption(
        "--build", "BUILD", parser: .buildFolderName,
        help: ["Use this build folder for every row (default: each row's app_build)."])
    static let object = CommandOption(
        "--object", "PATH", parser: .text, help: ["A debug file, .dSYM bundle or folder to look addresses up in."])
    static let uuid = CommandOption(
        "--uuid", "UUID", parser: .imageUUID(.needs("a UUID")), help: ["With --object: the slice of a fat file to use."])
    static let offsets = CommandFlag("--offsets", help: ["With --object: the values are offsets from the text base."])
    static let index = DebugFileArguments.index
    static let indexFolder = DebugFileArguments.indexFolder
    static let json = CommandFlag("--json", help: ["Machine output (stable, sorted keys, snake_case)."])
    static let folded = CommandFlag("--folded", help: ["Folded stacks for flame-graph tools ('outer;inner count')."])
    static let file = PositionalArgument(placeholder: "FILE", help: ["Payload dumps or row files; '-' reads standard input."])
    static let address = PositionalArgument(
        placeholder: "ADDRESS", help: ["With --object: 0x-prefixed hex or decimal addresses."])

    static let description = CommandDescription(
        name: "symbolicate",
        overview: """
            OVERVIEW: Symbolicate the stacks of payload dumps or row files, or addresses in one debug file.

            Stacks are matched to debug files by image UUID in the build's folder, <ROOT>/<build>/.
            Every frame but the innermost is a return address and is looked up at its caller's
            instruction. With --object, addresses (or offsets) are looked up exactly as given, one per
            argument or one per line on standard input, and answered in the same order.
            """,
        usage: [
            [
                .optional(DebugFileArguments.dsyms.declaration), .optional(build.declaration),
                .optional(DebugFileArguments.symbols.declaration), .optional(index.declaration),
                .optional(indexFolder.declaration), .oneOf([json.declaration, folded.declaration]),
                .positional(file, optional: true, repeating: true),
            ],
            [
                .required(object.declaration), .optional(uuid.declaration), .optional(offsets.declaration),
                .optional(index.declaration), .optional(indexFolder.declaration),
                .oneOf([json.declaration, folded.declaration]), .positional(address, optional: true, repeating: true),
            ],
        ],
        arguments: [file, address],
        options: [
            DebugFileArguments.dsyms.declaration, build.declaration, DebugFileArguments.symbols.declaration,
            object.declaration, uuid.declaration, offsets.declaration, index.declaration, indexFolder.declaration,
            json.declaration, folded.declaration,
        ])

    var format = SymbolicateCommand.Format.text
    var indexFolder: String?
    /// Payload dumps and row files, or with `--object` the addresses.
    var inputs: [String]
    var dsymsRoot: String?
    var build: String?
    var symbols: [String]
    var object: String?
    var uuid: String?
    var offsets: Bool

    func run(stdin: FileHandle, stdout: inout some TextOutputStream, stderr: inout some TextOutputStream) -> Int32 {
        if let object {
            return SymbolicateObject.run(
                object: object, uuid: uuid, offsets: offsets, indexFolder: indexFolder, addressArguments: inputs,
                stdin: stdin, format: format, stdout: &stdout, stderr: &stderr)
        }
        return SymbolicateStacks.run(
            inputs: inputs, root: dsymsRoot, build: build, indexFolder: indexFolder,
            systemSymbols: BuildSymbolizer.systemSymbolFolders(given: symbols, root: dsymsRoot),
            stdin: stdin, format: format, stdout: &stdout, stderr: &stderr)
    }

    init(_ parsed: CommandArguments) throws(UsageError) {
        let (json, folded) = (parsed.given(Self.json), parsed.given(Self.folded))
        if json && folded {
            throw UsageError(message: "Options '\(Self.json.name)' and '\(Self.folded.name)' cannot be combined.")
        }
        format = json ? .json : folded ? .folded : .text
        object = try parsed.value(Self.object)
        offsets = parsed.given(Self.offsets)
        if object == nil {
            if parsed.given(Self.uuid) { throw UsageError(message: "Option '\(Self.uuid.name)' needs '\(Self.object.name)'.") }
            if offsets { throw UsageError(message: "Option '\(Self.offsets.name)' needs '\(Self.object.name)'.") }
        } else {
            for option in [DebugFileArguments.dsyms, Self.build, DebugFileArguments.symbols] where parsed.given(option) {
                throw UsageError(message: "Option '\(option.name)' cannot be combined with '\(Self.object.name)'.")
            }
        }
        dsymsRoot = try parsed.value(DebugFileArguments.dsyms)
        build = try parsed.value(Self.build)
        symbols = try parsed.values(DebugFileArguments.symbols)
        inputs = parsed.positionals
        if object == nil, inputs.isEmpty {
            throw UsageError(message: "Missing input: give payload dumps or row files ('-' for standard input).")
        }
        indexFolder = try parsed.value(Self.indexFolder) ?? (parsed.given(Self.index) ? BuildSymbolizer.defaultIndexFolder : nil)
        uuid = try parsed.value(Self.uuid)
    }
}
