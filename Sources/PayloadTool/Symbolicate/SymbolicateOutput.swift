import Foundation
import PayloadDecode
import StackSymbolize

/// The three output layouts of `symbolicate`: text in the layout of Apple's crash reports, JSON,
/// and folded stacks.
enum SymbolicateOutput {
    static func hex(_ value: UInt64) -> String { "0x" + String(value, radix: 16) }

    /// Which of a frame's names text and folded output print.
    enum Names {
        /// `Type.member` (`SourceFrame.simplifiedName`), the default.
        case simplified
        /// The name as the debug file stores it, mangled (`--no-demangle`): the linkage name, else
        /// the plain name.
        case stored

        func of(_ source: SourceFrame) -> String {
            switch self {
            case .simplified: source.simplifiedName
            case .stored: source.linkageName ?? source.function
            }
        }
    }

    /// A status as JSON writes it, in snake_case like every key (JSON format 2; format 1 wrote the
    /// Swift case names, `missingDebugFile`). docs/command-line.md, "JSON format".
    static func jsonStatus(_ status: SymbolicatedFrame.Status) -> String {
        switch status {
        case .symbolicated: "symbolicated"
        case .symbolTable: "symbol_table"
        case .missingDebugFile: "missing_debug_file"
        case .notFound: "not_found"
        case .report: "report"
        }
    }

    private static let hexDigits = Array("0123456789abcdef".utf8)

    /// `0x%016llx` without Foundation's formatter (it showed in batch profiles).
    static func paddedHex(_ value: UInt64) -> String {
        var bytes = [UInt8](repeating: UInt8(ascii: "0"), count: 18)
        bytes[1] = UInt8(ascii: "x")
        var rest = value
        var position = 17
        while rest != 0, position >= 2 {
            bytes[position] = hexDigits[Int(rest & 0xf)]
            rest >>= 4
            position -= 1
        }
        return String(decoding: bytes, as: UTF8.self)
    }

    /// The last path component, without NSString's path normalisation.
    static func baseName(_ path: String) -> Substring {
        guard let slash = path.utf8.lastIndex(of: UInt8(ascii: "/")) else { return path[...] }
        return path[path.utf8.index(after: slash)...]
    }

    private static func padded(_ text: String, _ width: Int) -> String {
        text.count >= width ? text + " " : text + String(repeating: " ", count: width - text.count)
    }

    /// `0   YuiApp    0x0000000100004f20 YuiLines.parse + 32 (YuiLines.swift:42)`, one line per
    /// source frame (inlined ones marked), or `image + offset` with the reason when unsymbolicated.
    static func textLines(index: Int, image: String, address: UInt64, frame: SymbolicatedFrame, names: Names = .simplified) -> String {
        var bytes: [UInt8] = []
        var lineEnds: [Int] = []
        appendTextLines(
            imageColumn: imageColumn(image), image: image, address: address, frame: frame, names: names, into: &bytes, lineEnds: &lineEnds)
        let indexColumn = padded(String(index), 4)
        var text = ""
        var start = 0
        for end in lineEnds {
            text += indexColumn
            text += String(decoding: bytes[start..<end], as: UTF8.self)
            start = end
        }
        return text
    }

    /// The image column of a text line: the name left-aligned in 24 columns (one space after a
    /// longer name).
    static func imageColumn(_ image: String) -> [UInt8] { Array(padded(image, 24).utf8) }

    /// Appends the lines `textLines` gives, each without its first column (the index, which
    /// `--object` writes per occurrence), to `out`, and where each line ends to `lineEnds`. Bytes
    /// straight into the buffer: a String per piece was most of a warm run's time.
    static func appendTextLines(
        imageColumn: [UInt8], image: String, address: UInt64, frame: SymbolicatedFrame, names: Names = .simplified, indexColumn: Int? = nil,
        signedOffsets: Bool = false, into out: inout some ByteSink, lineEnds: inout [Int]
    ) {
        appendAnswerLines(
            imageColumn: imageColumn, image: image, address: address, offset: frame.request.offset, lookupAddress: frame.lookupAddress,
            missingUUID: frame.status == .missingDebugFile ? frame.request.uuid ?? "(none)" : nil, frameCount: frame.frames.count,
            indexColumn: indexColumn, signedOffsets: signedOffsets, into: &out, lineEnds: &lineEnds
        ) { position, out in
            appendSourceText(frame.frames[position], of: frame, names: names, into: &out)
        }
    }

