import Foundation
import PayloadDecode
import StackSymbolize

/// `payload-tool symbolicate`: the stacks of payload dumps or row files, or addresses in one debug
/// file (atos / llvm-symbolizer style).
enum SymbolicateCommand {
    /// `text` is the layout of Apple's crash reports; `atos` is atos's `function (in image)
    /// (file:line)`.
    enum Format { case text, atos, json, folded }
}

/// What the addresses given to `symbolicate --object` are, and so how each becomes the address
/// looked up in the debug file.
enum AddressForm: Equatable {
    /// Addresses in the debug file's own address space (its text base included), looked up as given.
    case fileAddress
    /// `--offsets`: offsets from the image's text base, as MetricKit reports frames.
    case offsets
    /// `-l ADDRESS`: runtime addresses of an image loaded at ADDRESS (atos): looked up at
    /// address − ADDRESS + the image's text base.
    case runtime(loadAddress: UInt64)
    /// `-s OFFSET`: runtime addresses of an image slid by OFFSET (atos `-s`, llvm-symbolizer
    /// `--adjust-vma`): looked up at address − OFFSET.
    case slid(by: UInt64)

    /// What is subtracted from a given address before the lookup, and whether the result is an
    /// offset from the text base (then the symbolizer adds the text base) or a file address.
    var shift: (amount: UInt64, isOffset: Bool) {
        switch self {
        case .fileAddress: (0, false)
        case .offsets: (0, true)
        case .runtime(let loadAddress): (loadAddress, true)
        case .slid(let slide): (slide, false)
        }
    }
}

/// `payload-tool symbolicate`'s options, declared once: parsing, usage, help, the man page and the
/// shell completions all come from here.
struct SymbolicateOptions: CommandOptions {
    static let build = CommandOption(
        "--build", "BUILD", parser: .buildFolderName,
        help: ["Use this build folder for every row (default: each row's app_build)."])
    static let object = CommandOption(
        "--object", "PATH", aliases: ["-o", "--obj"], parser: .text,
        help: ["A debug file, .dSYM bundle or folder to look addresses up in", "(-o as atos spells it, --obj as llvm-symbolizer does)."])
    static let uuid = CommandOption(
        "--uuid", "UUID", parser: .imageUUID(.needs("a UUID")), help: ["With --object: the slice of a fat file to use."])
    static let arch = CommandOption(
        "--arch", "NAME", aliases: ["-arch", "--default-arch"], parser: .architecture,
        help: [
            "With --object: the slice of a fat file to use, by architecture",
            "(arm64e takes an arm64 slice when there is no arm64e one).",
        ])
    static let offsets = CommandFlag("--offsets", help: ["With --object: the values are offsets from the text base."])
    static let loadAddress = CommandOption(
        "--load-address", "ADDRESS", aliases: ["-l"], parser: .address,
        help: [
            "With --object: the values are runtime addresses of the image loaded",
            "at ADDRESS (atos): each is looked up at value - ADDRESS + text base.",
        ])
    static let slide = CommandOption(
        "--slide", "OFFSET", aliases: ["-s", "--adjust-vma"], parser: .address,
        help: [
            "With --object: the values are runtime addresses of the image slid",
            "by OFFSET (atos -s, llvm-symbolizer --adjust-vma): looked up at",
            "value - OFFSET.",
        ])
    static let atosStyle = CommandFlag(
        "--atos-style", help: ["With --object: atos's lines, 'function (in image) (file:line)'."])
    static let noDemangle = CommandFlag(
        "--no-demangle", aliases: ["-d"], help: ["With --object: names as stored (mangled) in text, atos and folded output."])
    static let inlines = CommandFlag(
        "--inlines", aliases: ["-i"], help: ["Accepted for atos and llvm-symbolizer: inlined frames are always shown."])
    static let functions = CommandOption(
        "--functions", parser: .choice(["linkage": true], .invalidValue(detail: " (linkage: names are always shown).")),
        help: ["Accepted for llvm-symbolizer: function names are always shown."])
    static let outputStyle = CommandOption(
        "--output-style",
        parser: .choice(["JSON": SymbolicateCommand.Format.json], .invalidValue(detail: " (JSON, the same as --json).")),
        help: ["llvm-symbolizer's spelling of --json (its other styles are not written)."])
    static let index = DebugFileArguments.index
    static let indexFolder = DebugFileArguments.indexFolder
    static let reportFormat = CommandOption(
        "--format", "FORM",
        parser: .choice(
            ["text": SymbolicateCrashReports.Format.text, "ips": .ips], .invalidValue(detail: " (text or ips, for crash reports).")),
        help: [
            "Apple crash reports (.ips, .crash) written back symbolicated: text, Apple's",
            "readable layout with every thread; ips, the report with Xcode's symbol keys.",
        ])
    static let json = CommandFlag("--json", help: ["Machine output (stable, sorted keys, snake_case)."])
    static let folded = CommandFlag("--folded", help: ["Folded stacks for flame-graph tools ('outer;inner count')."])
    static let allSamples = CommandFlag(
        "--all-samples",
        help: [
            "For a bare call-stack tree (MXCallStackTree JSON, with --build): every",
            "sample path with its weight, not only each call stack's heaviest path;",
            "with --folded, the flame graph of the tree.",
        ])
    static let verbose = CommandFlag(
        "--verbose",
        help: [
            "Say on standard error how each debug file was read: from its symbol index, or over",
            "its section bytes, with what libdw read instead and why.",
        ])
    static let file = PositionalArgument(
        placeholder: "FILE",
        help: [
            "Payload dumps, row files, Apple crash reports (.ips, .crash), zips or", "folders of them; '-' reads standard input.",
        ])
    static let address = PositionalArgument(
        placeholder: "ADDRESS", help: ["With --object: 0x-prefixed hex or decimal addresses."])

