import Foundation
import PayloadDecode
import SpeedReport
import StackSymbolize

/// `payload-tool report`: the daily speed report, build against build (seed sections 6 to 8).
enum ReportCommand {
    static let usage =
        "Usage: payload-tool report [--days N] [--build B] [--json | --briefing | --yl] [--html FILE] (FILE... | --db URL --user UUID)"

    static let help = """
        OVERVIEW: The daily speed report: a build's intervals, hangs, hitches, memory, CPU, crashes
        and worst stacks, against the previous build with enough data.

        Reads every input 'rows' takes (payload dumps, row files, '-' for standard input) or the
        owner's rows in PostgreSQL. Histograms merge by adding counts; p50 and p95 come from the
        merged histogram; rates are weighted by foreground time. A build has enough data with any
        interval at 20 samples or 2 foreground hours. Each build's figures are kept in the
        summaries file, so a build stays comparable after its rows are deleted. See docs/report.md.

        USAGE: payload-tool report [options] FILE...
               payload-tool report [options] --db URL --user UUID

        ARGUMENTS:
          FILE                    A payload dump or row file; '-' reads standard input.

        OPTIONS:
          --days N                The window: the last N days of rows, ending at the newest row's
                                  hour (default: 1).
          --build B               Report build B (default: the newest build with enough data in
                                  the window).
          --json                  Write JSON: every figure of the text, 'worse' and 'briefing'.
          --briefing              Write only the briefing's line, and nothing when no figure got
                                  worse.
          --yl                    Write the Speed panel's lines (stat@speed-*, chart@speed-p95,
                                  card@speed-worst).
          --html FILE             Also write the report as one self-contained HTML page: the five
                                  tiles, p95 by build, the tables, and an icicle graph of the hang
                                  stacks behind each worst stack (no network needed to open it).
          --db URL                Read the rows from PostgreSQL as the owner's connector (role
                                  yui_connector, yui.uid set to --user): row level security applies.
          --user UUID             The owner (required with --db); for payload dumps, the user of
                                  their row keys.
          --budgets FILE          Budgets as JSON, replacing the seed's: {"intervals":
                                  {"keystroke_render": 33}, "hitch_ms_per_s": 5, "memory_mb": 300}.
          --summaries FILE        The build summaries file (default: ~/.yui-perf-builds.json).
          --dsyms ROOT            Folder of per-build debug-file folders for the worst stacks
                                  (default: $YUI_DSYMS, then ~/.yui-dsyms).
          --symbols DIR           System images' symbol files, searched by UUID (repeatable).
          --app-image NAME        Count frames of image NAME as app frames (repeatable).
          --crash-weight SECONDS  What one crash weighs among the worst stacks (default: 1).
          --timezone ZONE         Zone of zone-less payload timestamps (default: UTC).
          --promotion on|off      Overrides the ProMotion table for payload dumps.
          --period-start TIME     Period of single diagnostics without timestamps ('rows --help').
          --period-end TIME
          -h, --help              Show this help.

        """

    static let options: [OptionSpec] =
        [
            .value("--days"), .value("--build"), .flag("--json"), .flag("--briefing"), .flag("--yl"), .value("--html"), .value("--db"),
            .value("--budgets"), .value("--summaries"), .value("--dsyms"), .value("--symbols", repeatable: true),
            .value("--app-image", repeatable: true), .value("--crash-weight"),
        ] + ConversionArguments.options

    static func run(
        arguments: [String], stdin: FileHandle, stdout: inout some TextOutputStream,
        stderr: inout some TextOutputStream
    ) -> Int32 {
        let options: ReportOptions
        do {
            let parsed = try CommandArguments(arguments, options: Self.options)
            if parsed.wantsHelp {
                stdout.write(help)
                return PayloadTool.exitSuccess
            }
            options = try ReportOptions(parsed)
        } catch {
            return reportUsage(error, command: "report", usage: usage, to: &stderr)
        }
        return ReportRun(options: options).run(stdin: stdin, stdout: &stdout, stderr: &stderr)
    }
}

