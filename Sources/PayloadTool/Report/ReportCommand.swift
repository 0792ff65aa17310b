import Foundation
import PayloadDecode
import SpeedReport
import StackSymbolize
import SystemIO

/// `payload-tool report`: the daily speed report, build against build (docs/report.md).
/// `payload-tool report`'s options, declared once: parsing, usage and help all come from here.
struct ReportOptions: CommandOptions {
    enum Output { case text, json, briefing, panel }

    func run(stdin: FileHandle, stdout: inout some TextOutputStream, stderr: inout some TextOutputStream) -> Int32 {
        ReportRun(options: self).run(stdin: stdin, stdout: &stdout, stderr: &stderr)
    }

    static let days = CommandOption(
        "--days", "N", parser: .integer(in: 1...3650, .takes("a whole number of days from 1 to 3650")),
        help: ["The window: the last N days of rows, ending at the newest row's", "hour (default: 1)."])
    static let build = CommandOption(
        "--build", "BUILD", parser: .buildNumber,
        help: ["Report this build (default: the newest build with enough data in", "the window)."])
    static let appName = CommandOption(
        "--app-name", "NAME",
        parser: .accepting(refusal: .invalidValue(detail: ": 1 to 64 characters, none of them a control character.")) { name in
            name.isEmpty || name.count > 64 || name.unicodeScalars.contains { $0.properties.generalCategory == .control } ? nil : name
        },
        help: [
            "The app's name in the title and the briefing (default: the last part", "of the app's bundle identifier, else Yui, the seed's).",
        ])
    static let json = CommandFlag("--json", help: ["Write JSON: every figure of the text, 'worse' and 'briefing'."])
    static let briefing = CommandFlag(
        "--briefing", help: ["Write only the briefing's line, and nothing when no figure got", "worse."])
    static let panel = CommandFlag(
        "--yl", help: ["Write the Speed panel's lines (stat@speed-*, chart@speed-p95,", "card@speed-worst)."])
    static let html = CommandOption(
        "--html", "FILE", parser: .nonEmpty(.takesNonEmpty("a file")),
        help: [
            "Also write the report as one self-contained HTML page: the five",
            "tiles, p95 by build, the tables, and an icicle graph of the hang",
            "stacks behind each worst stack (no network needed to open it).",
        ])
    static let database = CommandOption(
        "--db", "URL", parser: .nonEmpty(.takesNonEmpty("a PostgreSQL URL")),
        help: [
            "Read the rows from PostgreSQL as the owner's connector (role",
            "yui_connector, yui.uid set to --user): row level security applies.",
        ])
    static let user = ConversionArguments.user.helping([
        "The owner (required with --db); for payload dumps, the user of", "their row keys.",
    ])
    static let budgets = CommandOption(
        "--budgets", "FILE", parser: budgetsFile,
        help: [
            "Budgets as JSON, replacing the defaults: {\"intervals\":",
            "{\"keystroke_render\": 33}, \"hitch_ms_per_s\": 5, \"memory_mb\": 300}.",
        ])
    /// `--budget NAME=MS`: one interval's p95 budget.
    struct IntervalBudget: Sendable {
        var name: String
        var milliseconds: Double
    }
    private static let intervalBudget = ValueParser<IntervalBudget>.accepting(
        refusal: .invalidValue(detail: ": an interval name, '=', and a p95 budget in ms above 0 (--budget load_feed_5f2c0e1a_mk=400).")
    ) { text in
        let parts = text.split(separator: "=", maxSplits: 1).map(String.init)
        guard parts.count == 2, ColumnPatterns.isName(parts[0]), let ms = Double(parts[1]), ms.isFinite, ms > 0 else { return nil }
        return IntervalBudget(name: parts[0], milliseconds: ms)
    }
    static let budget = CommandOption(
        "--budget", "NAME=MS", parser: intervalBudget, repeatable: true,
        help: [
            "A p95 budget for one interval, on top of the defaults and --budgets",
            "(repeatable): a MetricKit signpost's row, or one of the app's own.",
        ])
    static let minConfidence = CommandOption(
        "--min-confidence", "P",
        parser: .accepting(refusal: .takes("a share from 0 to 1")) { text in Double(text).flatMap { (0...1).contains($0) ? $0 : nil } },
        help: [
            "Keep the briefing to worse items at least this sure (the share of",
            "resamples by phone in which the rule still fires); the text marks",
            "the others WORSE? (default: 0, every item).",
        ])
    static let summaries = CommandOption(
        "--summaries", "FILE", parser: .nonEmpty(.takesNonEmpty("a file")),
        help: [
            "The build summaries file (default: ~/.yui-perf-builds.json, or", "~/.yui-perf-builds.ID.json for an app whose rows name ID).",
        ])
    static let file = PositionalArgument(
        placeholder: "FILE", help: ["A payload dump, row file, crash report, zip or folder; '-' reads", "standard input."])