    /// `appendTextLines` for an answer of `BuildSymbolizer.lookupForText`, whose frames' names and
    /// paths are bytes of `text` (`DirectAnswers.text`).
    /// `offset` is the offset a line without a name shows, when not the answer's own (a stack's
    /// frame shows its offset as the row gives it, not the caller's instruction looked up).
    static func appendTextLines(
        imageColumn: [UInt8], image: String, address: UInt64, offset: UInt64? = nil, answer: DirectAnswers.Answer,
        frames: UnsafeBufferPointer<DirectAnswers.Frame>, text: UnsafeRawBufferPointer, indexColumn: Int? = nil, signedOffsets: Bool = false,
        into out: inout some ByteSink, lineEnds: inout [Int]
    ) {
        appendAnswerLines(
            imageColumn: imageColumn, image: image, address: address, offset: offset ?? answer.offset, lookupAddress: answer.lookupAddress,
            missingUUID: nil, frameCount: answer.frames.count, indexColumn: indexColumn, signedOffsets: signedOffsets, into: &out,
            lineEnds: &lineEnds
        ) { position, out in
            let frame = frames[Int(answer.frames.lowerBound) + position]
            appendFrameText(
                name: UnsafeRawBufferPointer(rebasing: text[Int(frame.name.lowerBound)..<Int(frame.name.upperBound)]),
                file: frame.file.map { UnsafeRawBufferPointer(rebasing: text[Int($0.lowerBound)..<Int($0.upperBound)]) }, line: frame.line,
                isInlined: frame.isInlined, functionStart: answer.functionStart, lookupAddress: answer.lookupAddress,
                isSymbolTable: answer.status == .symbolTable, into: &out)
        }
    }

    /// The line of a frame no debug file answered (`image + offset [no debug file for UUID ...]`),
    /// as `appendTextLines` writes it for a `missingDebugFile` answer.
    static func appendMissingDebugFileLine(
        imageColumn: [UInt8], image: String, address: UInt64, uuid: String, indexColumn: Int? = nil, into out: inout some ByteSink,
        lineEnds: inout [Int]
    ) {
        appendAnswerLines(
            imageColumn: imageColumn, image: image, address: address, offset: address, lookupAddress: nil, missingUUID: uuid, frameCount: 0,
            indexColumn: indexColumn, signedOffsets: false, into: &out, lineEnds: &lineEnds
        ) { _, _ in }
    }

    /// The lines of one answer: `image address` then the frame's text (`appendFrame`) per frame,
    /// or the line of an address nothing was found at; each line starts with `indexColumn` when
    /// it is given.
    private static func appendAnswerLines<Sink: ByteSink>(
        imageColumn: [UInt8], image: String, address: UInt64, offset: UInt64, lookupAddress: UInt64?, missingUUID: String?,
        frameCount: Int, indexColumn: Int?, signedOffsets: Bool, into out: inout Sink, lineEnds: inout [Int],
        appendFrame: (Int, inout Sink) -> Void
    ) {
        func prefix() {
            if let indexColumn { appendIndexColumn(indexColumn, into: &out) }
            out.append(imageColumn)
            appendPaddedHex(address, into: &out)
            out.append(UInt8(ascii: " "))
        }
        if frameCount == 0 {
            prefix()
            appendUnsymbolicated(
                image: image, address: address, offset: offset, lookupAddress: lookupAddress, missingUUID: missingUUID,
                signedOffsets: signedOffsets, into: &out)
            lineEnds.append(out.count)
            return
        }
        for position in 0..<frameCount {
            prefix()
            appendFrame(position, &out)
            lineEnds.append(out.count)
        }
    }

    /// One source frame's text (`appendFrameText`), the frame lent rather than copied.
    private static func appendSourceText(_ source: SourceFrame, of frame: SymbolicatedFrame, names: Names, into out: inout some ByteSink) {
        // A crash report's own name is printed as the report has it (`closure #1 in
        // ContentView.body.getter`), as Apple's tools print it; its simplified form is top's.
        var name = frame.status == .report ? source.function : names.of(source)
        name.withUTF8 { name in
            withUTF8(source.file) { file in
                appendFrameText(
                    name: UnsafeRawBufferPointer(name), file: file, line: source.line, isInlined: source.isInlined,
                    functionStart: frame.functionStart, lookupAddress: frame.lookupAddress, isSymbolTable: frame.status == .symbolTable,
                    into: &out)
            }
        }
    }