    static let description = CommandDescription(
        name: "symbolicate",
        abstract: "Symbolicate the stacks of payload dumps or row files, or addresses (atos style).",
        overview: """
            OVERVIEW: Symbolicate the stacks of payload dumps or row files, or addresses in one debug file.

            Stacks are matched to debug files by image UUID in the build's folder, ROOT/BUILD/.
            Every frame but the innermost is a return address and is looked up at its caller's
            instruction. With --object, addresses are looked up exactly as given (or as offsets, or as
            runtime addresses with --load-address or --slide), one per argument or one per line on
            standard input, and answered in the same order.
            """,
        usage: [
            [
                .optional(DebugFileArguments.dsyms.declaration), .optional(build.declaration),
                .optional(DebugFileArguments.symbols.declaration), .optional(index.declaration),
                .optional(indexFolder.declaration),
                .oneOf([json.declaration, outputStyle.declaration, folded.declaration, reportFormat.declaration]),
                .optional(allSamples.declaration), .optional(verbose.declaration), .optional(InputArguments.fromList.declaration),
            ] + SymbolServerArguments.usage + [
                .positional(file, optional: true, repeating: true)
            ],
            [
                .required(object.declaration), .oneOf([uuid.declaration, arch.declaration]),
                .oneOf([offsets.declaration, loadAddress.declaration, slide.declaration]),
                .optional(noDemangle.declaration), .optional(inlines.declaration), .optional(functions.declaration),
                .optional(index.declaration), .optional(indexFolder.declaration),
                .oneOf([json.declaration, outputStyle.declaration, folded.declaration, atosStyle.declaration]),
                .optional(verbose.declaration), .positional(address, optional: true, repeating: true),
            ],
        ],
        arguments: [file, address],
        options: [
            DebugFileArguments.dsyms.declaration, build.declaration, DebugFileArguments.symbols.declaration,
            object.declaration, uuid.declaration, arch.declaration, offsets.declaration, loadAddress.declaration,
            slide.declaration, atosStyle.declaration, noDemangle.declaration, inlines.declaration, functions.declaration,
            outputStyle.declaration, index.declaration, indexFolder.declaration, json.declaration, folded.declaration,
            reportFormat.declaration, allSamples.declaration, verbose.declaration, InputArguments.fromList.declaration,
        ] + SymbolServerArguments.all,
        epilogue: """
            Text output is the layout of Apple's crash reports: index, image, address, then the function
            with '+ N', the file and line, one line per frame (inlined frames marked). Its address column
            is the value as given: with --object the address as typed, for a stack the frame's offset into
            its image. A frame nothing names stays 'image + offset' with the reason.
            """,
        exitStatuses: [
            ExitStatus(
                0, "Every input was read and every value was an address (frames without a debug file or symbol are answered, not failures)."),
            ExitStatus(1, "An input or a debug file could not be read, or a value was no address; the rest are still answered."),
            .usage,
        ])

