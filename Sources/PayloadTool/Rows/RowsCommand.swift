import Foundation
import PayloadDecode
import Synchronization
import SystemIO

/// `payload-tool rows`: payload dumps (or row files) in, `yui_perf` rows out.
enum RowsCommand {
    static func convert(
        _ options: RowsOptions, stdin: FileHandle, stdout: inout some TextOutputStream,
        stderr: inout some TextOutputStream
    ) -> Int32 {
        var output: RowsOutput
        switch RowsOutput.open(options.outputPath, format: options.format) {
        case .success(let opened): output = opened
        case .failure(let failure):
            if failure.error.isUsage {
                return CommandRunner.reportUsage(
                    UsageError(message: "Invalid value for '\(RowsOptions.output.name)': \(failure.error)."),
                    of: RowsOptions.description, to: &stderr)
            }
            stderr.write("error: \(failure.error)\n")
            return PayloadTool.exitFailure
        }
        let allConverted = convertInputs(options, stdin: stdin, into: &output, stdout: &stdout, stderr: &stderr)
        if let problem = output.finish(stdout: &stdout) {
            stderr.write("error: \(problem)\n")
            return PayloadTool.exitFailure
        }
        return allConverted ? PayloadTool.exitSuccess : PayloadTool.exitFailure
    }

    /// Converts every input into `output`, in input order; false when some input failed.
    private static func convertInputs(
        _ options: RowsOptions, stdin: FileHandle, into output: inout RowsOutput, stdout: inout some TextOutputStream,
        stderr: inout some TextOutputStream
    ) -> Bool {
        let list = InputList.expand(options.inputs, fromLists: options.fromLists, standardInput: stdin)
        var allConverted = list.errors.isEmpty
        for error in list.errors { stderr.write("error: \(error)\n") }
        for warning in list.warnings { stderr.write("warning: \(warning)\n") }
        let inputs = list.items
        let progress = ProgressLine(total: inputs.count)
        var messages = ProgressErasingStream(base: stderr, progress: progress)
        func report(_ diagnostic: InputDiagnostic) {
            messages.write("\(diagnostic.severity.rawValue): \(diagnostic)\n")
        }
        var skipped = 0
        var next = 0
        while next < inputs.count {
            // Runs of small files are converted and formatted on all cores and written in input
            // order; standard input and large files (JSON Lines can be any size) stream on their
            // own, so memory never holds more than a few small files' rows.
            var run: [InputItem] = []
            while options.jobs > 1, next + run.count < inputs.count, isSmallFile(inputs[next + run.count].path) {
                run.append(inputs[next + run.count])
            }
            if run.count > 1 {
                convertInOrder(run, options: options.conversion, format: options.format, jobs: options.jobs) {
                    position, converted in
                    progress.update(done: next + position, label: run[position].path)
                    for diagnostic in converted.diagnostics { report(diagnostic) }
                    output.append(converted, stdout: &stdout)
                    if !converted.converted { allConverted = false }
                    skipped += converted.skipped
                }
                next += run.count
                continue
            }
            progress.update(done: next, label: inputs[next].path)
            let outcome = InputReading.read(
                inputs[next], options: options.conversion, standardInput: stdin, report: report,
                emit: { row in output.write(row, stdout: &stdout) })
            next += 1
            if !outcome.succeeded { allConverted = false }
            skipped += outcome.skipped
        }
        progress.erase()
        stderr = messages.base
        if let note = InputReading.skippedNote(skipped) { stderr.write(note + "\n") }
        return allConverted
    }

    /// A regular file small enough to hold its rows in memory while others convert.
    static func isSmallFile(_ path: String) -> Bool {
        guard path != "-" else { return false }
        // A file that cannot be read counts as small: readRows reports why it cannot be read.
        guard case .success(let info) = FileIO.status(of: path, retryOnInterrupt: false) else { return true }
        return info.kind == .regular && info.size <= 8 << 20
    }

    /// The next input a free thread converts, and the next one to deliver, each under its own lock.
    private final class ConversionOrder: Sendable {
        let nextToClaim = Mutex(0)
        let nextToDeliver = Mutex(0)
    }