    /// A budgets file, read and checked while the options are.
    private static let budgetsFile = ValueParser<ReportBudgets> { path, option throws(UsageError) in
        guard let bytes = FileManager.default.contents(atPath: path) else {
            throw UsageError(message: "Option '\(option.name)': cannot read '\(path)'.")
        }
        do {
            return try ReportBudgets(json: [UInt8](bytes))
        } catch {
            throw UsageError(message: "Option '\(option.name)': \(path): \(error)")
        }
    }

    static let description = CommandDescription(
        name: "report",
        abstract: "The daily speed report, build against build.",
        overview: """
            OVERVIEW: The daily speed report: a build's intervals, hangs, hitches, memory, CPU, crashes
            and worst stacks, against the previous build with enough data.

            Reads every input 'rows' takes (payload dumps, row files, '-' for standard input) or the
            owner's rows in PostgreSQL. Histograms merge by adding counts; p50 and p95 come from the
            merged histogram; rates are weighted by foreground time. A build has enough data with any
            interval at 20 samples or 2 foreground hours. Each build's figures are kept in the
            summaries file, so a build stays comparable after its rows are deleted. See docs/report.md.
            """,
        usage: [
            [
                .optional(days.declaration), .optional(build.declaration), .optional(AppChoice.option.declaration),
                .optional(appName.declaration),
                .oneOf([json.declaration, briefing.declaration, panel.declaration]), .optional(html.declaration),
                .optional(budgets.declaration), .optional(budget.declaration), .optional(minConfidence.declaration),
                .optional(summaries.declaration),
                .optional(DebugFileArguments.dsyms.declaration), .optional(DebugFileArguments.symbols.declaration),
                .optional(DebugFileArguments.appImage.declaration), .optional(DebugFileArguments.systemImage.declaration),
                .optional(DebugFileArguments.crashWeight.declaration),
            ] + SymbolServerArguments.usage + ConversionArguments.usage.dropFirst() + [
                .optional(InputArguments.fromList.declaration),
                .either([
                    [.positional(file, repeating: true)], [.required(database.declaration), .required(user.declaration)],
                ]),
            ]
        ],
        arguments: [file],
        options: [
            days.declaration, build.declaration, AppChoice.option.declaration, appName.declaration, json.declaration, briefing.declaration,
            panel.declaration,
            html.declaration, database.declaration, user.declaration, budgets.declaration, budget.declaration, minConfidence.declaration,
            summaries.declaration,
            DebugFileArguments.dsyms.declaration, DebugFileArguments.symbols.declaration,
            DebugFileArguments.appImage.declaration, DebugFileArguments.systemImage.declaration,
            DebugFileArguments.crashWeight.declaration, InputArguments.fromList.declaration,
        ] + SymbolServerArguments.all + ConversionArguments.options(user: user.declaration).dropFirst(),
        exitStatuses: [
            ExitStatus(0, "Every input was read and every output written (also when no figure got worse)."),
            ExitStatus(1, "An input, --db, a debug file or the --html page failed; the report of the rest is still printed."),
            .usage,
        ])