    var format = SymbolicateCommand.Format.text
    /// `--format text|ips`: crash reports written back.
    var reportFormat: SymbolicateCrashReports.Format?
    var indexFolder: String?
    /// Payload dumps and row files, or with `--object` the addresses.
    var inputs: [String]
    /// `--from-list FILE`: more inputs, one path a line.
    var fromLists: [String] = []
    var dsymsRoot: String?
    var build: String?
    var symbols: [String]
    var object: String?
    var uuid: String?
    var arch: String?
    var addressForm = AddressForm.fileAddress
    var demangles = true
    var verbose = false
    var allSamples = false
    /// `--symbol-server` and its bounds: where UUIDs the store lacks are fetched from.
    var symbolServers: SymbolServerSettings?

    func run(stdin: FileHandle, stdout: inout some TextOutputStream, stderr: inout some TextOutputStream) -> Int32 {
        if let object {
            let request = SymbolicateObject.Request(
                object: object, uuid: uuid, arch: arch, form: addressForm, demangles: demangles, indexFolder: indexFolder, format: format,
                verbose: verbose)
            return SymbolicateObject.run(request, addressArguments: inputs, stdin: stdin, stdout: &stdout, stderr: &stderr)
        }
        let list = InputList.expand(inputs, fromLists: fromLists, standardInput: stdin)
        if let reportFormat {
            return SymbolicateCrashReports.run(
                inputs: list, root: dsymsRoot, build: build, indexFolder: indexFolder,
                systemSymbols: BuildSymbolizer.systemSymbolFolders(given: symbols, root: dsymsRoot), symbolServers: symbolServers,
                format: reportFormat, stdin: stdin, stdout: &stdout, stderr: &stderr)
        }
        return SymbolicateStacks.run(
            inputs: list, root: dsymsRoot, build: build, indexFolder: indexFolder,
            systemSymbols: BuildSymbolizer.systemSymbolFolders(given: symbols, root: dsymsRoot), symbolServers: symbolServers,
            stdin: stdin, format: format, verbose: verbose, allSamples: allSamples, stdout: &stdout, stderr: &stderr)
    }

