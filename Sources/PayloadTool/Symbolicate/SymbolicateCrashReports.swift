import Foundation
import PayloadDecode
import StackSymbolize
import SystemIO

/// `symbolicate --format text|ips REPORT...`: Apple crash reports written back with every frame of
/// every thread named (docs/crash-reports.md). The frames are looked up as a payload's are: by image
/// UUID in the build's folder and the store, frame 0 of each thread as it is, the others as return
/// addresses.
enum SymbolicateCrashReports {
    enum Format: Sendable { case text, ips }

    static func run(
        inputs: InputList, root: String?, build: String?, indexFolder: String?, systemSymbols: [String],
        symbolServers: SymbolServerSettings?, format: Format,
        stdin: FileHandle, stdout: inout some TextOutputStream, stderr: inout some TextOutputStream
    ) -> Int32 {
        var run = StackRun(
            root: root, build: build, indexFolder: indexFolder, systemSymbols: systemSymbols, format: .text,
            progress: ProgressLine.forSlowWork())
        run.symbolServers = symbolServers.map(SymbolServerFetcher.init)
        var failed = !inputs.errors.isEmpty
        for error in inputs.errors { stderr.write("error: \(error)\n") }
        for warning in inputs.warnings { stderr.write("warning: \(warning)\n") }
        var skipped = 0
        /// One report file's bytes written back; `isFromFolder`: a file that is no report is skipped.
        func writeBack(_ bytes: UnsafeRawBufferPointer, name: String, isFromFolder: Bool) -> Bool {
            guard let (_, reports, diagnostics) = CrashReports.read(bytes, fileName: name) else {
                if isFromFolder {
                    skipped += 1
                    return true
                }
                stderr.write("error: \(name): not an Apple crash report (.ips or .crash text); --format writes crash reports back\n")
                return false
            }
            for diagnostic in diagnostics { stderr.write("\(diagnostic.severity.rawValue): \(diagnostic)\n") }
            var insertions: [(at: Int, text: String)] = []
            for report in reports {
                let answers = symbolicate(report, run: &run, stderr: &stderr)
                switch format {
                case .text: stdout.write(text(report, answers: answers))
                case .ips: insertions += ipsKeys(report, answers: answers)
                }
            }
            if format == .ips { stdout.write(insert(insertions, into: bytes)) }
            return !diagnostics.contains { $0.severity == .error }
        }
        for input in inputs.items {
            if !input.isStandardInput, ZipInputs.isZip(input.path) {
                let read = ZipInputs.forEachEntry(input.path) { message in
                    stderr.write("error: \(input.path): \(message)\n")
                } _: { entry, bytes in
                    if !writeBack(bytes, name: "\(input.path) (\(entry))", isFromFolder: true) { failed = true }
                }
                if !read { failed = true }
                continue
            }
            let data: Data
            do {
                data = input.isStandardInput ? stdin.readDataToEndOfFile() : try Data(contentsOf: URL(fileURLWithPath: input.path))
            } catch {
                stderr.write("error: \(input.displayName): cannot read: \(error.localizedDescription)\n")
                failed = true
                continue
            }
            let written = data.withUnsafeBytes { writeBack($0, name: input.displayName, isFromFolder: input.isFromFolder) }
            if !written { failed = true }
        }
        if let note = InputReading.skippedNote(skipped) { stderr.write(note + "\n") }
        return failed || run.failed ? PayloadTool.exitFailure : PayloadTool.exitSuccess
    }

    /// The answers of a report: one stack per thread, then the last exception backtrace.
    struct Answers {
        var threads: [[SymbolicatedFrame]]
        var exception: [SymbolicatedFrame]
    }

    /// Every thread's frames and the last exception backtrace's, answered by the report's build
    /// (or `--build`); a frame no debug file answers keeps the name the report gives it.
    private static func symbolicate(
        _ report: AppleCrashReport, run: inout StackRun, stderr: inout some TextOutputStream
    ) -> Answers {
        let frameLists = report.threads.map(\.frames) + [report.lastExceptionBacktrace]
        let stacks = frameLists.map { frames in
            frames.enumerated().map { index, frame in
                let image = frame.imageIndex.map { report.images[$0] }
                return FrameRequest(
                    image: image?.name.flatMap { ColumnPatterns.imageName($0.utf8) }, uuid: image?.uuid, offset: frame.imageOffset,
                    isReturnAddress: index > 0)
            }
        }
        var answers: [[SymbolicatedFrame]]
        let buildName = run.build ?? CrashReports.appBuild(report).map(String.init)
        if let buildName, case (let symbolizer?, _) = run.symbolizer(for: buildName, stderr: &stderr) {
            answers = symbolizer.symbolicate(stacks: stacks)
            for warning in symbolizer.takeWarnings() { stderr.write("warning: \(warning)\n") }
        } else {
            answers = stacks.map {
                $0.map { SymbolicatedFrame(request: $0, status: .missingDebugFile, lookupAddress: nil, debugFile: nil, frames: []) }
            }
        }
        for (stack, frames) in frameLists.enumerated() {
            for (index, frame) in frames.enumerated() where !frame.names.isEmpty {
                let status = answers[stack][index].status
                guard status == .missingDebugFile || status == .notFound else { continue }
                answers[stack][index] = ReportFrameNames.answer(answers[stack][index].request, names: frame.names)
            }
        }
        return Answers(threads: Array(answers.dropLast()), exception: answers.last ?? [])
    }

    // MARK: Apple's readable layout

