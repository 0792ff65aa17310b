import Foundation
import PayloadDecode

/// `payload-tool rows`: payload dumps (or row files) in, `yui_perf` rows out.
enum RowsCommand {
    static let usage = "Usage: payload-tool rows [--format json|jsonl|csv|sql] [--user UUID] [--timezone ZONE] [--promotion on|off] [--period-start TIME [--period-end TIME]] [--output FILE] <FILE|->..."

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
          --period-start <time>   The period of single diagnostics that carry no timestamps
          --period-end <time>     (2026-11-29 08:00:00; the end defaults to the start). Without
                                  them: the diagnostic's signpostData, else the file's time.
          --output <file>         Write here (atomically: complete or not at all) instead of stdout.
          --jobs <n>              Files converted at once (default: the cores, at most 4). Output
                                  order and bytes do not depend on it.
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
                if error.isUsage {
                    return reportUsage(UsageError(message: "Invalid value for '--output': \(error)."), command: "rows", usage: usage, to: &stderr)
                }
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
        func report(_ diagnostic: InputDiagnostic) {
            messages.write("\(diagnostic.severity.rawValue): \(diagnostic)\n")
        }
        var next = 0
        while next < inputs.count {
            // Runs of small files are converted and formatted on all cores and written in input
            // order; standard input and large files (JSON Lines can be any size) stream on their
            // own, so memory never holds more than a few small files' rows.
            var run: [String] = []
            while jobs > 1, next + run.count < inputs.count, isSmallFile(inputs[next + run.count]) {
                run.append(inputs[next + run.count])
            }
            if run.count > 1 {
                convertInOrder(run, options: conversion, format: format, jobs: jobs) { position, converted in
                    progress.update(done: next + position, label: run[position])
                    for diagnostic in converted.diagnostics { report(diagnostic) }
                    writer.append(chunk: converted.bytes, rowCount: converted.rowCount, into: &buffer)
                    flush(false)
                    if !converted.converted { allConverted = false }
                }
                next += run.count
                continue
            }
            progress.update(done: next, label: inputs[next])
            let converted = RowSource.readRows(
                path: inputs[next], options: conversion, standardInput: stdin, report: report,
                emit: { row in
                    writer.write(row, into: &buffer)
                    flush(false)
                })
            next += 1
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

    /// One conversion thread per core (at most 4). Each input is converted and formatted by one
    /// thread, so a busy machine costs only the switching between them.
    /// The online cores (`sysconf`), not `ProcessInfo.activeProcessorCount`, which reads the cgroup
    /// and mount tables: a tenth of a small run's start-up.
    static func defaultJobs() -> Int {
        Swift.min(Swift.max(Int(sysconf(Int32(_SC_NPROCESSORS_ONLN))), 1), 4)
    }

    /// A regular file small enough to hold its rows in memory while others convert.
    static func isSmallFile(_ path: String) -> Bool {
        guard path != "-" else { return false }
        var info = stat()
        guard stat(path, &info) == 0 else { return true }  // readRows reports why it cannot be read
        return (info.st_mode & S_IFMT) == S_IFREG && info.st_size <= 8 << 20
    }

    /// What one input gave, formatted, held until its turn to be written.
    private final class ConvertedInput: @unchecked Sendable {
        // Written by exactly one thread, then `done` is set under the delivery lock; read by the
        // thread that delivers it, under that lock.
        var bytes: [UInt8] = []
        var rowCount = 0
        var diagnostics: [InputDiagnostic] = []
        var converted = true
        var done = false
    }

    /// The writer's callback, handed to the converting threads; only ever called with the delivery
    /// lock held, so one thread at a time.
    private final class Delivery: @unchecked Sendable {
        let deliver: (Int, ConvertedInput) -> Void
        init(_ deliver: @escaping (Int, ConvertedInput) -> Void) { self.deliver = deliver }
    }

    /// Converts `paths` on `jobs` threads (the calling thread is one of them), each input's rows
    /// formatted into bytes by the thread that converted it, and hands the results to `deliver` in
    /// input order: the thread that finishes the next input to write writes it, and every one
    /// after it that is ready. No thread sleeps waiting for another's file (a writer thread of its
    /// own woke once per file: a context switch per file, a tenth of the run on this machine). At
    /// most `jobs * 4` inputs are converted ahead of the one being delivered, which bounds memory.
    private static func convertInOrder(
        _ paths: [String], options: ConversionOptions, format: RowFormat, jobs: Int,
        deliver: (Int, ConvertedInput) -> Void
    ) {
        let results = paths.map { _ in ConvertedInput() }
        let window = DispatchSemaphore(value: jobs * 4)
        let claim = NSLock()
        let delivering = NSLock()
        nonisolated(unsafe) var nextToClaim = 0
        nonisolated(unsafe) var nextToDeliver = 0
        withoutActuallyEscaping(deliver) { deliver in
            let delivery = Delivery(deliver)
            @Sendable func work() {
                while true {
                    window.wait()
                    claim.lock()
                    let index = nextToClaim
                    nextToClaim += 1
                    claim.unlock()
                    guard index < paths.count else {
                        window.signal()
                        return
                    }
                    let result = results[index]
                    var writer = RowWriter(continuing: format)
                    result.converted = RowSource.readRows(
                        path: paths[index], options: options, report: { result.diagnostics.append($0) },
                        emit: { row in
                            writer.write(row, into: &result.bytes)
                            result.rowCount += 1
                        })
                    delivering.lock()
                    result.done = true
                    while nextToDeliver < results.count, results[nextToDeliver].done {
                        let ready = results[nextToDeliver]
                        delivery.deliver(nextToDeliver, ready)
                        ready.bytes = []
                        nextToDeliver += 1
                        window.signal()
                    }
                    delivering.unlock()
                }
            }
            let workers = DispatchGroup()
            for _ in 1..<jobs {
                DispatchQueue.global().async(group: workers) { work() }
            }
            work()
            workers.wait()
        }
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