    init(_ parsed: CommandArguments) throws(UsageError) {
        let formats: [(String, SymbolicateCommand.Format)] = [
            (parsed.given(Self.json), Self.json.name, SymbolicateCommand.Format.json),
            (parsed.given(Self.outputStyle), Self.outputStyle.name, .json), (parsed.given(Self.folded), Self.folded.name, .folded),
            (parsed.given(Self.atosStyle), Self.atosStyle.name, .atos), (parsed.given(Self.reportFormat), Self.reportFormat.name, .text),
        ].filter(\.0).map { ($0.1, $0.2) }
        if formats.count > 1 {
            throw UsageError(message: "Options \(formats.map { "'\($0.0)'" }.joined(separator: " and ")) cannot be combined.")
        }
        format = try parsed.value(Self.outputStyle) ?? formats.first?.1 ?? .text
        reportFormat = try parsed.value(Self.reportFormat)
        object = try parsed.value(Self.object)
        let forms = [
            (parsed.given(Self.offsets), Self.offsets.name), (parsed.given(Self.loadAddress), Self.loadAddress.name),
            (parsed.given(Self.slide), Self.slide.name),
        ].filter(\.0).map(\.1)
        if object == nil {
            // What only a debug file named by --object gives meaning to.
            let objectOnly = [
                (parsed.given(Self.uuid), Self.uuid.name), (parsed.given(Self.arch), Self.arch.name),
                (parsed.given(Self.offsets), Self.offsets.name), (parsed.given(Self.loadAddress), Self.loadAddress.name),
                (parsed.given(Self.slide), Self.slide.name), (parsed.given(Self.atosStyle), Self.atosStyle.name),
                (parsed.given(Self.noDemangle), Self.noDemangle.name), (parsed.given(Self.inlines), Self.inlines.name),
                (parsed.given(Self.functions), Self.functions.name),
            ].filter(\.0).map(\.1)
            if let first = objectOnly.first { throw UsageError(message: "Option '\(first)' needs '\(Self.object.name)'.") }
        } else {
            for option in [DebugFileArguments.dsyms, Self.build, DebugFileArguments.symbols, SymbolServerArguments.server]
            where parsed.given(option) {
                throw UsageError(message: "Option '\(option.name)' cannot be combined with '\(Self.object.name)'.")
            }
            if parsed.given(Self.reportFormat) {
                throw UsageError(message: "Option '\(Self.reportFormat.name)' cannot be combined with '\(Self.object.name)'.")
            }
            if forms.count > 1 {
                throw UsageError(message: "Options \(forms.map { "'\($0)'" }.joined(separator: " and ")) cannot be combined.")
            }
            if parsed.given(Self.uuid), parsed.given(Self.arch) {
                throw UsageError(message: "Options '\(Self.uuid.name)' and '\(Self.arch.name)' cannot be combined: each picks the slice.")
            }
        }
        dsymsRoot = try parsed.value(DebugFileArguments.dsyms)
        build = try parsed.value(Self.build)
        symbols = try parsed.values(DebugFileArguments.symbols)
        inputs = parsed.positionals
        fromLists = try parsed.values(InputArguments.fromList)
        if object != nil, !fromLists.isEmpty {
            throw UsageError(message: "Option '\(InputArguments.fromList.name)' cannot be combined with '\(Self.object.name)'.")
        }
        if object == nil, inputs.isEmpty, fromLists.isEmpty {
            throw UsageError(message: "Missing input: give payload dumps, row files, crash reports or folders ('-' for standard input).")
        }
        indexFolder = try parsed.value(Self.indexFolder) ?? (parsed.given(Self.index) ? BuildSymbolizer.defaultIndexFolder : nil)
        uuid = try parsed.value(Self.uuid)
        arch = try parsed.value(Self.arch)
        // `--functions linkage` and `--inlines` say what is always done; their values are checked.
        _ = try parsed.value(Self.functions)
        if let loadAddress = try parsed.value(Self.loadAddress) {
            addressForm = .runtime(loadAddress: loadAddress)
        } else if let slide = try parsed.value(Self.slide) {
            addressForm = .slid(by: slide)
        } else if parsed.given(Self.offsets) {
            addressForm = .offsets
        }
        if object == nil { symbolServers = try SymbolServerArguments.settings(parsed) }
        demangles = !parsed.given(Self.noDemangle)
        verbose = parsed.given(Self.verbose)
        allSamples = parsed.given(Self.allSamples)
        if allSamples, object != nil || reportFormat != nil {
            throw UsageError(
                message: "Option '\(Self.allSamples.name)' is for call-stack trees: it cannot be combined with '--object' or '--format'.")
        }
    }
}
