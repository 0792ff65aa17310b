import Foundation

/// Reads legacy `.crash` text reports (before iOS 15, and what Xcode and `symbolicatecrash`
/// print): the header lines, `Exception Type:`, `Termination Reason:`, the threads' frames and
/// `Binary Images:`. A file may hold several, each starting `Incident Identifier:`.
enum CrashTextReader {
    static func read(_ bytes: UnsafeRawBufferPointer, problem: (IPSReader.Problem) -> Void) -> [AppleCrashReport] {
        let text = String(decoding: bytes, as: UTF8.self)
        var reports: [AppleCrashReport] = []
        var lines: [Substring] = []
        var number = 0
        func finish() {
            guard !lines.isEmpty else { return }
            number += 1
            if let report = convert(lines, position: number, problem: problem) { reports.append(report) }
            lines = []
        }
        for line in text.split(separator: "\n", omittingEmptySubsequences: false) {
            let line = line.hasSuffix("\r") ? line.dropLast() : line
            if line.hasPrefix("Incident Identifier:") { finish() }
            lines.append(line)
        }
        finish()
        return reports
    }

    private struct PendingFrame {
        var thread: Int
        var imageName: String
        var address: UInt64
        /// `0x102a14000 + 32940`: the image's base and the offset, as an unsymbolicated line gives them.
        var baseAndOffset: (UInt64, UInt64)?
    }

    private static func convert(_ lines: [Substring], position: Int, problem: (IPSReader.Problem) -> Void) -> AppleCrashReport? {
        let place = "report \(position)"
        var report = AppleCrashReport(
            position: position, bugType: "crash", appVersion: nil, buildVersion: nil, bundleID: nil, osVersion: nil,
            modelCode: nil, time: nil, exceptionType: nil, signal: nil, terminationNamespace: nil, terminationCode: nil,
            threads: [], images: [], digest: [])
        var frames: [PendingFrame] = []
        var crashedThread: Int?
        var currentThread: Int?
        var inImages = false
        var imageRanges: [(start: UInt64, end: UInt64)] = []
        for (index, line) in lines.enumerated() {
            if inImages {
                if let (image, range) = binaryImage(line) {
                    report.images.append(image)
                    imageRanges.append(range)
                }
                continue
            }
            if line.hasPrefix("Binary Images:") {
                inImages = true
                continue
            }
            if line.hasPrefix("Thread ") {
                // `Thread 0 Crashed:`, `Thread 0 Crashed:: Dispatch queue: …`, `Thread 3:`, `Thread 0 name: …`
                let words = line.dropFirst("Thread ".count).split(separator: " ", maxSplits: 1)
                let number = words.first.map { $0.hasSuffix(":") ? $0.dropLast() : $0 }.flatMap { Int($0) }
                let rest = words.count > 1 ? words[1] : ""
                if let number, rest.hasPrefix("Crashed:") {
                    crashedThread = number
                    currentThread = number
                } else if let number, words.first?.hasSuffix(":") == true {
                    currentThread = number
                } else if rest.hasPrefix("crashed with") {
                    currentThread = nil
                }
                continue
            }
            if let thread = currentThread, let first = line.first, first.isNumber {
                if let frame = frameLine(line, thread: thread) { frames.append(frame) }
                continue
            }
            if line.isEmpty { currentThread = nil }
            guard let colon = line.firstIndex(of: ":") else { continue }
            let key = line[..<colon]
            let value = line[line.index(after: colon)...].trimmingSpaces
            switch key {
            case "Hardware Model": report.modelCode = String(value)
            case "Identifier": report.bundleID = String(value)
            case "OS Version": report.osVersion = String(value)
            case "Version":
                // `2.25.0 (131)`: the short version, then the build in parentheses.
                let parts = value.split(separator: " ", maxSplits: 1)
                report.appVersion = parts.first.map(String.init)
                if parts.count > 1, parts[1].hasPrefix("("), parts[1].hasSuffix(")") {
                    report.buildVersion = String(parts[1].dropFirst().dropLast())
                }
            case "Date/Time": report.time = Timestamp.seconds(String(value), zone: TimeZone(secondsFromGMT: 0)!)
            case "Exception Type":
                // `EXC_BAD_ACCESS (SIGSEGV)`
                let parts = value.split(separator: " ")
                report.exceptionType = parts.first.map(String.init)
                if parts.count > 1, parts[1].hasPrefix("("), parts[1].hasSuffix(")") {
                    report.signal = String(parts[1].dropFirst().dropLast())
                }
            case "Termination Reason":
                // `FRONTBOARD 2343432205 <RBSTerminateContext| … code:0x8BADF00D …>`, `SIGNAL 11 Segmentation fault: 11`,
                // `Namespace SIGNAL, Code 0xb`
                let words = value.split(separator: " ").map { $0.hasSuffix(",") ? $0.dropLast() : $0 }
                if words.count >= 4, words[0] == "Namespace", words[2] == "Code" {
                    report.terminationNamespace = String(words[1])
                    report.terminationCode = number(words[3])
                } else if words.count >= 2 {
                    report.terminationNamespace = String(words[0])
                    report.terminationCode = number(words[1])
                }
            case "Triggered by Thread": crashedThread = crashedThread ?? Int(value)
            default: break
            }
            _ = index
        }
        if report.images.isEmpty {
            problem((.warning, place, "no Binary Images: section; frames have no image UUID"))
        }
        // Offsets into images: by the line's own `base + offset`, else the image whose range holds the address.
        var threads: [Int: [AppleCrashReport.Frame]] = [:]
        var order: [Int] = []
        for frame in frames {
            var imageIndex = imageRanges.firstIndex { $0.start <= frame.address && frame.address <= $0.end }
            if imageIndex == nil {
                imageIndex = report.images.firstIndex { $0.name == frame.imageName }
            }
            let offset: UInt64
            if let (base, lineOffset) = frame.baseAndOffset {
                offset = lineOffset
                if imageIndex == nil { imageIndex = report.images.firstIndex { $0.base == base } }
            } else if let index = imageIndex, let base = report.images[index].base, frame.address >= base {
                offset = frame.address - base
            } else {
                problem((.warning, "\(place), thread \(frame.thread)", "frame at \(hex(frame.address)) lies in no binary image; skipped"))
                continue
            }
            if threads[frame.thread] == nil { order.append(frame.thread) }
            threads[frame.thread, default: []].append(AppleCrashReport.Frame(imageIndex: imageIndex, imageOffset: offset))
        }
        report.threads = order.map { AppleCrashReport.Thread(frames: threads[$0] ?? [], crashed: $0 == crashedThread) }
        // Blank lines at the end are not the report's: the same report last in a file or followed
        // by another has the same key.
        var kept = lines[...]
        while let last = kept.last, last.allSatisfy({ $0 == " " || $0 == "\t" }) { kept = kept.dropLast() }
        var digest = SHA1()
        digest.update(Array(kept.joined(separator: "\n").utf8))
        report.digest = digest.finish()
        return report
    }

