import Foundation
import PayloadDecode
import StackSymbolize

/// `symbolicate --object PATH`: addresses in one debug file, looked up as given.
enum SymbolicateObject {
    /// The longest line of standard input read as an address (an address takes at most 20
    /// characters; the rest of the room is for spaces).
    static let longestLine = 1_024

    static func run(
        object: String, uuid: String?, offsets: Bool, indexFolder: String?, addressArguments: [String], stdin: FileHandle,
        format: SymbolicateCommand.Format, stdout: inout some TextOutputStream, stderr: inout some TextOutputStream
    ) -> Int32 {
        // Inputs, read as bytes: a million-line batch must not pay for a String per line.
        // (first byte, end byte, line) into `data` for stdin; argument index for arguments.
        var inputSpans: [(from: Int, to: Int, line: Int)] = []
        var data: [UInt8] = []
        func text(_ index: Int) -> String {
            if !addressArguments.isEmpty { return addressArguments[index] }
            return String(decoding: data[inputSpans[index].from..<inputSpans[index].to], as: UTF8.self)
        }
        func place(_ index: Int) -> String {
            addressArguments.isEmpty ? "<stdin>: line \(inputSpans[index].line)" : "argument \(index + 1)"
        }
        var addresses: [UInt64] = []
        var valid: [Bool] = []
        // Lines longer than this are no address: only their first bytes are kept (for the message),
        // so a gigabyte without a newline costs no more memory than a short line.
        var overlongLines: [Int: Int] = [:]
        if addressArguments.isEmpty {
            var lineNumber = 0
            var lineStart = 0
            var lineLength = 0
            func endLine() {
                lineNumber += 1
                var first = lineStart
                var last = data.count
                while first < last, data[first] == 32 || data[first] == 9 || data[first] == 13 { first += 1 }
                while last > first, data[last - 1] == 32 || data[last - 1] == 9 || data[last - 1] == 13 { last -= 1 }
                if lineLength > longestLine {
                    overlongLines[inputSpans.count] = lineLength
                    inputSpans.append((lineStart, data.count, lineNumber))
                    addresses.append(0)
                    valid.append(false)
                } else if first < last {
                    inputSpans.append((first, last, lineNumber))
                    let value = parseAddress(data[first..<last])
                    addresses.append(value ?? 0)
                    valid.append(value != nil)
                } else {
                    data.removeSubrange(lineStart...)
                }
                lineStart = data.count
                lineLength = 0
            }
            let chunk = UnsafeMutableRawBufferPointer.allocate(byteCount: 1 << 16, alignment: 1)
            defer { chunk.deallocate() }
            while true {
                let got = read(stdin.fileDescriptor, chunk.baseAddress, chunk.count)
                if got < 0, errno == EINTR { continue }
                guard got > 0 else { break }
                // Line by line with memchr: a long line is skipped over, not walked byte by byte.
                var position = 0
                while position < got {
                    let start = chunk.baseAddress! + position
                    let newline = memchr(start, Int32(UInt8(ascii: "\n")), got - position)
                    let end = newline.map { $0 - chunk.baseAddress! } ?? got
                    let piece = end - position
                    let room = max(0, longestLine + 1 - lineLength)
                    if room > 0 {
                        data.append(contentsOf: UnsafeRawBufferPointer(start: start, count: min(piece, room)))
                    }
                    lineLength += piece
                    if newline != nil { endLine() }
                    position = end + 1
                }
            }
            if lineLength > 0 { endLine() }
        } else {
            for argument in addressArguments {
                let value = parseAddress(Array(argument.utf8)[...])
                addresses.append(value ?? 0)
                valid.append(value != nil)
            }
        }
        var failed = false
        for (index, isValid) in valid.enumerated() where !isValid {
            if let length = overlongLines[index] {
                stderr.write("error: \(place(index)): a line of \(length) bytes, longer than \(longestLine): not an address\n")
            } else {
                stderr.write("error: \(place(index)): \(InputText.quoted(text(index))) is not an address (0x-prefixed hex or decimal)\n")
            }
            failed = true
        }
        // Batches repeat addresses (stacks share their hot frames): each distinct address is looked up
        // and formatted once, and every later occurrence copies its bytes.
        var slotOfAddress: [UInt64: Int32] = [:]
        var distinct: [UInt64] = []
        var slots = [Int32](repeating: -1, count: addresses.count)
        for index in addresses.indices where valid[index] {
            let address = addresses[index]
            if let known = slotOfAddress[address] {
                slots[index] = known
            } else {
                let slot = Int32(distinct.count)
                slotOfAddress[address] = slot
                distinct.append(address)
                slots[index] = slot
            }
        }
        slotOfAddress = [:]
        let symbolizer: BuildSymbolizer
        let answers: [SymbolicatedFrame]
        do {
            symbolizer = try BuildSymbolizer(debugFiles: [object], indexFolder: indexFolder)
            symbolizer.progress = SymbolicateOutput.progressLine()
            for problem in symbolizer.problems {
                stderr.write("error: \(problem)\n")
                failed = true
            }
            guard !symbolizer.debugFiles.isEmpty else {
                // A folder without debug files, a FIFO, /dev/zero: say so rather than "has 0 slices".
                stderr.write("error: \(object): no debug file (Mach-O, .dSYM bundle or ELF) found\n")
                return PayloadTool.exitFailure
            }
            answers = try symbolizer.lookup(addresses: distinct, uuid: uuid, offsets: offsets)
        } catch {
            stderr.write("error: \(error)\n")
            return PayloadTool.exitFailure
        }
        // The debug file's own name is the image's (`YuiApp.app.dSYM/.../DWARF/YuiApp` → `YuiApp`).
        let image = answers.first?.debugFile.map { ($0 as NSString).lastPathComponent } ?? (object as NSString).lastPathComponent
        var out = ByteOutput()
        // Formatted bytes of each distinct answer, in one arena: `pieces[slot]` ..< `pieces[slot + 1]`
        // index `spans`, the byte ranges of its parts.
        var arena: [UInt8] = []
        var spans: [Range<Int>] = []
        var pieces: [Int] = [0]
        func keep(_ text: String) {
            let from = arena.count
            arena.append(contentsOf: text.utf8)
            spans.append(from..<arena.count)
        }
        switch format {
        case .json:
            // Per answer two parts, around the `input` field (the only one that depends on how the
            // address was written).
            for (slot, answer) in answers.enumerated() {
                var head = "\"address\":"
                SymbolicateOutput.jsonString(SymbolicateOutput.hex(distinct[slot]), into: &head)
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
                SymbolicateOutput.jsonField("status", answer.status.rawValue, into: &tail)
                keep(head)
                keep(tail + "}")
                pieces.append(spans.count)
            }
            // Written answer by answer: a million-address batch must not hold its whole JSON at once.
            out.append("[")
            for index in addresses.indices {
                out.append(index == 0 ? "{" : ",{")
                let slot = Int(slots[index])
                if slot >= 0 {
                    out.append(arena, spans[pieces[slot]])
                    out.append(",\"input\":\"")
                    if addressArguments.isEmpty {
                        out.append(data, inputSpans[index].from..<inputSpans[index].to)  // Only hex or decimal digits: nothing to escape.
                    } else {
                        out.append(addressArguments[index])
                    }
                    out.append("\"")
                    out.append(arena, spans[pieces[slot] + 1])
                } else {
                    var object = "\"frames\":[]"
                    SymbolicateOutput.jsonField("input", text(index), into: &object)
                    SymbolicateOutput.jsonField("status", "invalid_input", into: &object)
                    out.append(object + "}")
                }
                out.flushIfFull(into: &stdout)
            }
            out.append("]\n")
        case .folded:
            for answer in answers {
                keep(SymbolicateOutput.foldedNames(image: image, frame: answer).joined(separator: ";") + " 1\n")
                pieces.append(spans.count)
            }
            for index in addresses.indices where slots[index] >= 0 {
                out.append(arena, spans[pieces[Int(slots[index])]])
                out.flushIfFull(into: &stdout)
            }
        case .text:
            // Each line of an answer without its first column (the input's position), which is
            // written per occurrence.
            for (slot, answer) in answers.enumerated() {
                let lines = SymbolicateOutput.textLines(index: 0, image: image, address: distinct[slot], frame: answer)
                for line in lines.utf8.split(separator: UInt8(ascii: "\n")) {
                    let from = arena.count
                    arena.append(contentsOf: line.dropFirst(4))
                    arena.append(UInt8(ascii: "\n"))
                    spans.append(from..<arena.count)
                }
                pieces.append(spans.count)
            }
            for index in addresses.indices {
                let slot = Int(slots[index])
                if slot < 0 {
                    out.append("\(text(index)) ?? [not an address]\n")
                } else {
                    for piece in pieces[slot]..<pieces[slot + 1] {
                        out.appendIndexColumn(index)
                        out.append(arena, spans[piece])
                    }
                }
                out.flushIfFull(into: &stdout)
            }
        }
        out.flush(into: &stdout)
        return failed ? PayloadTool.exitFailure : PayloadTool.exitSuccess
    }

