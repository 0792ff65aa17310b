import PayloadDecode
import StackSymbolize

/// `payload-tool top`'s options, declared once: parsing, usage and help all come from here.
struct TopOptions {
    enum Output { case text, json, folded }

    static let build = CommandOption(
        "--build", "BUILD", parser: .buildNumber, help: ["Only this build (its integer number, e.g. 131)."])
    static let count = CommandOption(
        "--count", "N", parser: .integer(in: 1...Int.max, .takes("a positive whole number")),
        help: ["How many signatures per build (default: 3)."])
    static let user = ConversionArguments.user.helping([
        "The user of payload dumps, so their row keys match 'rows --user';", "with --db, only that user's rows.",
    ])
    static let database = CommandOption(
        "--db", "URL", parser: .nonEmpty(.takesNonEmpty("a PostgreSQL URL")),
        help: ["Also rank the diagnostic rows stored in PostgreSQL (libpq URL)."])
    static let json = CommandFlag(
        "--json",
        help: [
            "Write JSON: per signature its build, kind, weight, count, max,", "frames with file and line, and row keys.",
        ])
    static let folded = CommandFlag(
        "--folded",
        help: [
            "Write folded stacks weighted in milliseconds, for flame-graph",
            "tools (all hangs and crashes, not only the top N).",
        ])
    static let file = PositionalArgument(
        placeholder: "FILE", help: ["A row file, payload dump, crash report, zip or folder; '-' reads", "standard input."])

    static let description = CommandDescription(
        name: "top",
        abstract: "List the heaviest hang and crash signatures per build.",
        overview: """
            OVERVIEW: List the heaviest hang and crash signatures per build.

            Reads row files (as 'payload-tool rows' writes them) and payload dumps, symbolicates each
            stack against its build's debug files, and groups the hangs and crashes of a build by
            signature: the simplified names of the top five app frames, innermost first. A hang
            weighs its duration, a crash weighs --crash-weight. Builds are listed newest first.
            """,
        usage: [
            [
                .optional(build.declaration), .optional(count.declaration),
                .optional(DebugFileArguments.dsyms.declaration), .optional(DebugFileArguments.appImage.declaration),
                .optional(DebugFileArguments.systemImage.declaration), .optional(DebugFileArguments.symbols.declaration),
                .optional(DebugFileArguments.crashWeight.declaration), .optional(DebugFileArguments.index.declaration),
                .optional(DebugFileArguments.indexFolder.declaration),
            ] + SymbolServerArguments.usage + [
                .optional(user.declaration), .optional(AppChoice.option.declaration), .oneOf([json.declaration, folded.declaration]),
                .optional(InputArguments.fromList.declaration),
                .either([
                    [.positional(file, repeating: true)],
                    [.required(database.declaration), .positional(file, optional: true, repeating: true)],
                ]),
            ]
        ],
        arguments: [file],
        options: [
            build.declaration, count.declaration, DebugFileArguments.dsyms.declaration,
            DebugFileArguments.appImage.declaration, DebugFileArguments.systemImage.declaration, DebugFileArguments.symbols.declaration,
            DebugFileArguments.crashWeight.declaration, DebugFileArguments.index.declaration,
            DebugFileArguments.indexFolder.declaration, user.declaration, AppChoice.option.declaration, database.declaration,
            json.declaration, folded.declaration, InputArguments.fromList.declaration,
        ] + SymbolServerArguments.all,
        exitStatuses: [
            ExitStatus(0, "Every input was read (frames without a debug file are ranked by image and offset)."),
            ExitStatus(1, "An input, --db or a debug file failed; the rest are still ranked and printed."), .usage,
        ])

    var inputs: [String]
    /// `--from-list FILE`: more inputs, one path a line.
    var fromLists: [String] = []
    var build: Int?
    var count = 3
    var dsymsRoot: String?
    /// `--user`: makes the row keys of payload dumps match the ones `rows --user` wrote.
    var userID: String?
    /// `--db URL`: also rank the diagnostic rows stored in PostgreSQL.
    var databaseURL: String?
    var appImages: Set<String> = []
    /// `--system-image NAME`: Apple's images whatever the store knows.
    var systemImages: Set<String> = []
    /// `--symbols DIR`: system images' symbol files, searched by UUID.
    var systemSymbols: [String] = []
    var crashWeight = 1.0
    var output = Output.text
    /// `--index` / `--index-folder DIR`: where symbol indexes are kept; nil answers from the debug files.
    var indexFolder: String?
    /// `--bundle-id ID`: only that app's rows (`AppChoice`).
    var bundleID: String?
    /// `--symbol-server` and its bounds: where UUIDs the store lacks are fetched from.
    var symbolServers: SymbolServerSettings?

    /// The options `report` ranks its worst stacks with.
    init(
        dsymsRoot: String?, appImages: Set<String>, systemImages: Set<String>, systemSymbols: [String], crashWeight: Double,
        symbolServers: SymbolServerSettings? = nil
    ) {
        inputs = []
        self.symbolServers = symbolServers
        self.dsymsRoot = dsymsRoot
        self.appImages = appImages
        self.systemImages = systemImages
        self.systemSymbols = systemSymbols
        self.crashWeight = crashWeight
    }

    init(_ arguments: CommandArguments) throws(UsageError) {
        inputs = arguments.positionals
        fromLists = try arguments.values(InputArguments.fromList)
        databaseURL = try arguments.value(Self.database)
        guard !inputs.isEmpty || !fromLists.isEmpty || databaseURL != nil else {
            throw UsageError(message: "Missing input: give a row file or a payload dump ('-' for standard input), or --db URL.")
        }
        if inputs.filter({ $0 == "-" }).count > 1 {
            throw UsageError(message: "Standard input ('-') can be read only once.")
        }
        build = try arguments.value(Self.build)
        count = try arguments.value(Self.count) ?? count
        crashWeight = try arguments.value(DebugFileArguments.crashWeight) ?? crashWeight
        // The same user option as `rows` and `load`, so the row keys derived from it match theirs.
        userID = try arguments.value(Self.user)
        bundleID = try arguments.value(AppChoice.option)
        dsymsRoot = try arguments.value(DebugFileArguments.dsymsNotEmpty)
        systemSymbols = BuildSymbolizer.systemSymbolFolders(
            given: try arguments.values(DebugFileArguments.symbols), root: dsymsRoot)
        appImages = Set(try arguments.values(DebugFileArguments.appImage))
        systemImages = Set(try arguments.values(DebugFileArguments.systemImage))
        indexFolder =
            try arguments.value(DebugFileArguments.indexFolder)
            ?? (arguments.given(DebugFileArguments.index) ? BuildSymbolizer.defaultIndexFolder : nil)
        symbolServers = try SymbolServerArguments.settings(arguments)
        switch (arguments.given(Self.json), arguments.given(Self.folded)) {
        case (true, true):
            throw UsageError(message: "Options '\(Self.json.name)' and '\(Self.folded.name)' cannot be used together.")
        case (true, false): output = .json
        case (false, true): output = .folded
        case (false, false): output = .text
        }
    }
}
