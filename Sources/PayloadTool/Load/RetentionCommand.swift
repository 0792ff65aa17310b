import Foundation
import RowStore

/// `payload-tool retention`: the daily retention of `yui_perf` where pg_cron is not there to run it
/// (docs/postgres.md, "Partitions and retention"): a cron job, a CI schedule or a Kubernetes
/// CronJob runs this once a day.
enum RetentionCommand {
    static let keepDays = CommandOption(
        "--keep-days", "N", parser: .integer(in: 1...36_500, .isInvalidFor("a whole number from 1 to 36500")),
        help: ["Days of rows to keep (default: 90); whole weeks older than that are dropped."])
    static let weeksAhead = CommandOption(
        "--weeks-ahead", "N", parser: .integer(in: 0...520, .isInvalidFor("a whole number from 0 to 520")),
        help: ["Weeks of partitions to make ahead of today (default: 4)."])
    static let timeout = LoadCommand.timeout.helping([
        "Longest wait for connecting, for the retention, or for a lock held by",
        "another session (default: 60); past it nothing is changed and the exit is 1.",
    ])

    static let description = CommandDescription(
        name: "retention",
        abstract: "Drop the yui_perf weeks past retention; make the next ones.",
        overview: """
            OVERVIEW: Run the yui_perf table's daily retention: drop every week partition entirely older than the
            kept days (90 by default), delete the rows of those weeks that the default partition holds, and make
            the week partitions up to some weeks ahead, moving into each the rows the default partition holds for
            it. Where pg_cron is installed, db/yui_perf.sql schedules the same thing daily and this is not needed
            (see docs/postgres.md).
            """,
        usage: [
            [
                .required(LoadCommand.database.declaration), .optional(keepDays.declaration), .optional(weeksAhead.declaration),
                .optional(timeout.declaration),
            ]
        ],
        arguments: [],
        options: [LoadCommand.database.declaration, keepDays.declaration, weeksAhead.declaration, timeout.declaration],
        epilogue: """
            Prints one line per partition dropped or made ('dropped yui_perf_20260831: 6912 rows'), then the weeks
            the table has. The login must own yui_perf (the migration's owner).
            """,
        exitStatuses: [
            ExitStatus(0, "The retention ran (also when there was nothing to drop or make)."),
            ExitStatus(1, "The database could not be reached, or refused it; nothing was changed."),
            .usage,
        ])

    struct Options {
        var database: DatabaseURL
        var keepDays: Int
        var weeksAhead: Int
        var timeout: Int
    }

    static func run(_ options: Options, stdout: inout some TextOutputStream, stderr: inout some TextOutputStream) -> Int32 {
        let steps: [RowDatabase.RetentionStep]
        let weeks: [(name: String, starts: String, ends: String)]
        do {
            let database = try RowDatabase(url: options.database, timeout: options.timeout)
            steps = try database.maintain(keepDays: options.keepDays, weeksAhead: options.weeksAhead)
            weeks = try database.weekPartitions()
        } catch {
            stderr.write("error: \(error.message)\n")
            return PayloadTool.exitFailure
        }
        for step in steps {
            switch step.action {
            case .dropped: stdout.write("dropped \(step.partition): \(step.rows) rows\n")
            case .deleted: stdout.write("deleted \(step.rows) rows of \(step.partition) older than the kept weeks\n")
            case .made where step.rows > 0: stdout.write("made \(step.partition), moved \(step.rows) rows into it\n")
            case .made: stdout.write("made \(step.partition)\n")
            }
        }
        if let first = weeks.first, let last = weeks.last {
            stdout.write("yui_perf: \(weeks.count) week partitions, \(first.starts) to \(last.ends)\n")
        } else {
            stdout.write("yui_perf: no week partitions\n")
        }
        return PayloadTool.exitSuccess
    }
}

extension RetentionCommand.Options: CommandOptions {
    static var description: CommandDescription { RetentionCommand.description }

    init(_ parsed: CommandArguments) throws(UsageError) {
        guard let url = try parsed.value(LoadCommand.database), !url.isEmpty else {
            throw parsed.missing(LoadCommand.database)
        }
        guard parsed.positionals.isEmpty else {
            throw UsageError(message: "Unexpected argument '\(parsed.positionals[0])'.")
        }
        self.init(
            database: DatabaseURL(url), keepDays: try parsed.value(RetentionCommand.keepDays) ?? 90,
            weeksAhead: try parsed.value(RetentionCommand.weeksAhead) ?? 4,
            timeout: try parsed.value(RetentionCommand.timeout) ?? LoadCommand.defaultTimeout)
    }

    func run(stdin: FileHandle, stdout: inout some TextOutputStream, stderr: inout some TextOutputStream) -> Int32 {
        RetentionCommand.run(self, stdout: &stdout, stderr: &stderr)
    }
}