    /// `0x1f2e` (hex) or `7982` (decimal), as atos and llvm-symbolizer read addresses; `nil` for
    /// anything else, including values past 2^64.
    static func parseAddress(_ bytes: ArraySlice<UInt8>) -> UInt64? {
        var index = bytes.startIndex
        var radix: UInt64 = 10
        if bytes.count > 2, bytes[index] == UInt8(ascii: "0"), bytes[index + 1] | 0x20 == UInt8(ascii: "x") {
            radix = 16
            index += 2
        }
        guard index < bytes.endIndex else { return nil }
        var value: UInt64 = 0
        while index < bytes.endIndex {
            let byte = bytes[index]
            let digit: UInt64
            switch byte {
            case UInt8(ascii: "0")...UInt8(ascii: "9"): digit = UInt64(byte - UInt8(ascii: "0"))
            case UInt8(ascii: "a")...UInt8(ascii: "f") where radix == 16: digit = UInt64(byte - UInt8(ascii: "a") + 10)
            case UInt8(ascii: "A")...UInt8(ascii: "F") where radix == 16: digit = UInt64(byte - UInt8(ascii: "A") + 10)
            default: return nil
            }
            let (shifted, overflow) = value.multipliedReportingOverflow(by: radix)
            let (sum, carry) = shifted.addingReportingOverflow(digit)
            guard !overflow, !carry else { return nil }
            value = sum
            index += 1
        }
        return value
    }
}
