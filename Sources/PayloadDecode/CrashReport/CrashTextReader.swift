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

    static func read(_ bytes: UnsafeRawBufferPointer, problem: (IPSReader.Problem) -> Void) -> [AppleCrashReport] {
        let text = String(decoding: bytes, as: UTF8.self)
        var reports: [AppleCrashReport] = []
        var lines: [Substring] = []
        var hasIncident = false
        var hasBody = false
        var number = 0
        func finish() {
            defer {
                lines = []
                hasIncident = false
                hasBody = false
            }
            guard lines.contains(where: { !$0.trimmingSpaces.isEmpty }) else { return }
            number += 1
            if var report = report(lines[...], position: number, header: nil, problem: problem) {
                report.digest = digest(of: lines)
                reports.append(report)
            }
        }
        for line in text.split(separator: "\n", omittingEmptySubsequences: false) {
            let line = line.hasSuffix("\r") ? line.dropLast() : line
            // A new report: another `Incident Identifier:`, or a report's first header line after
            // the threads or images of the one before.
            if line.hasPrefix("Incident Identifier:") {
                if hasIncident || hasBody { finish() }
                hasIncident = true
            } else if hasBody, line.hasPrefix("Process:") || line.hasPrefix("Hardware Model:") || line.hasPrefix("Translated Report") {
                finish()
            }
            if CrashTextLines.isThreadStart(line) || line.hasPrefix("Binary Images:") { hasBody = true }
            lines.append(line)
        }
        finish()
        return reports
    }

    /// The SHA-1 of a report's lines: blank lines at the end are not the report's, so the same
    /// report last in a file or followed by another has the same key.
    static func digest(of lines: [Substring]) -> [UInt8] {
        var kept = lines[...]
        while let last = kept.last, last.trimmingSpaces.isEmpty { kept = kept.dropLast() }
        var digest = SHA1()
        digest.update(Array(kept.joined(separator: "\n").utf8))
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
        _ lines: ArraySlice<Substring>, position: Int, header: HeaderValues?, problem: (IPSReader.Problem) -> Void
    ) -> AppleCrashReport? {
        let place = "report \(position)"
        var report = AppleCrashReport(
            position: position, bugType: "crash", appVersion: nil, buildVersion: nil, bundleID: nil, osVersion: nil,
            modelCode: nil, time: nil, exceptionType: nil, signal: nil, terminationNamespace: nil, terminationCode: nil,
            threads: [], images: [], digest: [])
        var values: [Substring: Substring] = [:]
        var frames: [PendingFrame] = []
        var crashedNumber: Int?
        var section = Section.header
        var sawBody = false
        var systemModel: String?
        for rawLine in lines {
            let line = rawLine.trimmingSpaces.isEmpty ? "" : rawLine
            if line.trimmingSpaces == "Full Report" { break }  // the `.ips` under a translated report
            // `Binary Images:`; tools that sort them write `Binary Images (Other):` and the like.
            if line.hasPrefix("Binary Images"), line.trimmingSpaces.hasSuffix(":") {
                section = .images
                sawBody = true
                continue
            }
            if line.hasPrefix("Last Exception Backtrace:") {
                section = .exception
                sawBody = true
                continue
            }
            if let (number, crashed) = CrashTextLines.threadStart(line) {
                report.threads.append(AppleCrashReport.Thread(number: number, frames: [], crashed: crashed))
                section = .thread(report.threads.count - 1)
                sawBody = true
                continue
            }
            if line.hasPrefix("Thread ") || line.hasPrefix("Application Specific") || line.hasPrefix("Filtered syslog") {
                section = .other
                continue
            }
            // macOS before 12 names the Mac in the system profile after the images:
            // `Model: iMac15,1, BootROM IM151.0216.B00, 4 processors, …`.
            if sawBody, systemModel == nil, line.hasPrefix("Model: ") {
                systemModel = line.dropFirst("Model: ".count).components(separatedBy: ", ").first.map { String($0) }
            }
            switch section {
            case .images:
                if let image = CrashTextLines.binaryImage(line) { report.images.append(image) }
                continue
            case .thread(let thread):
                if let frame = CrashTextLines.frameLine(line) {
                    frames.append(PendingFrame(thread: thread, line: frame))
                } else if line.isEmpty {
                    section = .other
                }
                continue
            case .exception:
                if let frame = CrashTextLines.frameLine(line) {
                    frames.append(PendingFrame(thread: nil, line: frame))
                } else if let addresses = CrashTextLines.addressList(line) {
                    frames += addresses.map { PendingFrame(thread: nil, line: .init(imageName: "???", address: $0)) }
                } else if line.isEmpty, frames.contains(where: { $0.thread == nil }) {
                    section = .other
                }
                continue
            case .header, .other:
                break
            }
            // Header lines come before the threads; a `key: value` later belongs to another section.
            guard !sawBody, let colon = line.firstIndex(of: ":") else { continue }
            let key = line[..<colon]
            if values[key] == nil { values[key] = line[line.index(after: colon)...].trimmingSpaces }
        }
        readHeader(values, into: &report, crashedNumber: &crashedNumber)
        report.modelCode = report.modelCode ?? systemModel
        if let header { apply(header, to: &report) }
        if let text = values["Version"], report.buildVersion == nil || report.appVersion == nil {
            readVersion(text, into: &report, place: place, problem: problem)
        }
        if report.images.isEmpty {
            problem((.warning, place, "no Binary Images: section; frames have no image UUID"))
        }
        placeFrames(frames, in: &report)
        for index in report.threads.indices where report.threads[index].number == crashedNumber {
            report.threads[index].crashed = true
        }
        return report
    }

    /// The header's values the report keeps.
    private static func readHeader(_ values: [Substring: Substring], into report: inout AppleCrashReport, crashedNumber: inout Int?) {
        report.modelCode = values["Hardware Model"].map(String.init)
        report.bundleID = values["Identifier"].map(String.init)
        report.osVersion = values["OS Version"].map(String.init)
        report.time = values["Date/Time"].flatMap { Timestamp.seconds(String($0), zone: TimeZone(secondsFromGMT: 0)!) }
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
            if words.count >= 4, words[0] == "Namespace", words[2] == "Code" {
                report.terminationNamespace = String(words[1])
                report.terminationCode = CrashTextLines.number(words[3])
            } else if words.count >= 2 {
                report.terminationNamespace = String(words[0])
                report.terminationCode = CrashTextLines.number(words[1])
            }
        }
        for key: Substring in ["Triggered by Thread", "Crashed Thread"] {
            if let value = values[key], let number = Int(value.prefix(while: { $0.isASCII && $0.isNumber })) {
                crashedNumber = crashedNumber ?? number
            }
        }
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
        _ text: Substring, into report: inout AppleCrashReport, place: String, problem: (IPSReader.Problem) -> Void
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

    /// Each frame in its image: by the line's own `base + offset`, else the image whose range
    /// holds the address; a frame in no image keeps its address as the offset, with no image.
    /// Consecutive lines of one address marked `[inlined]` are one frame with an inline chain.
    private static func placeFrames(_ frames: [PendingFrame], in report: inout AppleCrashReport) {
        let placed = report.images.enumerated().filter { !$0.element.answersNothing }
        var inlined: [AppleCrashReport.ReportName] = []
        for (position, pending) in frames.enumerated() {
            let line = pending.line
            if let name = line.name, name.isInlined, position + 1 < frames.count, frames[position + 1].thread == pending.thread,
                frames[position + 1].line.address == line.address
            {
                inlined.append(name)
                continue
            }
            var imageIndex = placed.first { _, image in
                guard let base = image.base, let size = image.size, line.address >= base else { return false }
                return line.address - base < size
            }?.offset
            var offset = line.address
            if let (base, lineOffset) = line.baseAndOffset {
                if imageIndex == nil { imageIndex = placed.first { $0.element.base == base }?.offset }
                // `0x0 + 0` on a `???` line says nothing: a frame in no image keeps its address.
                if imageIndex != nil { offset = lineOffset }
            } else if let index = imageIndex, let base = report.images[index].base {
                offset = line.address - base
            }
            if imageIndex == nil, line.imageName != "???", !line.imageName.isEmpty {
                // Named on its line but in no listed image: the name is kept, with no UUID.
                if let known = report.images.firstIndex(where: { $0.name == line.imageName && $0.base == nil }) {
                    imageIndex = known
                } else {
                    report.images.append(AppleCrashReport.Image(name: line.imageName))
                    imageIndex = report.images.count - 1
                }
            }
            var frame = AppleCrashReport.Frame(imageIndex: imageIndex, imageOffset: offset, address: line.address)
            frame.names = inlined + (line.name.map { [$0] } ?? [])
            frame.hasSymbol = !frame.names.isEmpty
            inlined = []
            if let thread = pending.thread {
                report.threads[thread].frames.append(frame)
            } else {
                report.lastExceptionBacktrace.append(frame)
            }
        }
    }
}
