import Foundation
import PayloadDecode
import StackSymbolize
import Synchronization
import SystemIO

/// `symbolicate --object PATH`: addresses in one debug file, looked up as given.
enum SymbolicateObject {
    /// What `symbolicate --object` was asked: the debug file, the slice, what the values are and
    /// how answers are written.
    struct Request {
        var object: String
        var uuid: String?
        var arch: String?
        var form: AddressForm
        var demangles: Bool
        var indexFolder: String?
        var format: SymbolicateCommand.Format

        /// Whether answers may come straight from the index's or the walk's bytes, which carry only
        /// simplified names: text and folded output with demangled names.
        var writesSimplifiedNames: Bool { demangles && (format == .text || format == .folded) }
    }

    static func run(
        _ request: Request, addressArguments: [String], stdin: FileHandle, stdout: inout some TextOutputStream,
        stderr: inout some TextOutputStream
    ) -> Int32 {
        let format = request.format
        let (shift, offsets) = request.form.shift
        let signedOffsets = offsets && shift != 0
        // With an index, standard input is read on a second thread while this one opens the debug
        // file and the index (checking every byte of it): reading a million addresses and opening
        // were both done before the first answer, one after the other. Messages keep their order.
        var opened: OpenedIndex?
        let batch: AddressBatch
        let progress = ProgressLine.forSlowWork()
        if request.indexFolder != nil, request.writesSimplifiedNames, addressArguments.isEmpty {
            let reading = SecondThread { AddressBatch.gather(arguments: [], stdin: stdin) }
            opened = OpenedIndex(request, progress: progress.show)
            batch = reading.join()
        } else {
            batch = AddressBatch.gather(arguments: addressArguments, stdin: stdin)
        }
        var failed = false
        for (index, isValid) in batch.valid.enumerated() where !isValid {
            if let length = batch.overlongLines[index] {
                stderr.write(
                    "error: \(batch.place(index)): a line of \(length) bytes, longer than \(AddressBatch.longestLine): not an address\n")
            } else {
                stderr.write(
                    "error: \(batch.place(index)): \(InputText.quoted(batch.text(index))) is not an address (0x-prefixed hex or decimal)\n")
            }
            failed = true
        }
        let answers: [SymbolicatedFrame]
        let lookups: DistinctAddresses
        let symbolizer: BuildSymbolizer
        do {
            symbolizer =
                try opened?.symbolizer.get()
                ?? BuildSymbolizer(debugFiles: DebugFileStore.objectPaths(request.object), indexFolder: request.indexFolder)
            symbolizer.progress = progress.show
            for problem in symbolizer.problems {
                stderr.write("error: \(problem)\n")
                failed = true
            }
            guard !symbolizer.debugFiles.isEmpty else {
                // A folder without debug files, a FIFO, /dev/zero: say so rather than "has 0 slices".
                stderr.write("error: \(request.object): no debug file (Mach-O, .dSYM bundle or ELF) found\n")
                return PayloadTool.exitFailure
            }
            let uuid = try SliceChoice.uuid(given: request.uuid, arch: request.arch, files: symbolizer.debugFiles)
            if request.form == .fileAddress, let hint = slidHint(batch, uuid: uuid, files: symbolizer.debugFiles) {
                stderr.write(hint)
            }
            let indexed = request.writesSimplifiedNames ? try opened?.frames?.get() ?? symbolizer.indexedFrames(uuid: uuid) : nil
            Self.writeWarnings(of: symbolizer, progress: progress, to: &stderr)
            if let indexed {
                progress.erase()
                let image = (indexed.debugFile as NSString).lastPathComponent
                if let problem = IndexedTextOutput.write(
                    batch: batch, frames: indexed, shift: shift, offsets: offsets, image: image, folded: format == .folded, to: &stdout)
                {
                    stderr.write("error: \(problem)\n")
                    return PayloadTool.exitFailure
                }
                return failed ? PayloadTool.exitFailure : PayloadTool.exitSuccess
            }
            lookups = DistinctAddresses(batch)
            // Values as the symbolizer takes them: file addresses, or offsets from the text base.
            let values = shift == 0 ? lookups.distinct : lookups.distinct.map { $0 &- shift }
            symbolizer.makesFullNames = format == .json || (format == .atos && request.demangles)
            if format == .text, request.demangles,
                let direct = try symbolizer.lookupForText(addresses: values, uuid: uuid, offsets: offsets)
            {
                progress.erase()
                // The debug file's own name is the image's (`YuiApp.app.dSYM/.../DWARF/YuiApp` → `YuiApp`).
                var writer = AnswerWriter(batch: batch, lookups: lookups, direct: direct, image: (direct.debugFile as NSString).lastPathComponent)
                writer.signedOffsets = signedOffsets
                writer.writeText(to: &stdout)
                Self.lastBatch.withLock { $0 = KeptBatch(writer: writer, symbolizer: symbolizer) }
                return failed ? PayloadTool.exitFailure : PayloadTool.exitSuccess
            }
            answers = try symbolizer.lookup(addresses: values, uuid: uuid, offsets: offsets)
            Self.writeWarnings(of: symbolizer, progress: progress, to: &stderr)
            progress.erase()
        } catch {
            progress.erase()
            stderr.write("error: \(error)\n")
            return PayloadTool.exitFailure
        }
        // The debug file's own name is the image's (`YuiApp.app.dSYM/.../DWARF/YuiApp` → `YuiApp`).
        let image =
            answers.first?.debugFile.map { ($0 as NSString).lastPathComponent } ?? (request.object as NSString).lastPathComponent
        var writer = AnswerWriter(batch: batch, lookups: lookups, answers: answers, image: image)
        writer.signedOffsets = signedOffsets
        let names: SymbolicateOutput.Names = request.demangles ? .simplified : .stored
        switch format {
        case .json: writer.writeJSON(to: &stdout)
        case .folded: writer.writeFolded(names: names, to: &stdout)
        case .text: writer.writeText(names: names, to: &stdout)
        case .atos: writer.writeAtos(demangles: request.demangles, to: &stdout)
        }
        // The answers are kept until the next batch rather than freed here: the command's process
        // ends right after, and tearing down tens of thousands of frames and strings that exit
        // would drop anyway was 3% of a small binary's batch (compilers skip the same work). At most
        // one batch is kept, so callers in one process (tests) do not pile them up. So is the
        // symbolizer: its decoded units, names and open files were another 2.5% (swift-help).
        Self.lastBatch.withLock { $0 = KeptBatch(writer: writer, symbolizer: symbolizer) }
        return failed ? PayloadTool.exitFailure : PayloadTool.exitSuccess
    }