    /// `body` with the UTF-8 bytes of `text`, or nil.
    private static func withUTF8<Result>(_ text: String?, _ body: (UnsafeRawBufferPointer?) -> Result) -> Result {
        guard var text else { return body(nil) }
        return text.withUTF8 { body(UnsafeRawBufferPointer($0)) }
    }

    /// A source frame's line after the address column, with its newline:
    /// `YuiLines.parse + 32 (YuiLines.swift:42)`, ` [inlined]` for an inlined frame, ` [symbol
    /// table]` for a symbol-table answer. `+ offset` is the lookup address's distance from the
    /// function start, on the frame that is not inlined. The bytes are `SourceFrame`'s
    /// `simplifiedName` and `file` (`IndexedTextOutput` passes the index's own).
    static func appendFrameText(
        name: UnsafeRawBufferPointer, file: UnsafeRawBufferPointer?, line: Int?, isInlined: Bool, functionStart: UInt64?,
        lookupAddress: UInt64?, isSymbolTable: Bool, into out: inout some ByteSink
    ) {
        out.append(bytes: name)
        if !isInlined, let start = functionStart, let lookup = lookupAddress, lookup >= start {
            out.append(" + ")
            appendDecimal(lookup - start, into: &out)
        }
        if let file {
            out.append(" (")
            let baseStart = file.lastIndex(of: UInt8(ascii: "/")).map { $0 + 1 } ?? 0
            out.append(bytes: UnsafeRawBufferPointer(rebasing: file[baseStart...]))
            out.append(UInt8(ascii: ":"))
            appendDecimal(UInt64(bitPattern: Int64(line ?? 0)), signed: true, into: &out)
            out.append(UInt8(ascii: ")"))
        }
        if isInlined { out.append(" [inlined]") }
        if isSymbolTable { out.append(" [symbol table]") }
        out.append(UInt8(ascii: "\n"))
    }

    /// The line of an address nothing was found at, after the address column: `image + offset`
    /// and why (`missingUUID`: no debug file for that UUID; else no symbol at the lookup address).
    /// With `signedOffsets` (runtime addresses, `-l`), an offset past 2^63 is one below the load
    /// address: `image - 4096`.
    static func appendUnsymbolicated(
        image: String, address: UInt64, offset: UInt64, lookupAddress: UInt64?, missingUUID: String?, signedOffsets: Bool = false,
        into out: inout some ByteSink
    ) {
        // Bytes, not an interpolated String: a batch of addresses in a stripped region has many.
        // An address below the image's text base (atos mode) has a negative offset: the offset
        // wrapped past the address itself. Wrapped, not merely larger: a stack frame's lookup
        // address is its offset minus one (the call, not the return address), so in an image
        // whose text base is 0 every frame's offset is one more than its lookup address.
        let isBelowBase =
            Int64(bitPattern: offset) < 0 && (lookupAddress.map { offset > $0 } ?? signedOffsets)
        var image = image
        image.withUTF8 { out.append(bytes: UnsafeRawBufferPointer($0)) }
        out.append(isBelowBase ? " - " : " + ")
        appendDecimal(isBelowBase ? 0 &- offset : offset, into: &out)
        if let missingUUID {
            out.append(" [no debug file for UUID ")
            out.append(Array(missingUUID.utf8))
        } else {
            out.append(" [no symbol at ")
            appendHex(lookupAddress ?? address, into: &out)
        }
        out.append("]\n")
    }

    /// `hex(value)` (`0x` and the digits without leading zeros) into bytes.
    static func appendHex(_ value: UInt64, into out: inout some ByteSink) {
        var digits: (UInt64, UInt64, UInt64) = (0, 0, 0)
        withUnsafeMutableBytes(of: &digits) { buffer in
            var position = buffer.count
            var rest = value
            repeat {
                position -= 1
                let nibble = UInt8(truncatingIfNeeded: rest) & 0xf
                buffer[position] = nibble < 10 ? UInt8(ascii: "0") + nibble : UInt8(ascii: "a") - 10 + nibble
                rest >>= 4
            } while rest > 0
            position -= 2
            buffer[position] = UInt8(ascii: "0")
            buffer[position + 1] = UInt8(ascii: "x")
            out.append(bytes: UnsafeRawBufferPointer(rebasing: buffer[position...]))
        }
    }