    /// What one input gave, formatted, held until its turn to be written.
    final class ConvertedInput: @unchecked Sendable {
        // Written by exactly one thread, then `done` is set under the delivery lock; read by the
        // thread that delivers it, under that lock.
        var bytes: [UInt8] = []
        var rowCount = 0
        var diagnostics: [InputDiagnostic] = []
        var converted = true
        var skipped = 0
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
        _ paths: [InputItem], options: ConversionOptions, format: RowFormat, jobs: Int,
        deliver: (Int, ConvertedInput) -> Void
    ) {
        let results = paths.map { _ in ConvertedInput() }
        let window = DispatchSemaphore(value: jobs * 4)
        // Two locks, so a thread claiming its next input never waits behind a delivery.
        let order = ConversionOrder()
        withoutActuallyEscaping(deliver) { deliver in
            let delivery = Delivery(deliver)
            @Sendable func work() {
                while true {
                    window.wait()
                    let index = order.nextToClaim.withLock { next in
                        defer { next += 1 }
                        return next
                    }
                    guard index < paths.count else {
                        window.signal()
                        return
                    }
                    let result = results[index]
                    var writer = RowWriter(continuing: format)
                    let outcome = InputReading.read(
                        paths[index], options: options, standardInput: nil, report: { result.diagnostics.append($0) },
                        emit: { row in
                            writer.write(row, into: &result.bytes)
                            result.rowCount += 1
                        })
                    result.converted = outcome.succeeded
                    result.skipped = outcome.skipped
                    order.nextToDeliver.withLock { nextToDeliver in
                        result.done = true
                        while nextToDeliver < results.count, results[nextToDeliver].done {
                            let ready = results[nextToDeliver]
                            delivery.deliver(nextToDeliver, ready)
                            ready.bytes = []
                            nextToDeliver += 1
                            window.signal()
                        }
                    }
                }
            }
            SecondThread.onThreads(jobs, work)
        }
    }
}

/// Where `rows` writes: its rows formatted into a buffer, handed to standard output or to the
/// `--output` file in 64 KB pieces.
struct RowsOutput {
    private enum Sink {
        case stream
        case file(AtomicOutputFile)
    }

    struct OpenFailure: Error {
        let error: AtomicOutputFile.OpenError
    }

    private let sink: Sink
    private var writer: RowWriter
    private var buffer: [UInt8] = []
    private var writeFailure: String?

    private init(sink: Sink, format: RowFormat) {
        self.sink = sink
        writer = RowWriter(format: format)
        buffer.reserveCapacity(1 << 17)
        writer.begin(into: &buffer)
    }

    /// Standard output, or the file at `path` (written whole or not at all).
    static func open(_ path: String?, format: RowFormat) -> Result<RowsOutput, OpenFailure> {
        guard let path else { return .success(RowsOutput(sink: .stream, format: format)) }
        do {
            return .success(RowsOutput(sink: .file(try AtomicOutputFile(path: path)), format: format))
        } catch {
            return .failure(OpenFailure(error: error))
        }
    }

    mutating func write(_ row: Row, stdout: inout some TextOutputStream) {
        writer.write(row, into: &buffer)
        flush(force: false, stdout: &stdout)
    }

    mutating func append(_ converted: RowsCommand.ConvertedInput, stdout: inout some TextOutputStream) {
        writer.append(chunk: converted.bytes, rowCount: converted.rowCount, into: &buffer)
        flush(force: false, stdout: &stdout)
    }

    /// Ends the output (and commits the file); the problem when it could not be written.
    mutating func finish(stdout: inout some TextOutputStream) -> String? {
        writer.end(into: &buffer)
        flush(force: true, stdout: &stdout)
        guard case .file(let file) = sink else { return nil }
        if let problem = writeFailure ?? file.commit() {
            file.discard()
            return problem
        }
        return nil
    }

    private mutating func flush(force: Bool, stdout: inout some TextOutputStream) {
        guard force || buffer.count >= 1 << 16 else { return }
        switch sink {
        case .stream: stdout.write(String(decoding: buffer, as: UTF8.self))
        case .file(let file):
            if writeFailure == nil, let problem = file.write(buffer) { writeFailure = problem }
        }
        buffer.removeAll(keepingCapacity: true)
    }
}