    /// The line that says an address lies past the image, once per run: an address as a crash
    /// report or MetricKit gives it is slid by ASLR, and looked up as given it names nothing.
    /// Only addresses a process could run at count (below 2^47, the top of user space on arm64
    /// and x86_64): 0xffffffffffffffff is no runtime address either.
    static func slidHint(_ batch: AddressBatch, uuid: String?, files: [DebugFileInfo]) -> String? {
        guard let extent = SliceChoice.extent(uuid: uuid, files: files),
            let past = batch.addresses.indices.first(where: { index in
                batch.valid[index] && batch.addresses[index] >= extent.upperBound && batch.addresses[index] < 1 << 47
            })
        else { return nil }
        let image = SymbolicateOutput.baseName(files[0].path)
        return "hint: \(SymbolicateOutput.hex(batch.addresses[past])) lies past \(image) (\(SymbolicateOutput.hex(extent.lowerBound))"
            + "..<\(SymbolicateOutput.hex(extent.upperBound))); for a runtime address give the image's load address"
            + " (-l ADDRESS) or its slide (-s OFFSET)\n"
    }

    private static let lastBatch = Mutex<KeptBatch?>(nil)

    /// The symbolizer's warnings about the index folder (answers then come from the debug file).
    private static func writeWarnings(of symbolizer: BuildSymbolizer, progress: ProgressLine, to stderr: inout some TextOutputStream) {
        let warnings = symbolizer.takeWarnings()
        guard !warnings.isEmpty else { return }
        progress.erase()
        for warning in warnings { stderr.write("warning: \(warning)\n") }
    }

    /// A finished batch, only ever released (by the next one): nothing reads it from any thread.
    private struct KeptBatch: @unchecked Sendable {
        let writer: AnswerWriter
        let symbolizer: BuildSymbolizer
    }