    /// The report as `symbolicatecrash` prints one: the header lines the report has, the
    /// exception, each thread (`Thread N Crashed:`) with `index image address name + offset
    /// (file:line)` (the address is the image's load address plus the frame's offset), then
    /// `Binary Images:`. Paths, queue names and identifiers the report holds are not repeated.
    static func text(_ report: AppleCrashReport, answers: Answers) -> String {
        var lines: [String] = []
        func field(_ name: String, _ value: String?) {
            if let value { lines.append((name + ":").padding(toLength: 21, withPad: " ", startingAt: 0) + value) }
        }
        field("Hardware Model", report.modelCode)
        field("Identifier", report.bundleID)
        field("Version", report.appVersion.map { version in report.buildVersion.map { "\(version) (\($0))" } ?? version })
        field("Date/Time", report.time.flatMap(Timestamp.iso8601))
        field("OS Version", report.osVersion)
        lines.append("")
        if let type = report.exceptionType {
            lines.append("Exception Type:  \(type)\(report.signal.map { " (\($0))" } ?? "")")
        }
        if let namespace = report.terminationNamespace {
            let code = report.terminationCode.map { " " + (namespace == "SIGNAL" ? String($0) : "0x" + String($0, radix: 16, uppercase: true)) } ?? ""
            lines.append("Termination Reason: \(namespace)\(code)")
        }
        var out = lines.joined(separator: "\n") + "\n"
        var columns: [String: [UInt8]] = [:]
        func frameLines(_ frames: [AppleCrashReport.Frame], _ answers: [SymbolicatedFrame]) -> String {
            var bytes: [UInt8] = []
            var lineEnds: [Int] = []
            for (index, answer) in answers.enumerated() {
                let image = answer.request.image ?? "???"
                let column = columns[image] ?? SymbolicateOutput.imageColumn(image)
                columns[image] = column
                // The address as the report gives it: the image's load address plus the offset
                // (a frame in no image has its address as the offset).
                let base = frames[index].imageIndex.flatMap { report.images[$0].base } ?? 0
                SymbolicateOutput.appendTextLines(
                    imageColumn: column, image: image, address: base &+ answer.request.offset, frame: answer, indexColumn: index,
                    into: &bytes, lineEnds: &lineEnds)
            }
            return String(decoding: bytes, as: UTF8.self)
        }
        if !report.lastExceptionBacktrace.isEmpty {
            out += "\nLast Exception Backtrace:\n" + frameLines(report.lastExceptionBacktrace, answers.exception)
        }
        for (position, thread) in report.threads.enumerated() {
            out += "\nThread \(thread.number)\(thread.crashed ? " Crashed" : ""):\n" + frameLines(thread.frames, answers.threads[position])
        }
        out += "\nBinary Images:\n"
        for image in report.images where image.base != nil && (image.size ?? 0) > 0 {
            let start = image.base ?? 0
            let end = start &+ (image.size ?? 1) &- 1
            let uuid = image.uuid.map { "<" + $0.replacingOccurrences(of: "-", with: "").lowercased() + ">" } ?? "<?>"
            out +=
                "0x\(String(start, radix: 16)) - 0x\(String(end, radix: 16)) \(image.name.flatMap { ColumnPatterns.imageName($0.utf8) } ?? "???") \(image.arch.flatMap { ColumnPatterns.imageName($0.utf8) } ?? "?")  \(uuid)\n"
        }
        return out + "\n"
    }

    // MARK: .ips with Xcode's keys

    /// `symbol`, `symbolLocation`, `sourceFile` and `sourceLine` for each named frame that has no
    /// `symbol` yet, to go in before its object's `}`: every other byte stays (Xcode's own keys,
    /// in its spelling; the innermost of an inline chain names the frame, as the code at the
    /// address is its).
    static func ipsKeys(_ report: AppleCrashReport, answers: Answers) -> [(at: Int, text: String)] {
        var keys: [(at: Int, text: String)] = []
        let frameLists = report.threads.map(\.frames) + [report.lastExceptionBacktrace]
        let answerLists = answers.threads + [answers.exception]
        for (stack, frames) in frameLists.enumerated() {
            for (index, frame) in frames.enumerated() where !frame.hasSymbol {
                guard let end = frame.objectEnd, let answer = answerLists[stack].dropFirst(index).first, let named = answer.frames.first
                else { continue }
                var text = ",\"symbol\":\(jsonString(named.simplifiedName))"
                if let start = answer.functionStart, let address = answer.lookupAddress, address >= start {
                    text += ",\"symbolLocation\":\(address - start)"
                }
                if let file = named.file {
                    text += ",\"sourceFile\":\(jsonString((file as NSString).lastPathComponent))"
                    if let line = named.line { text += ",\"sourceLine\":\(line)" }
                }
                keys.append((end, text))
            }
        }
        return keys
    }

    private static func insert(_ insertions: [(at: Int, text: String)], into bytes: UnsafeRawBufferPointer) -> String {
        var out: [UInt8] = []
        out.reserveCapacity(bytes.count + insertions.count * 64)
        var copied = 0
        for insertion in insertions.sorted(by: { $0.at < $1.at }) where insertion.at >= copied && insertion.at <= bytes.count {
            out.append(contentsOf: bytes[copied..<insertion.at])
            out.append(contentsOf: insertion.text.utf8)
            copied = insertion.at
        }
        out.append(contentsOf: bytes[copied...])
        return String(decoding: out, as: UTF8.self)
    }

    private static func jsonString(_ text: String) -> String {
        let data = (try? JSONEncoder().encode(text)) ?? Data("\"\"".utf8)
        return String(decoding: data, as: UTF8.self)
    }
}
