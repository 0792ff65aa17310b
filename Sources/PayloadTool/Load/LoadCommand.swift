import Foundation
import PayloadDecode
import RowStore

/// `payload-tool load`: rows from payload dumps or row files into the `yui_perf` table (docs/postgres.md).
///
/// Each input is read through `RowSource`, cut into batches, and each batch is one transaction that
/// stores only the rows whose (user_id, row_key) the table does not hold (`RowDatabase.insert`: a
/// straight COPY, or the session table with `ON CONFLICT DO NOTHING`), so loading
/// the same dump again stores nothing new. A batch the table refuses rolls back alone; the other
/// batches and inputs still load (exit 1).
enum LoadCommand {
    static let database = CommandOption(
        "--db", "URL", parser: .text,
        help: [
            "The database: a libpq URL (postgresql://user@host:5432/db?sslmode=require)",
            "or key=value string. The password may be in the URL, in PGPASSWORD or in",
            "~/.pgpass; it is never printed.",
        ])
    static let user = ConversionArguments.user.helping([
        "user_id of the rows converted from payload dumps (row files carry theirs).",
        "A row without user_id is not stored.",
    ])
    static let batchSize = CommandOption(
        "--batch-size", "N", parser: .integer(in: 1...100_000, .isInvalidFor("a whole number from 1 to 100000")),
        help: ["Rows per transaction (default: 500)."])
    static let timeout = CommandOption(
        "--timeout", "SECONDS", parser: .integer(in: 1...86_400, .isInvalidFor("a whole number from 1 to 86400")),
        help: [
            "Longest wait for connecting, for one statement, for a lock held by",
            "another session, or for a silent server (default: 60); past it the",
            "load stops with exit 1.",
        ])
    static let createUsers = CommandFlag(
        "--create-users",
        help: [
            "Add each row's user_id to yui_users first. For test databases made with",
            "db/bare_database.sql; on Supabase the app owns yui_users.",
        ])
    static let file = PositionalArgument(
        placeholder: "FILE", help: ["A payload dump, row file, crash report, zip or folder; '-' reads", "standard input."])

    static let description = CommandDescription(
        name: "load",
        abstract: "Insert rows into PostgreSQL.",
        overview: """
            OVERVIEW: Insert rows into the yui_perf table of a PostgreSQL database.

            Payload dumps are converted as 'payload-tool rows' converts them; row files are loaded as they are.
            Each batch of rows is one transaction; rows already in the table (same user_id and row_key) are
            counted as duplicates and left alone. A batch the table refuses is rolled back and reported with the
            server's message and the row; the other batches still load. The table comes from db/yui_perf.sql
            (see docs/postgres.md).
            """,
        usage: [
            [.required(database.declaration), .optional(user.declaration)] + ConversionArguments.usage.dropFirst() + [
                .optional(batchSize.declaration), .optional(timeout.declaration), .optional(createUsers.declaration),
                .optional(InputArguments.fromList.declaration), .positional(file, optional: true, repeating: true),
            ]
        ],
        arguments: [file],
        options: [database.declaration] + ConversionArguments.options(user: user.declaration) + [
            batchSize.declaration, timeout.declaration, createUsers.declaration, InputArguments.fromList.declaration,
        ],
        epilogue: """
            Prints one line per input to standard output: 'FILE: N rows: I inserted, D duplicate, R not stored',
            and a total when there are several inputs.
            """,
        exitStatuses: [
            ExitStatus(0, "Every row is stored or was already there."),
            ExitStatus(1, "A row or an input failed, or the database could not be reached; the other batches still load."),
            .usage,
        ])

    static let defaultBatchSize = 500
    static let defaultTimeout = 60

    struct Options {
        var database: DatabaseURL
        var conversion: ConversionOptions
        var batchSize: Int
        var timeout: Int
        var createUsers: Bool
        var files: [String]
        var fromLists: [String] = []
    }