    /// The debug file and its index opened ahead, while standard input is read: each step's
    /// outcome, an error kept to be thrown where the steps run in order.
    struct OpenedIndex {
        let symbolizer: Result<BuildSymbolizer, SymbolizeError>
        /// nil when the steps before it did not get this far (then `run` takes it step by step).
        let frames: Result<IndexedFrames?, SymbolizeError>?

        init(_ request: Request, progress: @escaping (String) -> Void) {
            symbolizer = Result { () throws(SymbolizeError) in
                try BuildSymbolizer(debugFiles: DebugFileStore.objectPaths(request.object), indexFolder: request.indexFolder)
            }
            // Problems are reported before the index is opened, as step by step.
            guard case .success(let opened) = symbolizer, !opened.debugFiles.isEmpty, opened.problems.isEmpty else {
                frames = nil
                return
            }
            opened.progress = progress
            frames = Result { () throws(SymbolizeError) in
                try opened.indexedFrames(uuid: SliceChoice.uuid(given: request.uuid, arch: request.arch, files: opened.debugFiles))
            }
        }
    }

    /// `0x1f2e` (hex) or `7982` (decimal), as atos and llvm-symbolizer read addresses; `nil` for
    /// anything else, including values past 2^64.
    static func parseAddress(_ bytes: ArraySlice<UInt8>) -> UInt64? {
        bytes.withUnsafeBufferPointer(parseAddress)
    }

    static func parseAddress(_ bytes: UnsafeBufferPointer<UInt8>) -> UInt64? {
        var index = 0
        var radix: UInt64 = 10
        if bytes.count > 2, bytes[0] == UInt8(ascii: "0"), bytes[1] | 0x20 == UInt8(ascii: "x") {
            radix = 16
            index = 2
        }
        guard index < bytes.count else { return nil }
        // Up to 16 hex or 19 decimal digits cannot overflow: no check per digit.
        let cannotOverflow = bytes.count - index <= (radix == 16 ? 16 : 19)
        if radix == 16, cannotOverflow {
            // The common case (`0x` and up to 16 digits), a shift and an or per digit: the general
            // loop was a quarter of reading a million addresses.
            var value: UInt64 = 0
            while index < bytes.count {
                let byte = bytes[index]
                var digit = byte &- UInt8(ascii: "0")
                if digit >= 10 {
                    digit = (byte | 0x20) &- UInt8(ascii: "a")
                    guard digit < 6 else { return nil }
                    digit += 10
                }
                value = value << 4 | UInt64(digit)
                index += 1
            }
            return value
        }
        var value: UInt64 = 0
        while index < bytes.count {
            let digit = digitValue(bytes[index])
            guard digit < radix else { return nil }
            if cannotOverflow {
                value = value &* radix &+ digit
            } else {
                let (shifted, overflow) = value.multipliedReportingOverflow(by: radix)
                let (sum, carry) = shifted.addingReportingOverflow(digit)
                guard !overflow, !carry else { return nil }
                value = sum
            }
            index += 1
        }
        return value
    }

    /// A byte's value as a hex digit (either case), 255 for a byte that is none. Computed, not
    /// looked up in a table: a static table is reached through a once-check per digit.
    @inline(__always)
    private static func digitValue(_ byte: UInt8) -> UInt64 {
        switch byte {
        case UInt8(ascii: "0")...UInt8(ascii: "9"): UInt64(byte &- UInt8(ascii: "0"))
        case UInt8(ascii: "a")...UInt8(ascii: "f"): UInt64(byte &- UInt8(ascii: "a") &+ 10)
        case UInt8(ascii: "A")...UInt8(ascii: "F"): UInt64(byte &- UInt8(ascii: "A") &+ 10)
        default: 255
        }
    }
}

/// The addresses to look up, one per argument or per line of standard input, read as bytes: a
/// million-line batch must not pay for a String per line.
struct AddressBatch {
    /// The longest line of standard input read as an address (an address takes at most 20
    /// characters; the rest of the room is for spaces).
    static let longestLine = 1_024

