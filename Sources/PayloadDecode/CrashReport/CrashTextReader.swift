import Foundation

/// Reads text crash reports: iOS's (`Incident Identifier:` first), macOS's (`Process:`,
/// `Hardware Model:` or another header key first), text made from an `.ips` by Xcode or the
/// Console (`Translated Report (Full Report Below)`), and the text body of an iOS 14 `.ips`. The
/// header lines, `Exception Type:`, `Termination Reason:`, the threads, the last exception
/// backtrace and `Binary Images:` (docs/crash-reports.md). A file may hold several reports.
enum CrashTextReader {
    /// What an old `.ips`'s JSON header says of its text body: where it gives a value, it decides.
    struct HeaderValues {
        var appVersion, buildVersion, bundleID, osVersion, timestamp: String?
    }

    static func read(
        _ bytes: UnsafeRawBufferPointer, detail: CrashReportDetail = .full, problem: (IPSReader.Problem) -> Void
    ) -> [AppleCrashReport] {
        var reports: [AppleCrashReport] = []
        var lines: [TextBytes] = []
        var hasIncident = false
        var hasBody = false
        var number = 0
        func finish() {
            defer {
                lines.removeAll(keepingCapacity: true)
                hasIncident = false
                hasBody = false
            }
            guard lines.contains(where: { !CrashTextLines.trimmed($0).isEmpty }) else { return }
            number += 1
            if var report = report(lines[...], position: number, header: nil, detail: detail, problem: problem) {
                report.digest = digest(of: lines)
                reports.append(report)
            }
        }
        forEachLine(bytes[...]) { line in
            // A new report: another `Incident Identifier:`, or a report's first header line after
            // the threads or images of the one before.
            if CrashTextLines.hasPrefix(line, "Incident Identifier:") {
                if hasIncident || hasBody { finish() }
                hasIncident = true
            } else if hasBody,
                CrashTextLines.hasPrefix(line, "Process:") || CrashTextLines.hasPrefix(line, "Hardware Model:")
                    || CrashTextLines.hasPrefix(line, "Translated Report")
            {
                finish()
            }
            if CrashTextLines.hasPrefix(line, "Binary Images") || CrashTextLines.isThreadStart(line) { hasBody = true }
            lines.append(line)
        }
        finish()
        return reports
    }

    /// Each line of `bytes`, without its `\n` and a `\r` before it.
    static func forEachLine(_ bytes: TextBytes, _ body: (TextBytes) -> Void) {
        var start = bytes.startIndex
        while start <= bytes.endIndex {
            let end = CrashTextLines.find(0x0a, in: bytes, from: start)
            var line = bytes[start..<end]
            if line.last == 0x0d { line = line.dropLast() }
            if end == bytes.endIndex, line.isEmpty, start > bytes.startIndex { break }
            body(line)
            start = end + 1
        }
    }

    /// The SHA-1 of a report's lines, each without its `\r`, joined by `\n`: blank lines at the end
    /// are not the report's, so the same report last in a file or followed by another has the same
    /// key.
    static func digest(of lines: [TextBytes]) -> [UInt8] {
        var kept = lines[...]
        while let last = kept.last, CrashTextLines.trimmed(last).isEmpty { kept = kept.dropLast() }
        var digest = SHA1()
        guard let first = kept.first, let last = kept.last else { return digest.finish() }
        let whole = first.base[first.startIndex..<last.endIndex]
        if CrashTextLines.find(0x0d, in: whole, from: whole.startIndex) == whole.endIndex {
            digest.update(UnsafeRawBufferPointer(rebasing: whole))
        } else {
            for (index, line) in kept.enumerated() {
                if index > 0 { digest.update([0x0a]) }
                digest.update(UnsafeRawBufferPointer(rebasing: line))
            }
        }
        return digest.finish()
    }

    private enum Section {
        case header, thread(Int), exception, images, other
    }

    private struct PendingFrame {
        /// The thread's place in `threads`, or `nil` for the last exception backtrace.
        var thread: Int?
        var line: CrashTextLines.FrameLine
    }