    var inputs: [String]
    /// `--from-list FILE`: more inputs, one path a line.
    var fromLists: [String] = []
    var days = 1
    var build: Int?
    /// `--app-name`: the title's and the briefing's name; nil takes it from the app's bundle identifier.
    var appName: String?
    /// `--bundle-id`: only that app's rows (`AppChoice`).
    var bundleID: String?
    var output = Output.text
    var databaseURL: String?
    var conversion: ConversionOptions
    var budgets = ReportBudgets.seed
    /// `--min-confidence`: the briefing keeps worse items at least this sure.
    var minConfidence = 0.0
    /// `--summaries`; nil is the default file of the reported app (`defaultSummariesPath`).
    var summariesPath: String?
    var ranking: TopOptions
    /// `--html FILE`: the page, written whole or not at all.
    var htmlPath: String?

    init(_ arguments: CommandArguments) throws(UsageError) {
        inputs = arguments.positionals
        fromLists = try arguments.values(InputArguments.fromList)
        databaseURL = try arguments.value(Self.database)
        conversion = try ConversionArguments.conversionOptions(from: arguments)
        if databaseURL != nil {
            guard conversion.userID != nil else {
                throw UsageError(message: "Option '--db' needs '--user UUID': the report reads one owner's rows, as their connector.")
            }
            guard inputs.isEmpty, fromLists.isEmpty else { throw UsageError(message: "Give either files or '--db', not both.") }
        } else if inputs.isEmpty, fromLists.isEmpty {
            throw UsageError(message: "Missing input: give a payload dump or row file ('-' for standard input), or --db URL --user UUID.")
        }
        if inputs.filter({ $0 == "-" }).count > 1 { throw UsageError(message: "Standard input ('-') can be read only once.") }
        days = try arguments.value(Self.days) ?? days
        build = try arguments.value(Self.build)
        appName = try arguments.value(Self.appName)
        bundleID = try arguments.value(AppChoice.option)
        let outputs = [(Self.json, Output.json), (Self.briefing, .briefing), (Self.panel, .panel)].filter { arguments.given($0.0) }
        if outputs.count > 1 {
            throw UsageError(message: "Options \(outputs.map { "'\($0.0.name)'" }.joined(separator: ", ")) cannot be used together.")
        }
        output = outputs.first?.1 ?? .text
        htmlPath = try arguments.value(Self.html)
        try OutputIsInput.refuse(output: htmlPath, option: Self.html.name, inputs: inputs)
        try OutputIsInput.refuseReplacingRawData(output: htmlPath, option: Self.html.name)
        budgets = try arguments.value(Self.budgets) ?? budgets
        for given in try arguments.values(Self.budget) {
            if let index = budgets.intervals.firstIndex(where: { $0.name == given.name }) {
                budgets.intervals[index].p95 = given.milliseconds
            } else {
                budgets.intervals.append((given.name, given.milliseconds))
            }
        }
        minConfidence = try arguments.value(Self.minConfidence) ?? minConfidence
        summariesPath = try arguments.value(Self.summaries)
        try OutputIsInput.refuse(
            output: summariesPath ?? Self.defaultSummariesPath(bundleID: bundleID), option: Self.summaries.name, inputs: inputs)
        try OutputIsInput.refuseReplacingRawData(output: summariesPath, option: Self.summaries.name)
        let dsymsRoot = try arguments.value(DebugFileArguments.dsymsNotEmpty)
        let appImages = Set(try arguments.values(DebugFileArguments.appImage))
        let crashWeight = try arguments.value(DebugFileArguments.crashWeight) ?? 1.0
        ranking = TopOptions(
            dsymsRoot: dsymsRoot, appImages: appImages, systemImages: Set(try arguments.values(DebugFileArguments.systemImage)),
            systemSymbols: BuildSymbolizer.systemSymbolFolders(given: try arguments.values(DebugFileArguments.symbols), root: dsymsRoot),
            crashWeight: crashWeight, symbolServers: try SymbolServerArguments.settings(arguments))
    }

    /// The summaries file of an app: `~/.yui-perf-builds.json` for rows that name no app (the
    /// seed's phone rows), `~/.yui-perf-builds.ID.json` for an app whose rows name its bundle
    /// identifier, so two apps' build 1 never share an entry (docs/report.md, "One app").
    static func defaultSummariesPath(bundleID: String?) -> String {
        HomeFolder.appending(bundleID.map { ".yui-perf-builds.\($0).json" } ?? ".yui-perf-builds.json")
    }
}
