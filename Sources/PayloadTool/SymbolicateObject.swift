import Foundation
import StackSymbolize

/// `symbolicate --object PATH`: addresses in one debug file, looked up as given.
enum SymbolicateObject {
    static func run(
        object: String, uuid: String?, offsets: Bool, indexFolder: String?, addressArguments: [String], stdin: FileHandle,
        format: SymbolicateCommand.Format, stdout: inout some TextOutputStream, stderr: inout some TextOutputStream
    ) -> Int32 {
        if let uuid, UUIDText.normalized(uuid) == nil {
            return reportUsage(
                UsageError(message: "Option '--uuid' needs a UUID, got '\(uuid)'."), command: "symbolicate",
                usage: SymbolicateCommand.usage, to: &stderr)
        }
        // Inputs, read as bytes: a million-line batch must not pay for a String per line.
        // (first byte, end byte, line) into `data` for stdin; argument index for arguments.
        var spans: [(from: Int, to: Int, line: Int)] = []
        var data: [UInt8] = []
        func text(_ index: Int) -> String {
            if !addressArguments.isEmpty { return addressArguments[index] }
            return String(decoding: data[spans[index].from..<spans[index].to], as: UTF8.self)
        }
        func place(_ index: Int) -> String {
            addressArguments.isEmpty ? "<stdin>: line \(spans[index].line)" : "argument \(index + 1)"
        }
        var addresses: [UInt64] = []
        var valid: [Bool] = []
        if addressArguments.isEmpty {
            data = [UInt8](stdin.readDataToEndOfFile())
            var lineNumber = 0
            var lineStart = 0
            while lineStart < data.count {
                var lineEnd = lineStart
                while lineEnd < data.count, data[lineEnd] != UInt8(ascii: "\n") { lineEnd += 1 }
                lineNumber += 1
                var first = lineStart
                var last = lineEnd
                while first < last, data[first] == 32 || data[first] == 9 || data[first] == 13 { first += 1 }
                while last > first, data[last - 1] == 32 || data[last - 1] == 9 || data[last - 1] == 13 { last -= 1 }
                if first < last {
                    spans.append((first, last, lineNumber))
                    let value = parseAddress(data[first..<last])
                    addresses.append(value ?? 0)
                    valid.append(value != nil)
                }
                lineStart = lineEnd + 1
            }
        } else {
            for argument in addressArguments {
                let value = parseAddress(Array(argument.utf8)[...])
                addresses.append(value ?? 0)
                valid.append(value != nil)
            }
        }
        var failed = false
        for (index, isValid) in valid.enumerated() where !isValid {
            stderr.write("error: \(place(index)): '\(text(index))' is not an address (0x-prefixed hex or decimal)\n")
            failed = true
        }
        let symbolizer: BuildSymbolizer
        let answers: [SymbolicatedFrame]
        do {
            symbolizer = try BuildSymbolizer(debugFiles: [object], indexFolder: indexFolder)
            symbolizer.progress = SymbolicateOutput.progressLine()
            for problem in symbolizer.problems { stderr.write("warning: \(problem)\n") }
            guard !symbolizer.debugFiles.isEmpty else {
                // A folder without debug files, a FIFO, /dev/zero: say so rather than "has 0 slices".
                stderr.write("error: \(object): no debug file (Mach-O, .dSYM bundle or ELF) found\n")
                return PayloadTool.exitFailure
            }
            answers = try symbolizer.lookup(addresses: addresses, uuid: uuid, offsets: offsets)
        } catch {
            stderr.write("error: \(error)\n")
            return PayloadTool.exitFailure
        }
        // The debug file's own name is the image's (`YuiApp.app.dSYM/.../DWARF/YuiApp` → `YuiApp`).
        let image = answers.first?.debugFile.map { ($0 as NSString).lastPathComponent } ?? (object as NSString).lastPathComponent
        switch format {
        case .json:
            // Written answer by answer: a million-address batch must not hold its whole JSON at once.
            stdout.write("[")
            for (index, answer) in answers.enumerated() {
                var object = index == 0 ? "{" : ",{"
                if valid[index] {
                    SymbolicateOutput.jsonField("address", SymbolicateOutput.hex(addresses[index]), first: true, into: &object)
                    SymbolicateOutput.jsonField("debug_file", answer.debugFile, into: &object)
                    object += ","
                }
                object += "\"frames\":["
                if valid[index] {
                    for (position, source) in answer.frames.enumerated() {
                        if position > 0 { object += "," }
                        SymbolicateOutput.jsonSource(source, into: &object)
                    }
                }
                object += "]"
                if valid[index] {
                    SymbolicateOutput.jsonField("function_start", answer.functionStart.map(SymbolicateOutput.hex), into: &object)
                }
                SymbolicateOutput.jsonField("input", text(index), into: &object)
                if valid[index] {
                    SymbolicateOutput.jsonField("lookup_address", answer.lookupAddress.map(SymbolicateOutput.hex), into: &object)
                }
                SymbolicateOutput.jsonField("status", valid[index] ? answer.status.rawValue : "invalid_input", into: &object)
                object += "}"
                stdout.write(object)
            }
            stdout.write("]\n")
        case .folded:
            for (index, answer) in answers.enumerated() where valid[index] {
                stdout.write(SymbolicateOutput.foldedNames(image: image, frame: answer).joined(separator: ";") + " 1\n")
            }
        case .text:
            for (index, answer) in answers.enumerated() {
                if !valid[index] {
                    stdout.write("\(text(index)) ?? [not an address]\n")
                    continue
                }
                stdout.write(SymbolicateOutput.textLines(index: index, image: image, address: addresses[index], frame: answer))
            }
        }
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
