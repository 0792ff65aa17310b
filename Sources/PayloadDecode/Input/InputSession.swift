import Foundation
import SystemIO

/// A growable byte buffer filled by `read(2)`; owns malloc'd memory, so it is a final class.
final class InputReader {
    let descriptor: Int32
    private(set) var pointer: UnsafeMutableRawPointer
    private(set) var capacity: Int
    /// Bytes `[start, count)` are unconsumed.
    var start = 0
    private(set) var count = 0
    private(set) var atEnd = false
    private(set) var readError: String?
    /// Never buffer more than this many bytes plus one (enough to tell that a limit was passed).
    var byteLimit = Int.max

    init(descriptor: Int32, initialCapacity: Int = 1 << 20) {
        self.descriptor = descriptor
        capacity = initialCapacity
        pointer = UnsafeMutableRawPointer.allocate(byteCount: initialCapacity, alignment: 16)
    }

    deinit { pointer.deallocate() }

    var unconsumed: UnsafeRawBufferPointer { UnsafeRawBufferPointer(start: pointer + start, count: count - start) }

    /// Drops consumed bytes, then reads once more (growing the buffer when it is full).
    /// Returns `false` at the end of input or on a read error.
    @discardableResult
    func readMore() -> Bool {
        guard !atEnd else { return false }
        if start > 0 {
            memmove(pointer, pointer + start, count - start)
            count -= start
            start = 0
        }
        let ceiling = byteLimit == Int.max ? Int.max : byteLimit + 1
        guard count < ceiling else { return false }
        if count == capacity {
            let grown = Swift.min(capacity * 2, Swift.max(ceiling, capacity + 1))
            let bigger = UnsafeMutableRawPointer.allocate(byteCount: grown, alignment: 16)
            bigger.copyMemory(from: pointer, byteCount: count)
            pointer.deallocate()
            pointer = bigger
            capacity = grown
        }
        switch FileIO.read(descriptor, into: pointer + count, count: Swift.min(capacity, ceiling) - count) {
        case .success(let got) where got > 0:
            count += got
            return true
        case .success:
            atEnd = true
            return false
        case .failure(let failure):
            readError = failure.text
            atEnd = true
            return false
        }
    }

    /// Makes room for `bytes` in all, keeping what is buffered.
    func reserve(_ bytes: Int) {
        guard bytes > capacity else { return }
        let bigger = UnsafeMutableRawPointer.allocate(byteCount: bytes, alignment: 16)
        bigger.copyMemory(from: pointer + start, byteCount: count - start)
        pointer.deallocate()
        pointer = bigger
        capacity = bytes
        count -= start
        start = 0
    }

    /// Forgets everything buffered (used to skip an over-long line).
    func discardAll() {
        start = 0
        count = 0
    }
}

/// One input being converted: the parser and converter it reuses, and whether it failed.
final class InputSession {
    let file: String
    let options: ConversionOptions
    let report: (InputDiagnostic) -> Void
    let emit: (Row) -> Void
    /// Set by the readers of each form (this file and `InputSession+Reports.swift`).
    var failed = false
    /// The input was a zip, or (with `skipsOtherContent`) content that is no input: nothing was read.
    private var isZip = false
    var isNotAnInput = false
    let parser: JSONParser
    private let converter: PayloadConverter
    /// The frame strings the row objects read so far shared (`RowReader.FrameStrings`); a
    /// second thread's session starts with this one's (`InputSession+Chunks.swift`).
    var frameStrings = RowReader.FrameStrings()

    init(
        file: String, options: ConversionOptions, report: @escaping (InputDiagnostic) -> Void, emit: @escaping (Row) -> Void
    ) {
        self.file = file
        self.options = options
        self.report = report
        self.emit = emit
        parser = JSONParser(maxDepth: options.maxJSONDepth)
        converter = PayloadConverter(options: options, file: file)
    }

    var outcome: InputOutcome { isZip ? .zip : isNotAnInput ? .notAnInput : .read(succeeded: !failed) }