    let arguments: [String]
    /// For standard input: each address's (first byte, end byte, line number) in `data`.
    private(set) var spans: [(from: Int, to: Int, line: Int)] = []
    private(set) var data: [UInt8] = []
    private(set) var addresses: [UInt64] = []
    private(set) var valid: [Bool] = []
    /// Lines longer than `longestLine` are no address: only their first bytes are kept (for the
    /// message), so a gigabyte without a newline costs no more memory than a short line.
    /// Input index → the line's length.
    private(set) var overlongLines: [Int: Int] = [:]

    static func gather(arguments: [String], stdin: FileHandle) -> AddressBatch {
        var batch = AddressBatch(arguments: arguments)
        if arguments.isEmpty {
            batch.readLines(stdin)
        } else {
            for argument in arguments { batch.add(SymbolicateObject.parseAddress(Array(argument.utf8)[...])) }
        }
        return batch
    }

    /// The input as given, for messages and output.
    func text(_ index: Int) -> String {
        if !arguments.isEmpty { return arguments[index] }
        return String(decoding: data[spans[index].from..<spans[index].to], as: UTF8.self)
    }

    /// Where an input came from, for messages.
    func place(_ index: Int) -> String {
        arguments.isEmpty ? "<stdin>: line \(spans[index].line)" : "argument \(index + 1)"
    }

    private mutating func reserve(lines: Int, bytes: Int) {
        spans.reserveCapacity(lines)
        addresses.reserveCapacity(lines)
        valid.reserveCapacity(lines)
        data.reserveCapacity(bytes)
    }

    private mutating func add(_ address: UInt64?) {
        addresses.append(address ?? 0)
        valid.append(address != nil)
    }

    private mutating func readLines(_ stdin: FileHandle) {
        var lines = LineState()
        let chunk = UnsafeMutableRawBufferPointer.allocate(byteCount: 1 << 16, alignment: 1)
        defer { chunk.deallocate() }
        // From a regular file, the arrays are sized once from its size and the first chunk's lines:
        // grown by doubling they were copied into fresh pages, a twentieth of a small binary's
        // page faults.
        var fileSize = 0
        var status = stat()
        if fstat(stdin.fileDescriptor, &status) == 0, status.st_mode & S_IFMT == S_IFREG { fileSize = Int(status.st_size) }
        var firstChunk = true
        while true {
            // A read error ends the input as its end would: what was read is answered.
            guard case .success(let got) = FileIO.read(stdin.fileDescriptor, into: chunk.baseAddress!, count: chunk.count), got > 0
            else { break }
            if firstChunk {
                firstChunk = false
                if fileSize > got, let newline = memchr(chunk.baseAddress!, Int32(UInt8(ascii: "\n")), got) {
                    // The first line's length stands for the rest (capped: a line has two bytes at least).
                    let lineLength = max(2, newline - chunk.baseAddress! + 1)
                    reserve(lines: min(fileSize / lineLength + 64, fileSize / 2 + 1), bytes: fileSize)
                }
            }
            // Line by line with memchr: a long line is skipped over, not walked byte by byte.
            var position = 0
            while position < got {
                let start = chunk.baseAddress! + position
                let newline = memchr(start, Int32(UInt8(ascii: "\n")), got - position)
                let end = newline.map { $0 - chunk.baseAddress! } ?? got
                let piece = end - position
                // A whole line in the chunk: read where it is, only its address's bytes kept (copying
                // every line into `data` first, then trimming and reading it there, was half of
                // reading a million addresses, all of it before the first answer).
                if newline != nil, lines.length == 0, piece <= Self.longestLine {
                    addLine(UnsafeRawBufferPointer(start: start, count: piece), number: &lines.number)
                    lines.start = data.count
                    position = end + 1
                    continue
                }
                let room = max(0, Self.longestLine + 1 - lines.length)
                if room > 0 {
                    data.append(contentsOf: UnsafeRawBufferPointer(start: start, count: min(piece, room)))
                }
                lines.length += piece
                if newline != nil { endLine(&lines) }
                position = end + 1
            }
        }
        if lines.length > 0 { endLine(&lines) }
    }