    /// One report from its lines (the digest is the caller's: an `.ips`'s covers its header too).
    static func report(
        _ lines: ArraySlice<TextBytes>, position: Int, header: HeaderValues?, detail: CrashReportDetail = .full,
        problem: (IPSReader.Problem) -> Void
    ) -> AppleCrashReport? {
        let place = "report \(position)"
        var report = AppleCrashReport(
            position: position, bugType: "crash", appVersion: nil, buildVersion: nil, bundleID: nil, osVersion: nil,
            modelCode: nil, time: nil, exceptionType: nil, signal: nil, terminationNamespace: nil, terminationCode: nil,
            threads: [], images: [], digest: [])
        var values: [String: String] = [:]
        var frames: [PendingFrame] = []
        var imageLines: [TextBytes] = []
        var crashedNumber: Int?
        var section = Section.header
        var sawBody = false
        var systemModel: String?
        var words: [TextBytes] = []
        words.reserveCapacity(32)
        let names = detail == .full
        for line in lines {
            let trimmed = CrashTextLines.trimmed(line)
            let isBlank = trimmed.isEmpty
            if CrashTextLines.equals(trimmed, "Full Report") { break }  // the `.ips` under a translated report
            // `Binary Images:`; tools that sort them write `Binary Images (Other):` and the like.
            if CrashTextLines.hasPrefix(line, "Binary Images"), trimmed.last == UInt8(ascii: ":") {
                section = .images
                sawBody = true
                continue
            }
            if CrashTextLines.hasPrefix(line, "Last Exception Backtrace:") {
                section = .exception
                sawBody = true
                continue
            }
            if let (number, crashed) = CrashTextLines.threadStart(line) {
                // The header is read by the first thread: it says which thread crashed.
                if !sawBody { crashedNumber = crashedNumber ?? crashedThreadNumber(values) }
                report.threads.append(AppleCrashReport.Thread(number: number, frames: [], crashed: crashed))
                // A row keeps the crashed thread: the others' frames are read only for the full report.
                let isRowThread = crashed || number == crashedNumber || report.threads.count == 1
                section = names || isRowThread ? .thread(report.threads.count - 1) : .other
                sawBody = true
                continue
            }
            if CrashTextLines.hasPrefix(line, "Thread ") || CrashTextLines.hasPrefix(line, "Application Specific")
                || CrashTextLines.hasPrefix(line, "Filtered syslog")
            {
                section = .other
                continue
            }
            switch section {
            case .images:
                if !isBlank { imageLines.append(line) }
            case .thread(let thread):
                if let frame = CrashTextLines.frameLine(line, words: &words, names: names) {
                    frames.append(PendingFrame(thread: thread, line: frame))
                } else if isBlank {
                    section = .other
                }
                continue
            case .exception:
                if let frame = CrashTextLines.frameLine(line, words: &words, names: names) {
                    frames.append(PendingFrame(thread: nil, line: frame))
                } else if let addresses = CrashTextLines.addressList(line, words: &words) {
                    frames += addresses.map { PendingFrame(thread: nil, line: .init(imageName: line.prefix(0), address: $0)) }
                } else if isBlank, frames.contains(where: { $0.thread == nil }) {
                    section = .other
                }
                continue
            case .header, .other:
                break
            }
            // macOS before 12 names the Mac in the system profile after the images:
            // `Model: iMac15,1, BootROM IM151.0216.B00, 4 processors, …`.
            if sawBody, systemModel == nil, CrashTextLines.hasPrefix(line, "Model: ") {
                let value = line.dropFirst(7)
                let end = (value.startIndex..<value.endIndex).first { value[$0] == 0x2c && $0 + 1 < value.endIndex && value[$0 + 1] == 0x20 }
                systemModel = String(decoding: value[..<(end ?? value.endIndex)], as: UTF8.self)
            }
            // Header lines come before the threads; a `key: value` later belongs to another section.
            guard !sawBody, let colon = line.firstIndex(of: UInt8(ascii: ":")), colon > line.startIndex,
                CrashTextLines.isHeaderKeyStart(line[line.startIndex])
            else { continue }
            let key = String(decoding: line[..<colon], as: UTF8.self)
            if values[key] == nil {
                values[key] = String(decoding: CrashTextLines.trimmed(line[(colon + 1)...]), as: UTF8.self)
            }
        }
        readHeader(values, into: &report, crashedNumber: &crashedNumber)
        report.modelCode = report.modelCode ?? systemModel
        if let header { apply(header, to: &report) }
        if let text = values["Version"], report.buildVersion == nil || report.appVersion == nil {
            readVersion(text, into: &report, place: place, problem: problem)
        }
        if imageLines.isEmpty {
            problem((.warning, place, "no Binary Images: section; frames have no image UUID"))
        }
        CrashTextFrames.place(frames.map { ($0.thread, $0.line) }, imageLines: imageLines, detail: detail, in: &report)
        for index in report.threads.indices where report.threads[index].number == crashedNumber {
            report.threads[index].crashed = true
        }
        return report
    }