    static func load(
        _ options: Options, stdin: FileHandle, stdout: inout some TextOutputStream,
        stderr: inout some TextOutputStream
    ) -> Int32 {
        let database: RowDatabase
        do {
            database = try RowDatabase(url: options.database, timeout: options.timeout)
        } catch {
            stderr.write("error: \(error.message)\n")
            return PayloadTool.exitFailure
        }

        var total = LoadTally()
        let list = InputList.expand(options.files, fromLists: options.fromLists, standardInput: stdin)
        var anyFailed = !list.errors.isEmpty
        for error in list.errors { stderr.write("error: \(error)\n") }
        for warning in list.warnings { stderr.write("warning: \(warning)\n") }
        let items = list.items
        var skippedFiles = 0
        // Rows done and rows per second, even for one input: a load of a big row file takes minutes.
        let progress = ProgressLine(total: items.count, evenForOneInput: true)
        let started = DispatchTime.now().uptimeNanoseconds
        var rowsDone = 0
        func rate() -> String {
            let seconds = Double(DispatchTime.now().uptimeNanoseconds - started) / 1e9
            return seconds > 0 ? "\(Int(Double(rowsDone) / seconds)) rows/s" : ""
        }
        var messages = ProgressErasingStream(base: stderr, progress: progress)
        for (position, item) in items.enumerated() {
            progress.update(done: position, label: item.path)
            let name = item.displayName
            let batcher = LoadBatcher(
                database: database, file: name, batchSize: options.batchSize, createUsers: options.createUsers)
            let outcome = InputReading.read(
                item, options: options.conversion, standardInput: stdin,
                report: { diagnostic in
                    messages.write("\(diagnostic.severity.rawValue): \(options.database.scrub(diagnostic.description))\n")
                },
                emit: { row in
                    batcher.add(row)
                    rowsDone += 1
                    progress.update(done: position, label: "\(name): \(rowsDone) rows, \(rate())")
                    // Written as they come, so a long load shows its problems early.
                    for message in batcher.takeMessages() { messages.write(message + "\n") }
                })
            batcher.flush()
            for message in batcher.takeMessages() { messages.write(message + "\n") }
            total += batcher.tally
            if !outcome.succeeded || batcher.failed { anyFailed = true }
            skippedFiles += outcome.skipped
            // A file of a folder that is no input is counted in one note, not given a line.
            if outcome.skipped == 0 { stdout.write("\(name): \(batcher.tally.summary)\n") }
            if let fatal = batcher.fatalError {
                // The database itself failed (connection lost, no table, no permission): every later
                // input would fail the same way, so stop here and say what was left.
                messages.write("error: \(fatal.message)\n")
                let skipped = items.count - position - 1
                if skipped > 0 { messages.write("error: stopped; \(skipped) more input\(skipped == 1 ? "" : "s") not loaded\n") }
                anyFailed = true
                break
            }
        }
        progress.erase()
        stderr = messages.base
        if let note = InputReading.skippedNote(skippedFiles) { stderr.write(note + "\n") }
        if items.count > 1 { stdout.write("total: \(total.summary)\n") }
        return anyFailed ? PayloadTool.exitFailure : PayloadTool.exitSuccess
    }

    static func validate(_ parsed: CommandArguments) throws(UsageError) -> Options {
        guard let url = try parsed.value(database), !url.isEmpty else {
            throw parsed.missing(database)
        }
        let conversion = try ConversionArguments.conversionOptions(from: parsed)
        let batchSize = try parsed.value(Self.batchSize) ?? defaultBatchSize
        let timeout = try parsed.value(Self.timeout) ?? defaultTimeout
        let (files, fromLists) = try InputArguments.inputs(parsed)
        return Options(
            database: DatabaseURL(url), conversion: conversion, batchSize: batchSize, timeout: timeout,
            createUsers: parsed.given(createUsers), files: files, fromLists: fromLists)
    }
}

extension LoadCommand.Options: CommandOptions {
    static var description: CommandDescription { LoadCommand.description }

    init(_ arguments: CommandArguments) throws(UsageError) { self = try LoadCommand.validate(arguments) }

    func run(stdin: FileHandle, stdout: inout some TextOutputStream, stderr: inout some TextOutputStream) -> Int32 {
        LoadCommand.load(self, stdin: stdin, stdout: &stdout, stderr: &stderr)
    }
}
