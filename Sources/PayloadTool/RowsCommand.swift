import Foundation
import PayloadDecode

/// `payload-tool rows`: payload dumps (or row files) in, `yui_perf` rows out.
enum RowsCommand {
    static let usage = "Usage: payload-tool rows [--format json|jsonl|csv|sql] [--user UUID] [--timezone ZONE] [--promotion on|off] [--output FILE] <FILE|->..."

    static let help = """
        OVERVIEW: Convert MetricKit payload dumps to yui_perf rows.

        Each input is a metric payload, a diagnostic payload, a single diagnostic, a JSON array of
        these, or JSON Lines of them (the kind is read from the keys). Row files written by this
        command are read back as they are.

        USAGE: payload-tool rows [options] <FILE|->...

        ARGUMENTS:
          <FILE|->                A payload dump, or - for standard input.

        OPTIONS:
          --format <format>       json (default: one JSON array, every column), jsonl, csv or sql
                                  (INSERT ... ON CONFLICT (user_id, row_key) DO NOTHING).
          --user <uuid>           The user_id of every row (also part of each row_key).
          --timezone <zone>       Zone of timestamps written without one: an IANA name
                                  (Europe/Berlin) or +HH:MM / -HH:MM. Default UTC.
          --promotion <on|off>    Override the ProMotion table for every row.
          --output <file>         Write here (atomically: complete or not at all) instead of stdout.
          --jobs <n>              Files converted at once (default: the idle cores, at most 4, 1 on
                                  a busy machine). Output order and bytes do not depend on it.
          -h, --help              Show help information.

        Exit status: 0 all inputs converted, 1 some input failed (the rest were still converted),
        64 usage error. Warnings and errors go to stderr, naming the file and the place.

        """

    static let options: [OptionSpec] =
        [.value("--format"), .value("--output"), .value("--jobs")] + ConversionArguments.options

    static func run(
        arguments: [String], stdin: FileHandle, stdout: inout some TextOutputStream,
        stderr: inout some TextOutputStream
    ) -> Int32 {
        let parsed: CommandArguments
        let format: RowFormat
        var conversion = ConversionOptions()
        var jobs = defaultJobs()
        do throws(UsageError) {
            parsed = try CommandArguments(arguments, options: options)
            if parsed.wantsHelp {
                stdout.write(help)
                return PayloadTool.exitSuccess
            }
            (format, conversion) = try validate(parsed)
            if let text = parsed.value("--jobs") {
                guard let number = Int(text), (1...64).contains(number) else {
                    throw UsageError(message: "Invalid value '\(text)' for '--jobs' (1 to 64).")
                }
                jobs = number
            }
        } catch {
            return reportUsage(error, command: "rows", usage: usage, to: &stderr)
        }

        var sink: OutputSink
        if let path = parsed.value("--output") {
            do {
                sink = .file(try AtomicOutputFile(path: path))
            } catch {
                stderr.write("error: \(error)\n")
                return PayloadTool.exitFailure
            }
        } else {
            sink = .stream
        }

        var writer = RowWriter(format: format)
        var buffer: [UInt8] = []
        buffer.reserveCapacity(1 << 17)
        var writeFailure: String?
        func flush(_ force: Bool) {
            guard force || buffer.count >= 1 << 16 else { return }
            switch sink {
            case .stream: stdout.write(String(decoding: buffer, as: UTF8.self))
            case .file(let file):
                if writeFailure == nil, let problem = file.write(buffer) { writeFailure = problem }
            }
            buffer.removeAll(keepingCapacity: true)
        }
        var allConverted = true
        writer.begin(into: &buffer)
        let inputs = parsed.positionals
        let progress = ProgressLine(total: inputs.count)
        var messages = ProgressErasingStream(base: stderr, progress: progress)
        var next = 0
        while next < inputs.count {
            progress.update(done: next, label: inputs[next])
            // Small files are converted a few at a time on all cores and written in input order;
            // standard input and large files (JSON Lines can be any size) stream on their own, so
            // memory never holds more than a few small files' rows.
            var batch: [String] = []
            while jobs > 1, next < inputs.count, batch.count < jobs * 2, isSmallFile(inputs[next]) {
                batch.append(inputs[next])
                next += 1
            }
            if batch.count > 1 {
                for result in convertConcurrently(batch, options: conversion) {
                    for diagnostic in result.diagnostics { messages.write("\(diagnostic.severity.rawValue): \(diagnostic)\n") }
                    for row in result.rows {
                        writer.write(row, into: &buffer)
                        flush(false)
                    }
                    if !result.converted { allConverted = false }
                }
                continue
            }
            let path = batch.first ?? inputs[next]
            if batch.isEmpty { next += 1 }
            let converted = RowSource.readRows(
                path: path, options: conversion, standardInput: stdin,
                report: { diagnostic in messages.write("\(diagnostic.severity.rawValue): \(diagnostic)\n") },
                emit: { row in
                    writer.write(row, into: &buffer)
                    flush(false)
                })
            if !converted { allConverted = false }
        }
        progress.erase()
        stderr = messages.base
        writer.end(into: &buffer)
        flush(true)
        if case .file(let file) = sink {
            if let problem = writeFailure ?? file.commit() {
                file.discard()
                stderr.write("error: \(problem)\n")
                return PayloadTool.exitFailure
            }
        }
        return allConverted ? PayloadTool.exitSuccess : PayloadTool.exitFailure
    }

