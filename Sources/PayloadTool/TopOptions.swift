import PayloadDecode
import StackSymbolize

/// `payload-tool top`'s options, checked.
struct TopOptions {
    enum Output { case text, json, folded }

    var inputs: [String]
    var build: Int?
    var count = 3
    var dsymsRoot: String?
    /// `--user`: makes the row keys of payload dumps match the ones `rows --user` wrote.
    var userID: String?
    /// `--db URL`: also rank the diagnostic rows stored in PostgreSQL.
    var databaseURL: String?
    var appImages: Set<String> = []
    /// `--symbols DIR`: system images' symbol files, searched by UUID.
    var systemSymbols: [String] = []
    var crashWeight = 1.0
    var output = Output.text

    /// The options `report` ranks its worst stacks with.
    init(dsymsRoot: String?, appImages: Set<String>, systemSymbols: [String], crashWeight: Double) {
        inputs = []
        self.dsymsRoot = dsymsRoot
        self.appImages = appImages
        self.systemSymbols = systemSymbols
        self.crashWeight = crashWeight
    }

    init(_ arguments: CommandArguments) throws(UsageError) {
        inputs = arguments.positionals
        databaseURL = arguments.value("--db")
        if databaseURL == "" { throw UsageError(message: "Option '--db' takes a PostgreSQL URL, not an empty string.") }
        guard !inputs.isEmpty || databaseURL != nil else {
            throw UsageError(message: "Missing input: give a row file or a payload dump ('-' for standard input), or --db URL.")
        }
        if inputs.filter({ $0 == "-" }).count > 1 {
            throw UsageError(message: "Standard input ('-') can be read only once.")
        }
        if let text = arguments.value("--build") {
            // A build is a number (SPEC section 4); anything else, such as '../../etc', never
            // reaches a path.
            guard let build = Int(text), build >= 0 else {
                throw UsageError(message: "Option '--build' takes a build number such as 131, not '\(text)'.")
            }
            self.build = build
        }
        if let text = arguments.value("--count") {
            guard let count = Int(text), count > 0 else {
                throw UsageError(message: "Option '--count' takes a positive whole number, not '\(text)'.")
            }
            self.count = count
        }
        if let text = arguments.value("--crash-weight") {
            guard let weight = Double(text), weight.isFinite, weight >= 0 else {
                throw UsageError(message: "Option '--crash-weight' takes seconds (0 or more), not '\(text)'.")
            }
            crashWeight = weight
        }
        // The same user flag as `rows` and `load`, so the row keys derived from it match theirs.
        userID = try ConversionArguments.conversionOptions(from: arguments).userID
        dsymsRoot = arguments.value("--dsyms")
        if dsymsRoot == "" { throw UsageError(message: "Option '--dsyms' takes a folder, not an empty string.") }
        appImages = Set(arguments.all("--app-image"))
        systemSymbols = BuildSymbolizer.systemSymbolFolders(given: arguments.all("--symbols"), root: dsymsRoot)
        if appImages.contains("") { throw UsageError(message: "Option '--app-image' takes an image name, not an empty string.") }
        switch (arguments.flag("--json"), arguments.flag("--folded")) {
        case (true, true): throw UsageError(message: "Options '--json' and '--folded' cannot be used together.")
        case (true, false): output = .json
        case (false, true): output = .folded
        case (false, false): output = .text
        }
    }
}