    /// A whole line of standard input no longer than `longestLine`, as `endLine` reads it: its
    /// bytes without the spaces around them kept in `data`; an empty line counts but adds nothing.
    private mutating func addLine(_ line: UnsafeRawBufferPointer, number: inout Int) {
        number += 1
        var first = 0
        var last = line.count
        func isSpace(_ byte: UInt8) -> Bool { byte == 32 || byte == 9 || byte == 13 }
        while first < last, isSpace(line[first]) { first += 1 }
        while last > first, isSpace(line[last - 1]) { last -= 1 }
        guard first < last else { return }
        let kept = UnsafeRawBufferPointer(rebasing: line[first..<last])
        let address = SymbolicateObject.parseAddress(kept.assumingMemoryBound(to: UInt8.self))
        let from = data.count
        data.append(contentsOf: kept)
        spans.append((from, data.count, number))
        add(address)
    }

    /// Where the line being read starts in `data`, its full length, and its number.
    private struct LineState {
        var number = 0
        var start = 0
        var length = 0
    }

    private mutating func endLine(_ line: inout LineState) {
        line.number += 1
        let (first, last, address) = data.withUnsafeBufferPointer { data in
            var first = line.start
            var last = data.count
            func isSpace(_ byte: UInt8) -> Bool { byte == 32 || byte == 9 || byte == 13 }
            while first < last, isSpace(data[first]) { first += 1 }
            while last > first, isSpace(data[last - 1]) { last -= 1 }
            let address = SymbolicateObject.parseAddress(UnsafeBufferPointer(rebasing: data[first..<last]))
            return (first, last, address)
        }
        if line.length > Self.longestLine {
            overlongLines[spans.count] = line.length
            spans.append((line.start, data.count, line.number))
            add(nil)
        } else if first < last {
            spans.append((first, last, line.number))
            add(address)
        } else {
            data.removeSubrange(line.start...)
        }
        line.start = data.count
        line.length = 0
    }
}

/// Batches repeat addresses (stacks share their hot frames): each distinct address is looked up
/// and formatted once, and every later occurrence copies its bytes.
struct DistinctAddresses {
    private(set) var distinct: [UInt64] = []
    /// Input index → index into `distinct`; -1 for an input that is no address.
    private(set) var slots: [Int32]

    init(_ batch: AddressBatch) {
        slots = [Int32](repeating: -1, count: batch.addresses.count)
        distinct.reserveCapacity(batch.addresses.count)
        // An open-addressing table of slot + 1 by address, twice the batch's size, probed from a
        // multiply-shift hash (a Dictionary hashed every address with SipHash and grew as it
        // filled: 2% of a small binary's batch).
        var bits = 4
        while 1 << bits < 2 * batch.addresses.count { bits += 1 }
        var table = [Int32](repeating: 0, count: 1 << bits)
        let mask = table.count - 1
        for index in batch.addresses.indices where batch.valid[index] {
            let address = batch.addresses[index]
            var probe = Int(truncatingIfNeeded: (address &* 0x9E37_79B9_7F4A_7C15) >> UInt64(64 - bits))
            while true {
                let entry = table[probe]
                if entry == 0 {
                    let slot = Int32(distinct.count)
                    table[probe] = slot + 1
                    distinct.append(address)
                    slots[index] = slot
                    break
                }
                if distinct[Int(entry - 1)] == address {
                    slots[index] = entry - 1
                    break
                }
                probe = (probe + 1) & mask
            }
        }
    }
}

/// Writes the answers in input order. The formatted bytes of each distinct answer live in one
/// arena: `pieces[slot]` ..< `pieces[slot + 1]` index `spans`, the byte ranges of its parts.
struct AnswerWriter {
    let batch: AddressBatch
    let lookups: DistinctAddresses
    let answers: [SymbolicatedFrame]
    let image: String
    /// The values are runtime addresses (`-l`): an offset past 2^63 lies below the load address.
    var signedOffsets = false
    private var arena: [UInt8] = []
    private var spans: [Range<Int>] = []
    private var pieces: [Int] = [0]

    /// The answers of `BuildSymbolizer.lookupForText`, for text output (then `answers` is empty).
    let direct: DirectAnswers?

    init(batch: AddressBatch, lookups: DistinctAddresses, answers: [SymbolicatedFrame], image: String) {
        self.batch = batch
        self.lookups = lookups
        self.answers = answers
        self.image = image
        direct = nil
    }

    init(batch: AddressBatch, lookups: DistinctAddresses, direct: DirectAnswers, image: String) {
        self.batch = batch
        self.lookups = lookups
        answers = []
        self.image = image
        self.direct = direct
    }