    /// The cores left idle by the load average (as `make -l` does), 1 to 4: on a busy machine extra
    /// threads only wait for a core and make the run slower.
    static func defaultJobs() -> Int {
        let cores = Swift.max(ProcessInfo.processInfo.activeProcessorCount, 1)
        var load = [0.0]
        guard getloadavg(&load, 1) == 1 else { return 1 }
        let idle = Int((Double(cores) - load[0]).rounded(.down))
        return Swift.min(Swift.max(idle, 1), cores, 4)
    }

    /// A regular file small enough to hold its rows in memory while others convert.
    static func isSmallFile(_ path: String) -> Bool {
        guard path != "-" else { return false }
        var info = stat()
        guard stat(path, &info) == 0 else { return true }  // readRows reports why it cannot be read
        return (info.st_mode & S_IFMT) == S_IFREG && info.st_size <= 8 << 20
    }

    /// What one input gave, held until its turn to be written.
    private final class ConvertedInput: @unchecked Sendable {
        // Written by exactly one worker, read after all workers finished.
        var rows: [Row] = []
        var diagnostics: [InputDiagnostic] = []
        var converted = true
    }

    private static func convertConcurrently(_ paths: [String], options: ConversionOptions) -> [ConvertedInput] {
        let results = paths.map { _ in ConvertedInput() }
        DispatchQueue.concurrentPerform(iterations: paths.count) { index in
            let result = results[index]
            result.converted = RowSource.readRows(
                path: paths[index], options: options, report: { result.diagnostics.append($0) }, emit: { result.rows.append($0) })
        }
        return results
    }

    private enum OutputSink {
        case stream
        case file(AtomicOutputFile)
    }

    /// Cross-flag rules and flag values, each message naming its flag.
    static func validate(_ parsed: CommandArguments) throws(UsageError) -> (RowFormat, ConversionOptions) {
        let formatName = parsed.value("--format") ?? "json"
        guard let format = RowFormat(rawValue: formatName) else {
            throw UsageError(message: "Invalid value '\(formatName)' for '--format' (json, jsonl, csv or sql).")
        }
        let conversion = try ConversionArguments.conversionOptions(from: parsed)
        guard !parsed.positionals.isEmpty else {
            throw UsageError(message: "Missing input: give one or more payload files, or - for standard input.")
        }
        return (format, conversion)
    }
}
