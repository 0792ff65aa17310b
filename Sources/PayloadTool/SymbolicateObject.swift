import Foundation
import StackSymbolize

/// `symbolicate --object PATH`: addresses in one debug file, looked up as given.
enum SymbolicateObject {
    struct JSONAnswer: Codable {
        var address: String
        var debug_file: String?
        var frames: [SymbolicateOutput.JSONSource]
        var function_start: String?
        var input: String
        var lookup_address: String?
        var status: String
    }

    static func run(
        object: String, uuid: String?, offsets: Bool, indexFolder: String?, addressArguments: [String], stdin: FileHandle,
        format: SymbolicateCommand.Format, stdout: inout some TextOutputStream, stderr: inout some TextOutputStream
    ) -> Int32 {
        if let uuid, UUIDText.normalized(uuid) == nil {
            return reportUsage(
                UsageError(message: "Option '--uuid' needs a UUID, got '\(uuid)'."), command: "symbolicate",
                usage: SymbolicateCommand.usage, to: &stderr)
        }
        // Inputs: (text as given, where it came from).
        var inputs: [(text: String, place: String)] = []
        if addressArguments.isEmpty {
            let data = stdin.readDataToEndOfFile()
            var lineNumber = 0
            for line in String(decoding: data, as: UTF8.self).split(separator: "\n", omittingEmptySubsequences: false) {
                lineNumber += 1
                let trimmed = line.trimmingCharacters(in: .whitespaces)
                if trimmed.isEmpty { continue }
                inputs.append((trimmed, "<stdin>: line \(lineNumber)"))
            }
        } else {
            for (index, argument) in addressArguments.enumerated() {
                inputs.append((argument, "argument \(index + 1)"))
            }
        }
        var failed = false
        var addresses: [UInt64] = []
        var valid: [Bool] = []
        for input in inputs {
            if let value = parseAddress(input.text) {
                addresses.append(value)
                valid.append(true)
            } else {
                stderr.write("error: \(input.place): '\(input.text)' is not an address (0x-prefixed hex or decimal)\n")
                addresses.append(0)
                valid.append(false)
                failed = true
            }
        }
        let symbolizer: BuildSymbolizer
        let answers: [SymbolicatedFrame]
        do {
            symbolizer = try BuildSymbolizer(debugFiles: [object], indexFolder: indexFolder)
            for problem in symbolizer.problems { stderr.write("warning: \(problem)\n") }
            answers = try symbolizer.lookup(addresses: addresses, uuid: uuid, offsets: offsets)
        } catch {
            stderr.write("error: \(error)\n")
            return PayloadTool.exitFailure
        }
        // The debug file's own name is the image's (`YuiApp.app.dSYM/.../DWARF/YuiApp` → `YuiApp`).
        let image = answers.first?.debugFile.map { ($0 as NSString).lastPathComponent } ?? (object as NSString).lastPathComponent
        switch format {
        case .json:
            var out: [JSONAnswer] = []
            out.reserveCapacity(answers.count)
            for (index, answer) in answers.enumerated() {
                out.append(
                    JSONAnswer(
                        address: SymbolicateOutput.hex(addresses[index]), debug_file: answer.debugFile,
                        frames: valid[index] ? answer.frames.map(SymbolicateOutput.JSONSource.init) : [],
                        function_start: answer.functionStart.map(SymbolicateOutput.hex), input: inputs[index].text,
                        lookup_address: answer.lookupAddress.map(SymbolicateOutput.hex),
                        status: valid[index] ? answer.status.rawValue : "invalid_input"))
            }
            stdout.write(SymbolicateOutput.encode(out))
        case .folded:
            for (index, answer) in answers.enumerated() where valid[index] {
                stdout.write(SymbolicateOutput.foldedNames(image: image, frame: answer).joined(separator: ";") + " 1\n")
            }
        case .text:
            for (index, answer) in answers.enumerated() {
                if !valid[index] {
                    stdout.write("\(inputs[index].text) ?? [not an address]\n")
                    continue
                }
                stdout.write(SymbolicateOutput.textLines(index: index, image: image, address: addresses[index], frame: answer))
            }
        }
        return failed ? PayloadTool.exitFailure : PayloadTool.exitSuccess
    }

    /// `0x1f2e` (hex) or `7982` (decimal), as atos and llvm-symbolizer read addresses.
    static func parseAddress(_ text: String) -> UInt64? {
        if text.hasPrefix("0x") || text.hasPrefix("0X") { return UInt64(text.dropFirst(2), radix: 16) }
        return UInt64(text, radix: 10)
    }
}
