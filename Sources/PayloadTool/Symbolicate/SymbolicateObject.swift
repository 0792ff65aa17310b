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
        /// `--verbose`: how each debug file was read, on standard error.
        var verbose = false

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
            defer { if request.verbose { for note in symbolizer.readingNotes() { stderr.write("note: \(note)\n") } } }
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
