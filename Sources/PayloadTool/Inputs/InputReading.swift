import Foundation
import PayloadDecode

/// One input's rows, whatever it is: a file or standard input through `RowSource`, a zip entry by
/// entry. Every command that reads inputs reads each one through here.
enum InputReading {
    struct Outcome {
        /// No error was reported.
        var succeeded = true
        /// Files found in folders or zips whose content is no input (counted for one note).
        var skipped = 0
    }

    static func read(
        _ item: InputItem, options: ConversionOptions, standardInput: FileHandle?, report: (InputDiagnostic) -> Void,
        emit: (Row) -> Void
    ) -> Outcome {
        var options = options
        options.skipsOtherContent = item.isFromFolder
        switch RowSource.read(path: item.path, options: options, standardInput: standardInput, report: report, emit: emit) {
        case .read(let succeeded): return Outcome(succeeded: succeeded)
        case .notAnInput: return Outcome(succeeded: true, skipped: 1)
        case .zip: return readZip(item.path, options: options, report: report, emit: emit)
        }
    }

    /// A zip's entries, each told by its content (a crash log beside `feedback.json`: the log is
    /// read, the feedback skipped); a zip inside the zip is not opened.
    private static func readZip(
        _ path: String, options: ConversionOptions, report: (InputDiagnostic) -> Void, emit: (Row) -> Void
    ) -> Outcome {
        var outcome = Outcome()
        var entryOptions = options
        entryOptions.skipsOtherContent = true
        let read = ZipInputs.forEachEntry(path) { message in
            report(InputDiagnostic(severity: .error, file: path, place: "", message: message))
        } _: { name, bytes in
            switch RowSource.read(bytes: bytes, fileName: "\(path) (\(name))", options: entryOptions, report: report, emit: emit) {
            case .read(let succeeded): if !succeeded { outcome.succeeded = false }
            case .notAnInput, .zip: outcome.skipped += 1
            }
        }
        if !read { outcome.succeeded = false }
        return outcome
    }

    /// The note a command prints once, after its inputs, when files were skipped.
    static func skippedNote(_ skipped: Int) -> String? {
        guard skipped > 0 else { return nil }
        return
            "note: \(skipped) \(skipped == 1 ? "file" : "files") in the folders and zips given \(skipped == 1 ? "is" : "are") not a payload dump, row file, crash report or zip; skipped"
    }
}

/// Reads every input of `list` in order, handing each row and the name of its input to `emit`;
/// false when an input failed or the list had errors (a folder that could not be read).
func readEveryInput<Stream: TextOutputStream>(
    _ list: InputList, options: ConversionOptions, stdin: FileHandle, stderr: inout Stream,
    emit: (Row, String, inout ProgressErasingStream<Stream>) -> Void
) -> Bool {
    var allRead = list.errors.isEmpty
    for error in list.errors { stderr.write("error: \(error)\n") }
    for warning in list.warnings { stderr.write("warning: \(warning)\n") }
    let progress = ProgressLine(total: list.items.count)
    var messages = ProgressErasingStream(base: stderr, progress: progress)
    var skipped = 0
    for (done, item) in list.items.enumerated() {
        progress.update(done: done, label: item.path)
        let outcome = InputReading.read(
            item, options: options, standardInput: stdin,
            report: { diagnostic in messages.write("\(diagnostic.severity.rawValue): \(diagnostic)\n") },
            emit: { row in emit(row, item.displayName, &messages) })
        if !outcome.succeeded { allRead = false }
        skipped += outcome.skipped
    }
    progress.erase()
    stderr = messages.base
    if let note = InputReading.skippedNote(skipped) { stderr.write(note + "\n") }
    return allRead
}