    /// `0x%016llx`, as `paddedHex`, into bytes.
    static func appendPaddedHex(_ value: UInt64, into out: inout some ByteSink) {
        var digits: (UInt64, UInt64, UInt64) = (0, 0, 0)
        withUnsafeMutableBytes(of: &digits) { buffer in
            buffer[0] = UInt8(ascii: "0")
            buffer[1] = UInt8(ascii: "x")
            for position in 0..<16 {
                let nibble = UInt8(truncatingIfNeeded: value >> UInt64(60 - 4 * position)) & 0xf
                buffer[2 + position] = nibble < 10 ? UInt8(ascii: "0") + nibble : UInt8(ascii: "a") - 10 + nibble
            }
            out.append(bytes: UnsafeRawBufferPointer(rebasing: buffer[..<18]))
        }
    }

    /// A number in decimal, as `"\(value)"` prints it; `signed` reads the bits as an `Int64`.
    static func appendDecimal(_ value: UInt64, signed: Bool = false, into out: inout some ByteSink) {
        var magnitude = value
        if signed, Int64(bitPattern: value) < 0 {
            out.append(UInt8(ascii: "-"))
            magnitude = 0 &- value
        }
        DecimalDigits.with(magnitude) { out.append(bytes: $0) }
    }

    /// The first column of a text line: `value` left-aligned in 4 columns (one space after longer
    /// numbers).
    static func appendIndexColumn(_ value: Int, into out: inout some ByteSink) {
        DecimalDigits.with(UInt64(value)) { digits in
            out.append(bytes: digits)
            for _ in 0..<max(1, 4 - digits.count) { out.append(UInt8(ascii: " ")) }
        }
    }

    /// Folded-stack names of one frame, outermost first.
    static func foldedNames(image: String, frame: SymbolicatedFrame, names: Names = .simplified) -> [String] {
        if frame.frames.isEmpty { return ["\(image)+\(hex(frame.request.offset))"] }
        return frame.frames.reversed().map { names.of($0).replacingOccurrences(of: ";", with: ",") }
    }

    /// atos's lines for one answer, innermost frame first: `function (in image) (file:line)`, or
    /// `function (in image) + N` (N from the function's start) where no line is known; an address
    /// nothing was found at is written back as given, `0x104a00e30 (in image)`, as atos does.
    static func atosLines(input: String, image: String, frame: SymbolicatedFrame, demangles: Bool) -> String {
        guard !frame.frames.isEmpty else { return "\(input) (in \(image))\n" }
        var text = ""
        for source in frame.frames {
            text += demangles ? source.function : source.linkageName ?? source.function
            text += " (in \(image))"
            if let file = source.file {
                text += " (\(baseName(file)):\(source.line ?? 0))"
            } else if !source.isInlined, let start = frame.functionStart, let lookup = frame.lookupAddress, lookup >= start {
                text += " + \(lookup - start)"
            }
            text += "\n"
        }
        return text
    }
}

/// Output gathered as bytes and handed to the stream in 64 KB pieces: a million-line batch must not
/// pay for a String per line. The bytes go to a `TextBytes` (an array's append checked its
/// uniqueness on every piece of every line).
struct ByteOutput {
    private var buffer = TextBytes(capacity: Self.threshold + 4096)
    private static let threshold = 1 << 16

    mutating func append(_ text: String) {
        var text = text
        text.withUTF8 { buffer.append(bytes: UnsafeRawBufferPointer($0)) }
    }

    mutating func append(bytes source: UnsafeRawBufferPointer) { buffer.append(bytes: source) }

    mutating func append(_ source: [UInt8], _ range: Range<Int>) {
        source.withUnsafeBytes { buffer.append(bytes: UnsafeRawBufferPointer(rebasing: $0[range])) }
    }

    /// The first column of a text line, as `SymbolicateOutput.appendIndexColumn` writes it.
    mutating func appendIndexColumn(_ value: Int) { SymbolicateOutput.appendIndexColumn(value, into: &buffer) }

    /// The buffer, for writers that append to it directly (then `flushIfFull`).
    var bytes: TextBytes { buffer }

    mutating func flushIfFull(into stream: inout some TextOutputStream) {
        if buffer.count >= Self.threshold { flush(into: &stream) }
    }

    mutating func flush(into stream: inout some TextOutputStream) {
        guard buffer.count > 0 else { return }
        // As bytes where the stream takes them (standard output does): no `String` made and
        // validated per block.
        writeUTF8(buffer.bytes, to: &stream)
        buffer.removeAll()
    }
}