    /// Whether `bytes` open as a zip does (`PK\3\4`; `PK\5\6` for an empty one).
    static func isZip(_ bytes: UnsafeRawBufferPointer) -> Bool {
        bytes.count >= 4 && bytes[0] == 0x50 && bytes[1] == 0x4B && (bytes[2] == 3 && bytes[3] == 4 || bytes[2] == 5 && bytes[3] == 6)
    }

    /// Whether an input can start with `c`: JSON's `{` or `[`, a text report's letter or `-`.
    private static func canStartAnInput(_ c: UInt8) -> Bool {
        c == UInt8(ascii: "{") || c == UInt8(ascii: "[") || c == UInt8(ascii: "-") || (c | 0x20 >= 0x61 && c | 0x20 <= 0x7a)
    }

    /// With `skipsOtherContent`: whether `bytes`, whose first non-blank line is at `begin` (if any),
    /// can be no input at all (neither JSON nor a crash report).
    private func isOtherContent(_ bytes: UnsafeRawBufferPointer, firstLine: (Int, Int)?, crashReport: CrashReportForm?) -> Bool {
        guard options.skipsOtherContent, crashReport == nil else { return false }
        guard let (begin, _) = firstLine else { return true }
        return bytes[begin] != UInt8(ascii: "{") && bytes[begin] != UInt8(ascii: "[")
    }

    func fail(_ place: String, _ message: String) {
        failed = true
        report(InputDiagnostic(severity: .error, file: file, place: place, message: message))
    }

    /// Offset of the first newline in `bytes` (memchr: lines can be megabytes long).
    static func newline(in bytes: UnsafeRawBufferPointer) -> Int? {
        guard let base = bytes.baseAddress, !bytes.isEmpty, let found = memchr(base, 0x0a, bytes.count) else { return nil }
        return UnsafeRawPointer(found) - base
    }

    // MARK: Telling JSON Lines from one document

    static func isWhitespace(_ c: UInt8) -> Bool { c == 0x20 || c == 0x0a || c == 0x0d || c == 0x09 }

    /// Whether `bytes` alone is one complete JSON value: a file whose first line is one is read as
    /// JSON Lines (a pretty-printed dump's first line is a lone `{` or `[`).
    private func isCompleteValue(_ bytes: UnsafeRawBufferPointer) -> Bool {
        (try? parser.parse(bytes)) != nil
    }

    /// The first non-blank line of `bytes`: (start, end) or `nil` when it does not end within `bytes`.
    private static func firstLine(_ bytes: UnsafeRawBufferPointer, from: Int = 0, complete: Bool) -> (Int, Int)? {
        var begin = from
        while begin < bytes.count, isWhitespace(bytes[begin]) { begin += 1 }
        guard begin < bytes.count else { return nil }
        var end = begin
        while end < bytes.count, bytes[end] != 0x0a { end += 1 }
        if end == bytes.count && !complete { return nil }
        return (begin, end)
    }

    // MARK: Files and standard input, streamed