/// `payload-tool report`'s options, checked.
struct ReportOptions {
    enum Output { case text, json, briefing, panel }

    var inputs: [String]
    var days = 1
    var build: Int?
    var output = Output.text
    var databaseURL: String?
    var conversion: ConversionOptions
    var budgets = ReportBudgets.seed
    var summariesPath: String
    var ranking: TopOptions
    /// `--html FILE`: the page, written whole or not at all.
    var htmlPath: String?

    init(_ arguments: CommandArguments) throws(UsageError) {
        inputs = arguments.positionals
        databaseURL = arguments.value("--db")
        if databaseURL == "" { throw UsageError(message: "Option '--db' takes a PostgreSQL URL, not an empty string.") }
        conversion = try ConversionArguments.conversionOptions(from: arguments)
        if databaseURL != nil {
            guard conversion.userID != nil else {
                throw UsageError(message: "Option '--db' needs '--user UUID': the report reads one owner's rows, as their connector.")
            }
            guard inputs.isEmpty else { throw UsageError(message: "Give either files or '--db', not both.") }
        } else if inputs.isEmpty {
            throw UsageError(message: "Missing input: give a payload dump or row file ('-' for standard input), or --db URL --user UUID.")
        }
        if inputs.filter({ $0 == "-" }).count > 1 { throw UsageError(message: "Standard input ('-') can be read only once.") }
        if let text = arguments.value("--days") {
            guard let days = Int(text), days > 0, days <= 3650 else {
                throw UsageError(message: "Option '--days' takes a whole number of days from 1 to 3650, not '\(text)'.")
            }
            self.days = days
        }
        if let text = arguments.value("--build") {
            guard let build = Int(text), build >= 0 else {
                throw UsageError(message: "Option '--build' takes a build number such as 131, not '\(text)'.")
            }
            self.build = build
        }
        let outputs = [("--json", Output.json), ("--briefing", .briefing), ("--yl", .panel)].filter { arguments.flag($0.0) }
        if outputs.count > 1 {
            throw UsageError(message: "Options \(outputs.map { "'\($0.0)'" }.joined(separator: ", ")) cannot be used together.")
        }
        output = outputs.first?.1 ?? .text
        htmlPath = arguments.value("--html")
        if htmlPath == "" { throw UsageError(message: "Option '--html' takes a file, not an empty string.") }
        if let path = arguments.value("--budgets") {
            guard let bytes = FileManager.default.contents(atPath: path) else {
                throw UsageError(message: "Option '--budgets': cannot read '\(path)'.")
            }
            do {
                budgets = try ReportBudgets(json: [UInt8](bytes))
            } catch {
                throw UsageError(message: "Option '--budgets': \(path): \(error)")
            }
        }
        if let path = arguments.value("--summaries") {
            guard !path.isEmpty else { throw UsageError(message: "Option '--summaries' takes a file, not an empty string.") }
            summariesPath = path
        } else {
            summariesPath = FileManager.default.homeDirectoryForCurrentUser.appendingPathComponent(".yui-perf-builds.json").path
        }
        let dsymsRoot = arguments.value("--dsyms")
        if dsymsRoot == "" { throw UsageError(message: "Option '--dsyms' takes a folder, not an empty string.") }
        let appImages = Set(arguments.all("--app-image"))
        if appImages.contains("") { throw UsageError(message: "Option '--app-image' takes an image name, not an empty string.") }
        var crashWeight = 1.0
        if let text = arguments.value("--crash-weight") {
            guard let weight = Double(text), weight.isFinite, weight >= 0 else {
                throw UsageError(message: "Option '--crash-weight' takes seconds (0 or more), not '\(text)'.")
            }
            crashWeight = weight
        }
        ranking = TopOptions(
            dsymsRoot: dsymsRoot, appImages: appImages,
            systemSymbols: BuildSymbolizer.systemSymbolFolders(given: arguments.all("--symbols"), root: dsymsRoot),
            crashWeight: crashWeight)
    }
}