    /// `0   YuiApp    0x0000000102a1c0ac 0x102a14000 + 32940` or `… 0x… main + 20 (main.swift:10)`.
    private static func frameLine(_ line: Substring, thread: Int) -> PendingFrame? {
        let words = line.split(whereSeparator: { $0 == " " || $0 == "\t" })
        guard words.count >= 3, Int(words[0]) != nil,
            let addressAt = words.indices.dropFirst(2).first(where: { words[$0].hasPrefix("0x") && number(words[$0]) != nil }),
            let address = number(words[addressAt])
        else { return nil }
        let name = words[1..<addressAt].joined(separator: " ")
        var frame = PendingFrame(thread: thread, imageName: name, address: address)
        if words.count >= addressAt + 4, words[addressAt + 2] == "+", let base = number(words[addressAt + 1]),
            let offset = UInt64(words[addressAt + 3])
        {
            frame.baseAndOffset = (base, offset)
        }
        return frame
    }

    /// `0x102a14000 - 0x102a1ffff YuiApp arm64  <1f2e…> /path/YuiApp` (the name may have a `+` before it).
    private static func binaryImage(_ line: Substring) -> (AppleCrashReport.Image, (UInt64, UInt64))? {
        let words = line.split(whereSeparator: { $0 == " " || $0 == "\t" })
        guard words.count >= 6, let start = number(words[0]), words[1] == "-", let end = number(words[2]),
            let uuidAt = words.indices.first(where: { words[$0].hasPrefix("<") && words[$0].hasSuffix(">") }), uuidAt >= 5
        else { return nil }
        var name = words[3..<(uuidAt - 1)].joined(separator: " ")
        if name.hasPrefix("+") { name.removeFirst() }
        let hexDigits = words[uuidAt].dropFirst().dropLast()
        var uuid: String?
        if hexDigits.count == 32 {
            let h = Array(hexDigits)
            uuid = ColumnPatterns.canonicalUUID(
                String(h[0..<8]) + "-" + String(h[8..<12]) + "-" + String(h[12..<16]) + "-" + String(h[16..<20]) + "-" + String(h[20...]))
        } else {
            uuid = ColumnPatterns.canonicalUUID(String(hexDigits))
        }
        let image = AppleCrashReport.Image(
            name: name, uuid: uuid, base: start, size: end >= start ? end - start + 1 : nil, arch: String(words[uuidAt - 1]))
        return (image, (start, end))
    }

    private static func number(_ word: Substring) -> UInt64? {
        if word.hasPrefix("0x") || word.hasPrefix("0X") { return UInt64(word.dropFirst(2), radix: 16) }
        return UInt64(word)
    }

    private static func hex(_ value: UInt64) -> String { "0x" + String(value, radix: 16) }
}

extension Substring {
    fileprivate var trimmingSpaces: Substring {
        var text = self
        while let first = text.first, first == " " || first == "\t" { text.removeFirst() }
        while let last = text.last, last == " " || last == "\t" { text.removeLast() }
        return text
    }
}
