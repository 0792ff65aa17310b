import Foundation
import PayloadDecode
import SystemIO

/// `payload-tool rows`' options, declared once: parsing, usage and help all come from here.
struct RowsOptions: CommandOptions {
    static let format = CommandOption(
        "--format",
        parser: .choice(
            ["json": RowFormat.json, "jsonl": .jsonl, "csv": .csv, "sql": .sql],
            .invalidValue(detail: " (json, jsonl, csv or sql).")),
        help: [
            "json (default: one JSON array, every column), jsonl, csv or sql",
            "(INSERT ... ON CONFLICT DO NOTHING).",
        ])
    static let output = CommandOption(
        "--output", "FILE", parser: .text,
        help: ["Write here (atomically: complete or not at all) instead of stdout."])
    static let jobs = CommandOption(
        "--jobs", "N", parser: .integer(in: 1...64, .invalidValue(detail: " (1 to 64).")),
        help: [
            "Files converted at once (default: the cores, at most 4). Output",
            "order and bytes do not depend on it.",
        ])
    static let file = PositionalArgument(
        placeholder: "FILE", help: ["A payload dump, row file, crash report, zip or folder; - for standard", "input."])

    static let description = CommandDescription(
        name: "rows",
        abstract: "Convert payload dumps to yui_perf rows.",
        overview: """
            OVERVIEW: Convert MetricKit payload dumps to yui_perf rows.

            Each input is a metric payload, a diagnostic payload, a single diagnostic, a JSON array of
            these, or JSON Lines of them (the kind is read from the keys), or an Apple crash report.
            Row files written by this command are read back as they are. Folders are read
            recursively and zips entry by entry; what in them is none of these is skipped.
            """,
        usage: [
            [.optional(format.declaration)] + ConversionArguments.usage
                + [
                    .optional(output.declaration), .optional(jobs.declaration), .optional(InputArguments.fromList.declaration),
                    .positional(file, optional: true, repeating: true),
                ]
        ],
        arguments: [file],
        options: [format.declaration] + ConversionArguments.options() + [
            output.declaration, jobs.declaration, InputArguments.fromList.declaration,
        ],
        epilogue: """
            Warnings and errors go to stderr, naming the file and the place.
            """,
        exitStatuses: [
            ExitStatus(0, "Every input was converted."),
            ExitStatus(1, "Some input failed; the rest were still converted and written."), .usage,
        ])

    var format: RowFormat
    var conversion: ConversionOptions
    var outputPath: String?
    var jobs: Int
    var inputs: [String]
    var fromLists: [String]

    init(_ parsed: CommandArguments) throws(UsageError) {
        format = try parsed.value(Self.format) ?? .json
        conversion = try ConversionArguments.conversionOptions(from: parsed)
        (inputs, fromLists) = try InputArguments.inputs(parsed)
        jobs = try parsed.value(Self.jobs) ?? Self.defaultJobs()
        outputPath = try parsed.value(Self.output)
        try OutputIsInput.refuse(output: outputPath, option: Self.output.name, inputs: inputs)
        try OutputIsInput.refuseReplacingRawData(output: outputPath, option: Self.output.name)
    }

    func run(stdin: FileHandle, stdout: inout some TextOutputStream, stderr: inout some TextOutputStream) -> Int32 {
        RowsCommand.convert(self, stdin: stdin, stdout: &stdout, stderr: &stderr)
    }

    /// One conversion thread per core (at most 4). Each input is converted and formatted by one
    /// thread, so a busy machine costs only the switching between them.
    static func defaultJobs() -> Int {
        Swift.min(Processes.processorCount, 4)
    }
}