    func read(from reader: InputReader) {
        // Read until the first non-blank line is complete, to decide the form.
        var firstLineRange: (Int, Int)?
        while true {
            if Self.isZip(reader.unconsumed) {
                isZip = true
                return
            }
            if let range = Self.firstLine(reader.unconsumed, complete: reader.atEnd) {
                firstLineRange = range
                break
            }
            // A file found in a folder that starts as no input can (a picture, `.DS_Store`), or
            // whose first line runs on past 64 kB, is told at once, not read up to the line limit.
            if options.skipsOtherContent,
                let first = reader.unconsumed.first(where: { !Self.isWhitespace($0) }).map(Self.canStartAnInput),
                !first
                    || reader.count > 64 << 10
            {
                isNotAnInput = true
                return
            }
            if reader.atEnd || reader.count > options.maxLineBytes { break }
            reader.readMore()
        }
        if let error = reader.readError { return fail("", "cannot read: \(error)") }
        if reader.atEnd && !reader.unconsumed.contains(where: { !Self.isWhitespace($0) }) {
            if options.skipsOtherContent {
                isNotAnInput = true
                return
            }
            return fail("", "empty input, a JSON value was expected")
        }
        let crashReport = firstLineRange.flatMap { begin, end in
            CrashReportForm.of(firstLine: UnsafeRawBufferPointer(rebasing: reader.unconsumed[begin..<end]))
        }
        if isOtherContent(reader.unconsumed, firstLine: firstLineRange, crashReport: crashReport) {
            isNotAnInput = true
            return
        }
        if crashReport == nil, let (begin, end) = firstLineRange,
            isCompleteValue(UnsafeRawBufferPointer(rebasing: reader.unconsumed[begin..<end]))
        {
            streamLines(reader)
            return
        }
        // One JSON document (or crash report): read it whole, within the limit.
        reader.byteLimit = options.maxFileBytes
        while !reader.atEnd {
            if reader.count > options.maxFileBytes {
                return fail("", "larger than \(options.maxFileBytes) bytes, the limit for one JSON document (JSON Lines may be longer)")
            }
            if !reader.readMore() && !reader.atEnd { break }
        }
        if let error = reader.readError { return fail("", "cannot read: \(error)") }
        if reader.count > options.maxFileBytes {
            return fail("", "larger than \(options.maxFileBytes) bytes, the limit for one JSON document (JSON Lines may be longer)")
        }
        if let crashReport { return convertCrashReports(reader.unconsumed, form: crashReport) }
        convertDocumentOrLines(reader.unconsumed)
    }

    private func streamLines(_ reader: InputReader) {
        // A file longer than the first read is read in blocks (`blockBytes`), each converted on two
        // threads (`convertLinesOnTwoThreads`).
        if !reader.atEnd { reader.reserve(Self.blockBytes) }
        var lineNumber = 0
        while true {
            let pending = reader.unconsumed
            if pending.count >= Self.twoThreadThreshold, let block = Self.completeLines(pending) {
                lineNumber = convertLinesOnTwoThreads(block, after: lineNumber)
                reader.start += block.count
                continue
            }
            if let newline = Self.newline(in: pending) {
                lineNumber += 1
                if newline > options.maxLineBytes {
                    fail("line \(lineNumber)", "longer than \(options.maxLineBytes) bytes, the limit for one line; skipped")
                } else {
                    convertLine(UnsafeRawBufferPointer(rebasing: pending[..<newline]), number: lineNumber)
                }
                reader.start += newline + 1
                continue
            }
            if reader.atEnd {
                if !pending.isEmpty {
                    lineNumber += 1
                    convertLine(pending, number: lineNumber)
                }
                if let error = reader.readError { fail("line \(lineNumber + 1)", "cannot read: \(error)") }
                return
            }
            if pending.count > options.maxLineBytes {
                lineNumber += 1
                fail("line \(lineNumber)", "longer than \(options.maxLineBytes) bytes, the limit for one line; skipped")
                // Drop the rest of this line without holding it.
                while true {
                    reader.discardAll()
                    guard reader.readMore() else { return }
                    if let newline = Self.newline(in: reader.unconsumed) {
                        reader.start += newline + 1
                        break
                    }
                }
                continue
            }
            reader.readMore()
        }
    }

    // MARK: Bytes in memory

    /// Converts a whole input held in memory (the fuzz entry and `rows(fromBytes:)`).
    func convertWhole(_ bytes: UnsafeRawBufferPointer) {
        if Self.isZip(bytes) {
            isZip = true
            return
        }
        // The first line and the crash report form it says, found once for every check below.
        let first = Self.firstLine(bytes, complete: true)
        let crashReport = first.flatMap { CrashReportForm.of(firstLine: UnsafeRawBufferPointer(rebasing: bytes[$0.0..<$0.1])) }
        if isOtherContent(bytes, firstLine: first, crashReport: crashReport) {
            isNotAnInput = true
            return
        }
        guard bytes.contains(where: { !Self.isWhitespace($0) }) else {
            return fail("", "empty input, a JSON value was expected")
        }
        if let (begin, end) = first {
            if let form = crashReport {
                guard bytes.count <= options.maxFileBytes else {
                    return fail("", "larger than \(options.maxFileBytes) bytes, the limit for one crash report file")
                }
                return convertCrashReports(bytes, form: form)
            }
            if isCompleteValue(UnsafeRawBufferPointer(rebasing: bytes[begin..<end])) {
                convertLines(bytes)
                return
            }
        }
        guard bytes.count <= options.maxFileBytes else {
            return fail("", "larger than \(options.maxFileBytes) bytes, the limit for one JSON document")
        }
        convertDocumentOrLines(bytes)
    }