    private mutating func keep(_ text: String) {
        let from = arena.count
        arena.append(contentsOf: text.utf8)
        spans.append(from..<arena.count)
    }

    /// An answer's JSON object in two parts, around the `input` field (the only one that depends on
    /// how the address was written).
    private func jsonParts(_ slot: Int) -> (head: String, tail: String) {
        let answer = answers[slot]
        var head = "\"address\":"
        SymbolicateOutput.jsonString(SymbolicateOutput.hex(lookups.distinct[slot]), into: &head)
        SymbolicateOutput.jsonField("debug_file", answer.debugFile, into: &head)
        head += ",\"frames\":["
        for (position, source) in answer.frames.enumerated() {
            if position > 0 { head += "," }
            SymbolicateOutput.jsonSource(source, into: &head)
        }
        head += "]"
        SymbolicateOutput.jsonField("function_start", answer.functionStart.map(SymbolicateOutput.hex), into: &head)
        var tail = ""
        SymbolicateOutput.jsonField("lookup_address", answer.lookupAddress.map(SymbolicateOutput.hex), into: &tail)
        SymbolicateOutput.jsonField("status", SymbolicateOutput.jsonStatus(answer.status), into: &tail)
        return (head, tail + "}")
    }

    mutating func writeJSON(to stdout: inout some TextOutputStream) {
        // The output buffer is the call's own: the writer, kept after the batch, holds answers only.
        var out = ByteOutput()
        // Each distinct answer is formatted once, at its first occurrence; its bytes are kept only
        // when it occurs again (a million distinct answers kept whole were half a gigabyte).
        var occurs = [UInt8](repeating: 0, count: answers.count)
        for slot in lookups.slots where slot >= 0 && occurs[Int(slot)] < 2 { occurs[Int(slot)] += 1 }
        var keptAt = [Int32](repeating: -1, count: answers.count)
        // Written answer by answer: a million-address batch must not hold its whole JSON at once.
        out.append("[")
        for index in batch.addresses.indices {
            out.append(index == 0 ? "{" : ",{")
            let slot = Int(lookups.slots[index])
            if slot >= 0 {
                var input = "\"input\":\""
                if batch.arguments.isEmpty {
                    // Only hex or decimal digits: nothing to escape.
                    input += String(decoding: batch.data[batch.spans[index].from..<batch.spans[index].to], as: UTF8.self)
                } else {
                    input += batch.arguments[index]
                }
                input += "\""
                if keptAt[slot] >= 0 {
                    out.append(arena, spans[Int(keptAt[slot])])
                    out.append(",")
                    out.append(input)
                    out.append(arena, spans[Int(keptAt[slot]) + 1])
                } else {
                    let (head, tail) = jsonParts(slot)
                    out.append(head)
                    out.append(",")
                    out.append(input)
                    out.append(tail)
                    if occurs[slot] > 1 {
                        keptAt[slot] = Int32(spans.count)
                        keep(head)
                        keep(tail)
                    }
                }
            } else {
                var object = "\"frames\":[]"
                SymbolicateOutput.jsonField("input", batch.text(index), into: &object)
                SymbolicateOutput.jsonField("status", "invalid_input", into: &object)
                out.append(object + "}")
            }
            out.flushIfFull(into: &stdout)
        }
        out.append("]\n")
        out.flush(into: &stdout)
    }

    mutating func writeFolded(names: SymbolicateOutput.Names = .simplified, to stdout: inout some TextOutputStream) {
        // The output buffer is the call's own: the writer, kept after the batch, holds answers only.
        var out = ByteOutput()
        for answer in answers {
            keep(SymbolicateOutput.foldedNames(image: image, frame: answer, names: names).joined(separator: ";") + " 1\n")
            pieces.append(spans.count)
        }
        for index in batch.addresses.indices where lookups.slots[index] >= 0 {
            out.append(arena, spans[pieces[Int(lookups.slots[index])]])
            out.flushIfFull(into: &stdout)
        }
        out.flush(into: &stdout)
    }