    /// The header's values the report keeps.
    private static func readHeader(_ values: [String: String], into report: inout AppleCrashReport, crashedNumber: inout Int?) {
        report.modelCode = values["Hardware Model"]
        report.bundleID = values["Identifier"]
        report.osVersion = values["OS Version"]
        report.time = values["Date/Time"].flatMap { Timestamp.seconds($0, zone: TimeZone(secondsFromGMT: 0)!) }
        if let value = values["Exception Type"] {
            // `EXC_BAD_ACCESS (SIGSEGV)`; old macOS reports: `SIGSEGV` alone.
            let parts = value.split(separator: " ")
            if parts.count == 1, parts[0].hasPrefix("SIG") {
                report.signal = String(parts[0])
            } else {
                report.exceptionType = parts.first.map(String.init)
                if parts.count > 1, parts[1].hasPrefix("("), parts[1].hasSuffix(")") {
                    report.signal = String(parts[1].dropFirst().dropLast())
                }
            }
        }
        if let value = values["Termination Reason"] {
            // `FRONTBOARD 2343432205 <RBSTerminateContext| … code:0x8BADF00D …>`, `SIGNAL 11 Segmentation fault: 11`,
            // `Namespace SIGNAL, Code 0xb`
            let words = value.split(separator: " ").map { $0.hasSuffix(",") ? $0.dropLast() : $0 }
            func code(_ word: Substring) -> UInt64? {
                var text = String(word)
                return text.withUTF8 { CrashTextLines.number(UnsafeRawBufferPointer($0)[...]) }
            }
            if words.count >= 4, words[0] == "Namespace", words[2] == "Code" {
                report.terminationNamespace = String(words[1])
                report.terminationCode = code(words[3])
            } else if words.count >= 2 {
                report.terminationNamespace = String(words[0])
                report.terminationCode = code(words[1])
            }
        }
        crashedNumber = crashedNumber ?? crashedThreadNumber(values)
    }

    /// `Triggered by Thread:  0` (iOS), else `Crashed Thread:  5  Dispatch queue: …` (macOS).
    private static func crashedThreadNumber(_ values: [String: String]) -> Int? {
        for key in ["Triggered by Thread", "Crashed Thread"] {
            if let value = values[key], let number = Int(value.prefix(while: { $0.isASCII && $0.isNumber }).prefix(9)) { return number }
        }
        return nil
    }

    private static func apply(_ header: HeaderValues, to report: inout AppleCrashReport) {
        report.appVersion = header.appVersion ?? report.appVersion
        report.buildVersion = header.buildVersion ?? report.buildVersion
        report.bundleID = header.bundleID ?? report.bundleID
        report.osVersion = header.osVersion ?? report.osVersion
        if report.time == nil { report.time = header.timestamp.flatMap { Timestamp.seconds($0, zone: TimeZone(secondsFromGMT: 0)!) } }
    }

    /// `Version:` as the report's OS writes it. Two values: since iOS 15 (reports made from an
    /// `.ips`) and on macOS the short version comes first and the build in parentheses
    /// (`1.0.0 (3)`); iOS 14 and earlier wrote the build first (`1 (3.0)`, Apple's own example).
    /// One value (`4.21.1`, `512`): it is the version, and the build is taken from it by the
    /// store's rule (its integer part), with a warning (docs/crash-reports.md, "Build numbers").
    private static func readVersion(
        _ text: String, into report: inout AppleCrashReport, place: String, problem: (IPSReader.Problem) -> Void
    ) {
        let parts = text.split(separator: " ", maxSplits: 1)
        guard let first = parts.first.map(String.init) else { return }
        if parts.count > 1, parts[1].hasPrefix("("), parts[1].hasSuffix(")") {
            let second = String(parts[1].dropFirst().dropLast())
            let (version, build) = buildComesFirst(osVersion: report.osVersion) ? (second, first) : (first, second)
            report.appVersion = report.appVersion ?? version
            report.buildVersion = report.buildVersion ?? build
            return
        }
        report.appVersion = report.appVersion ?? first
        if report.buildVersion == nil {
            report.buildVersion = first
            if case .success(let build) = ColumnPatterns.appBuild(first) {
                problem((.warning, "\(place), Version", "\(InputText.quoted(first)) has no build in parentheses; build \(build) taken from it"))
            }
        }
    }

    /// Whether `Version: A (B)` has the build first: iOS (iPhone OS, iPadOS) before 15.
    static func buildComesFirst(osVersion: String?) -> Bool {
        guard let osVersion, osVersion.hasPrefix("iPhone OS") || osVersion.hasPrefix("iPadOS") || osVersion.hasPrefix("iOS"),
            let number = ColumnPatterns.osNumber(osVersion), let major = Int(number.prefix(while: { $0 != "." }))
        else { return false }
        return major < 15
    }
}

/// How much of a report a reader keeps.
public enum CrashReportDetail: Sendable {
    /// Every thread's frames with the report's names, every image whole: what `symbolicate`
    /// writes back and names frames from.
    case full
    /// What a row needs: the crashed thread's and the last exception backtrace's frames, the
    /// images that hold them; no names. `rows` and `load` read this.
    case row
}