    /// One document; when it is not valid JSON but its second non-blank line is a complete value,
    /// it is JSON Lines with a bad first line, and the other lines still convert.
    private func convertDocumentOrLines(_ bytes: UnsafeRawBufferPointer) {
        do {
            let document = try parser.parse(bytes)
            convertValue(document, place: "")
        } catch {
            if let (_, firstEnd) = Self.firstLine(bytes, complete: true),
                let (begin, end) = Self.firstLine(bytes, from: firstEnd, complete: true),
                isCompleteValue(UnsafeRawBufferPointer(rebasing: bytes[begin..<end]))
            {
                convertLines(bytes)
                return
            }
            fail(error.position(in: bytes), "invalid JSON: \(error.message)")
        }
    }

    /// Converts every line of `bytes`, the first numbered `after + 1`; returns the last line's number.
    @discardableResult
    func convertLines(_ bytes: UnsafeRawBufferPointer, after: Int = 0) -> Int {
        var lineNumber = after
        var begin = 0
        while begin < bytes.count {
            let end = Self.newline(in: UnsafeRawBufferPointer(rebasing: bytes[begin...])).map { begin + $0 } ?? bytes.count
            lineNumber += 1
            if end - begin > options.maxLineBytes {
                fail("line \(lineNumber)", "longer than \(options.maxLineBytes) bytes, the limit for one line; skipped")
            } else {
                convertLine(UnsafeRawBufferPointer(rebasing: bytes[begin..<end]), number: lineNumber)
            }
            begin = end + 1
        }
        return lineNumber
    }

    private func convertLine(_ line: UnsafeRawBufferPointer, number: Int) {
        guard line.contains(where: { !Self.isWhitespace($0) }) else { return }  // blank lines are allowed
        do {
            let document = try parser.parse(line)
            convertValue(document, place: "line \(number)")
        } catch {
            fail("line \(number), column \(error.offset + 1)", "invalid JSON: \(error.message)")
        }
    }

    // MARK: Values

    /// A top-level value: a payload, a row, or an array of either.
    private func convertValue(_ document: JSONDocument, place: String) {
        let root = JSONDocument.root
        if document.kind(root) == .array {
            for (position, element) in document.elements(root).enumerated() {
                let elementPlace = (place.isEmpty ? "" : place + ", ") + "payload \(position + 1)"
                if document.kind(element) == .array {
                    fail(elementPlace, "an array inside an array; a payload or a row object was expected")
                    continue
                }
                convertItem(document, element, place: elementPlace)
            }
        } else {
            convertItem(document, root, place: place.isEmpty ? "payload 1" : place)
        }
    }

    private func convertItem(_ document: JSONDocument, _ index: Int, place: String) {
        // A JSON file found in a folder or zip that is neither a payload nor a row (`feedback.json`
        // beside a TestFlight crash log) is skipped, not an error.
        let isTree = index == JSONDocument.root && CallStackTrees.isTree(document, index)
        if options.skipsOtherContent, index == JSONDocument.root, document.kind(index) == .object, !RowReader.isRowObject(document, index),
            !PayloadConverter.isPayload(document, index), !(isTree && options.treeBuild != nil)
        {
            isNotAnInput = true
            return
        }
        if isTree { return convertTree(document, index, place: place) }
        if RowReader.isRowObject(document, index) {
            switch RowReader.read(document, index, strings: &frameStrings) {
            case .success(let row): emit(row)
            case .failure(let problem): fail(place, problem.message)
            }
            return
        }
        let result = converter.convert(document, index, place: place)
        for issue in result.issues {
            if issue.severity == .error { failed = true }
            report(issue)
        }
        for row in result.rows { emit(row) }
    }
}