    /// atos's lines (`SymbolicateOutput.atosLines`), answer after answer in input order; an input
    /// that is no address is written back as given (its error is on standard error).
    mutating func writeAtos(demangles: Bool, to stdout: inout some TextOutputStream) {
        var out = ByteOutput()
        var formatted: [String?] = Array(repeating: nil, count: answers.count)
        for index in batch.addresses.indices {
            let slot = Int(lookups.slots[index])
            if slot < 0 {
                out.append(batch.text(index) + "\n")
            } else if let known = formatted[slot] {
                out.append(known)
            } else {
                let lines = SymbolicateOutput.atosLines(input: batch.text(index), image: image, frame: answers[slot], demangles: demangles)
                // An address nothing was found at is written back as given, so only the others are
                // the same for every spelling of the address.
                if !answers[slot].frames.isEmpty { formatted[slot] = lines }
                out.append(lines)
            }
            out.flushIfFull(into: &stdout)
        }
        out.flush(into: &stdout)
    }

    mutating func writeText(names: SymbolicateOutput.Names = .simplified, to stdout: inout some TextOutputStream) {
        // The output buffer is the call's own: the writer, kept after the batch, holds answers only.
        var out = ByteOutput()
        var sink = out.bytes
        let imageColumn = SymbolicateOutput.imageColumn(image)
        // An answer given once (most are) is formatted straight into the output, its index column
        // first on each line. Only an answer given again is formatted once into `lines` and copied
        // out per occurrence: formatting every answer into `lines` first was a megabyte of fresh
        // pages and a copy of the whole output (a tenth of a small binary's page faults).
        var occurs = [UInt8](repeating: 0, count: lookups.distinct.count)
        for slot in lookups.slots where slot >= 0 && occurs[Int(slot)] < 2 { occurs[Int(slot)] += 1 }
        var lineEnds: [Int] = []
        var lines = TextBytes(capacity: 1 << 12)
        // Per repeated answer, where its lines start in `pieces` (-1: not formatted yet).
        var keptAt = [Int32](repeating: -1, count: occurs.count)
        // Each line of a kept answer, without its first column, which is written per occurrence.
        func keep(_ from: Int) {
            var from = from
            for end in lineEnds {
                spans.append(from..<end)
                from = end
            }
            pieces.append(spans.count)
        }
        // By position, so each answer is lent to the formatting rather than copied (a copy
        // retained and released every string of it).
        func format(
            _ slot: Int, indexColumn: Int?, into target: inout TextBytes, frames: UnsafeBufferPointer<DirectAnswers.Frame>,
            text: UnsafeRawBufferPointer
        ) {
            lineEnds.removeAll(keepingCapacity: true)
            if let direct {
                SymbolicateOutput.appendTextLines(
                    imageColumn: imageColumn, image: image, address: lookups.distinct[slot], answer: direct.answers[slot],
                    frames: frames, text: text, indexColumn: indexColumn, signedOffsets: signedOffsets, into: &target, lineEnds: &lineEnds)
            } else {
                SymbolicateOutput.appendTextLines(
                    imageColumn: imageColumn, image: image, address: lookups.distinct[slot], frame: answers[slot], names: names,
                    indexColumn: indexColumn, signedOffsets: signedOffsets, into: &target, lineEnds: &lineEnds)
            }
        }
        let frames = direct?.frames ?? []
        let text = direct?.text ?? []
        frames.withUnsafeBufferPointer { frames in
            text.withUnsafeBytes { text in
                for index in batch.addresses.indices {
                    let slot = Int(lookups.slots[index])
                    if slot < 0 {
                        out.append("\(batch.text(index)) ?? [not an address]\n")
                    } else if occurs[slot] == 1 {
                        format(slot, indexColumn: index, into: &sink, frames: frames, text: text)
                    } else {
                        if keptAt[slot] < 0 {
                            keptAt[slot] = Int32(pieces.count - 1)
                            let from = lines.count
                            format(slot, indexColumn: nil, into: &lines, frames: frames, text: text)
                            keep(from)
                        }
                        let first = Int(keptAt[slot])
                        for piece in pieces[first]..<pieces[first + 1] {
                            out.appendIndexColumn(index)
                            out.append(bytes: UnsafeRawBufferPointer(rebasing: lines.bytes[spans[piece]]))
                        }
                    }
                    out.flushIfFull(into: &stdout)
                }
            }
        }
        out.flush(into: &stdout)
    }
}
