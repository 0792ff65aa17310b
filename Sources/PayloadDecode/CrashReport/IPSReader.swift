import CPayloadKernels
import Foundation

/// Reads `.ips` crash reports: one or several of (a JSON header line, then a JSON body), as a
/// device's Analytics Data, Xcode's Organizer and TestFlight hand them out (docs/crash-reports.md).
/// Every problem is reported with the report's number and the key; a bad report is skipped and
/// the others are read.
enum IPSReader {
    typealias Problem = (severity: InputDiagnostic.Severity, place: String, message: String)

    static func read(
        _ bytes: UnsafeRawBufferPointer, parser: JSONParser, detail: CrashReportDetail = .full, problem: (Problem) -> Void
    ) -> [AppleCrashReport] {
        var reports: [AppleCrashReport] = []
        var position = 0
        var number = 0
        while true {
            while position < bytes.count, isWhitespace(bytes[position]) { position += 1 }
            guard position < bytes.count else { break }
            number += 1
            let place = "report \(number)"
            let headerStart = position
            var headerEnd = headerStart
            while headerEnd < bytes.count, bytes[headerEnd] != 0x0a { headerEnd += 1 }
            let header: JSONDocument
            do {
                header = try parser.parse(UnsafeRawBufferPointer(rebasing: bytes[headerStart..<headerEnd]))
            } catch {
                problem((.error, "\(place), header", "invalid JSON: \(error.message); the rest of the file is not read"))
                break
            }
            guard header.kind(JSONDocument.root) == .object, let bugType = text(header, JSONDocument.root, "bug_type") else {
                problem((.error, "\(place), header", "not a crash report header (no bug_type); the rest of the file is not read"))
                break
            }
            // Read now: the parser's next document (the body) takes the header's place.
            let fields = HeaderFields(header)
            position = headerEnd
            while position < bytes.count, isWhitespace(bytes[position]) { position += 1 }
            guard position < bytes.count else {
                problem((.error, place, "bug_type \(InputText.quoted(bugType)): a header without a body"))
                break
            }
            if bytes[position] != UInt8(ascii: "{") {
                // iOS 14 and earlier: a text report under the JSON header, up to the next header line.
                let bodyEnd = nextHeaderLine(bytes, from: position)
                var digest = SHA1()
                digest.update(UnsafeRawBufferPointer(rebasing: bytes[headerStart..<bodyEnd]))
                var lines: [TextBytes] = []
                CrashTextReader.forEachLine(bytes[position..<bodyEnd]) { lines.append($0) }
                let values = CrashTextReader.HeaderValues(
                    appVersion: fields.appVersion, buildVersion: fields.buildVersion, bundleID: fields.bundleID,
                    osVersion: fields.osVersion, timestamp: fields.timestamp)
                if var report = CrashTextReader.report(lines[...], position: number, header: values, detail: detail, problem: problem) {
                    report.bugType = bugType
                    report.digest = digest.finish()
                    reports.append(report)
                }
                position = bodyEnd
                continue
            }
            let bodyStart = position
            guard let bodyEnd = endOfObject(bytes, from: bodyStart) else {
                problem((.error, "\(place), body", "truncated: the JSON body does not end"))
                break
            }
            position = bodyEnd
            let body: JSONDocument
            do {
                body = try parser.parse(UnsafeRawBufferPointer(rebasing: bytes[bodyStart..<bodyEnd]))
            } catch {
                problem((.error, "\(place), body", "invalid JSON: \(error.message)"))
                continue
            }
            var digest = SHA1()
            digest.update(Array(UnsafeRawBufferPointer(rebasing: bytes[headerStart..<bodyEnd])))
            if var report = convert(
                header: fields, body: body, bugType: bugType, digest: digest.finish(), place: place, detail: detail, problem: problem)
            {
                report.position = number
                // Frame ends are found in the body's bytes; the file's offsets are the body's plus its start.
                for thread in report.threads.indices {
                    for frame in report.threads[thread].frames.indices {
                        report.threads[thread].frames[frame].objectEnd = report.threads[thread].frames[frame].objectEnd.map { $0 + bodyStart }
                    }
                }
                reports.append(report)
            }
        }
        return reports
    }

    /// The header's keys this reads.
    private struct HeaderFields {
        var appVersion, buildVersion, bundleID, osVersion, timestamp: String?

        /// An empty value (`"build_version":""`, a command-line tool's) is no value: the body's
        /// `bundleInfo` may still give one.
        init(_ header: JSONDocument) {
            let root = JSONDocument.root
            func value(_ key: StaticString) -> String? { IPSReader.text(header, root, key).flatMap { $0.isEmpty ? nil : $0 } }
            appVersion = value("app_version")
            buildVersion = value("build_version")
            bundleID = value("bundleID")
            osVersion = value("os_version")
            timestamp = value("timestamp")
        }
    }

    /// `.row` reads the crashed thread's frames (and the first thread's, the crashed one when none
    /// is marked) and the last exception backtrace, no names, and only the images those frames
    /// lie in: a report has dozens of threads and hundreds of images, and a row keeps one stack.
    private static func convert(
        header: HeaderFields, body: JSONDocument, bugType: String, digest: [UInt8], place: String, detail: CrashReportDetail,
        problem: (Problem) -> Void
    ) -> AppleCrashReport? {
        let root = JSONDocument.root
        guard body.kind(root) == .object,
            let threadList = body.member(root, "threads"), body.kind(threadList) == .array,
            let imageList = body.member(root, "usedImages"), body.kind(imageList) == .array
        else {
            problem((.error, place, "bug_type \(InputText.quoted(bugType)) is not a report this reads: its body has no threads and usedImages"))
            return nil
        }
        let imageNodes = body.elements(imageList)
        var images = [AppleCrashReport.Image](repeating: AppleCrashReport.Image(), count: imageNodes.count)
        func readImage(_ index: Int) {
            let node = imageNodes[index]
            guard body.kind(node) == .object else {
                problem((.warning, "\(place), usedImages[\(index)]", "not an object; its frames have no image"))
                return
            }
            var image = AppleCrashReport.Image()
            image.name = text(body, node, "name")
            if let uuid = text(body, node, "uuid") {
                image.uuid = ColumnPatterns.canonicalUUID(uuid)
                if image.uuid == nil { problem((.warning, "\(place), usedImages[\(index)].uuid", "not a UUID; uuid left null")) }
            }
            image.base = unsigned(body, node, "base")
            image.size = unsigned(body, node, "size")
            image.arch = text(body, node, "arch")
            images[index] = image
        }
        if detail == .full { for index in images.indices { readImage(index) } }
        let faulting = body.member(root, "faultingThread").flatMap { unsignedValue(body, $0) }
        var threads: [AppleCrashReport.Thread] = []
        for (threadIndex, node) in body.elements(threadList).enumerated() {
            guard body.kind(node) == .object else {
                problem((.warning, "\(place), threads[\(threadIndex)]", "not an object; skipped"))
                continue
            }
            let triggered = body.member(node, "triggered").flatMap { body.bool($0) } ?? false
            var frames: [AppleCrashReport.Frame] = []
            let isRowThread = triggered || faulting == UInt64(threadIndex) || threadIndex == 0
            if detail == .full || isRowThread, let frameList = body.member(node, "frames"), body.kind(frameList) == .array {
                frames = readFrames(
                    body, frameList, images: images, detail: detail, place: "\(place), threads[\(threadIndex)].frames", problem: problem)
            }
            threads.append(AppleCrashReport.Thread(number: threadIndex, frames: frames, crashed: triggered || faulting == UInt64(threadIndex)))
        }
        var report = AppleCrashReport(
            position: 1, bugType: bugType, appVersion: header.appVersion, buildVersion: header.buildVersion,
            bundleID: header.bundleID, osVersion: header.osVersion,
            modelCode: text(body, root, "modelCode"), time: nil, exceptionType: nil, signal: nil, terminationNamespace: nil,
            terminationCode: nil, threads: threads, images: images, digest: digest)
        if let info = body.member(root, "bundleInfo"), body.kind(info) == .object {
            report.appVersion = report.appVersion ?? text(body, info, "CFBundleShortVersionString")
            report.buildVersion = report.buildVersion ?? text(body, info, "CFBundleVersion")
        }
        // captureTime has the fraction of a second; the header's timestamp is the fallback.
        let utc = TimeZone(secondsFromGMT: 0)!
        report.time = text(body, root, "captureTime").flatMap { Timestamp.seconds($0, zone: utc) }
        if report.time == nil { report.time = header.timestamp.flatMap { Timestamp.seconds($0, zone: utc) } }
        if let exception = body.member(root, "exception"), body.kind(exception) == .object {
            report.exceptionType = text(body, exception, "type")
            report.signal = text(body, exception, "signal")
        }
        if let backtrace = body.member(root, "lastExceptionBacktrace"), body.kind(backtrace) == .array {
            report.lastExceptionBacktrace = readFrames(
                body, backtrace, images: images, detail: detail, place: "\(place), lastExceptionBacktrace", problem: problem)
        }
        if detail == .row {
            var read = Set<Int>()
            for index in report.rowFrames.compactMap(\.imageIndex) where read.insert(index).inserted { readImage(index) }
            report.images = images
        }
        if let termination = body.member(root, "termination"), body.kind(termination) == .object {
            report.terminationNamespace = text(body, termination, "namespace")
            report.terminationCode = body.member(termination, "code").flatMap { unsignedValue(body, $0) }
        }
        return report
    }

    /// The frames of a `frames` (or `lastExceptionBacktrace`) array: offsets checked, the
    /// report's names kept, and an inlined frame (`"inline": true`) folded into the frame after
    /// it when that one is at the same address, as its inline chain.
    private static func readFrames(
        _ body: JSONDocument, _ frameList: Int, images: [AppleCrashReport.Image], detail: CrashReportDetail, place: String,
        problem: (Problem) -> Void
    ) -> [AppleCrashReport.Frame] {
        var read: [AppleCrashReport.Frame] = []
        // Whether each frame read is an inlined call with a name (`"inline": true`, `symbol`).
        var isInlined: [Bool] = []
        let bodyBytes = UnsafeRawBufferPointer(start: body.base, count: body.count)
        for (frameIndex, frameNode) in body.elements(frameList).enumerated() {
            let framePlace = "\(place)[\(frameIndex)]"
            guard body.kind(frameNode) == .object, let offsetNode = body.member(frameNode, "imageOffset") else {
                problem((.warning, framePlace, "no imageOffset; frame skipped"))
                continue
            }
            guard case .value(let offset) = body.unsignedInteger(offsetNode) else {
                problem((.warning, "\(framePlace).imageOffset", "not an offset from 0 to 2^64 - 1; frame skipped"))
                continue
            }
            var imageIndex = body.member(frameNode, "imageIndex").flatMap { unsignedValue(body, $0) }.map { Int(clamping: $0) }
            if let index = imageIndex, index >= images.count {
                problem((.warning, "\(framePlace).imageIndex", "\(index) points past usedImages (\(images.count) images); frame has no image"))
                imageIndex = nil
            }
            var names: [AppleCrashReport.ReportName] = []
            let inline = body.member(frameNode, "inline").flatMap { body.bool($0) } ?? false
            isInlined.append(inline && body.hasMember(frameNode, "symbol"))
            guard detail == .full else {
                read.append(AppleCrashReport.Frame(imageIndex: imageIndex, imageOffset: offset))
                continue
            }
            if let symbol = text(body, frameNode, "symbol"), !symbol.isEmpty {
                let line = unsigned(body, frameNode, "sourceLine").flatMap { $0 > 0 && $0 <= UInt64(Int32.max) ? Int($0) : nil }
                names.append(
                    AppleCrashReport.ReportName(
                        symbol: symbol, location: unsigned(body, frameNode, "symbolLocation"), file: text(body, frameNode, "sourceFile"),
                        line: line, isInlined: inline))
            }
            // The object's `}`: from its `{` (a container node's start), counting brackets.
            let objectEnd = endOfObject(bodyBytes, from: Int(body.nodes[frameNode].start)).map { $0 - 1 }
            let base = imageIndex.flatMap { images[$0].base } ?? 0
            let (address, overflow) = base.addingReportingOverflow(offset)
            read.append(
                AppleCrashReport.Frame(
                    imageIndex: imageIndex, imageOffset: offset, address: overflow ? nil : address, objectEnd: objectEnd,
                    hasSymbol: body.hasMember(frameNode, "symbol"), names: names))
        }
        var frames: [AppleCrashReport.Frame] = []
        var inlined: [AppleCrashReport.ReportName] = []
        for (position, frame) in read.enumerated() {
            if isInlined[position], position + 1 < read.count, read[position + 1].imageOffset == frame.imageOffset,
                read[position + 1].imageIndex == frame.imageIndex
            {
                inlined += frame.names
                continue
            }
            var kept = frame
            kept.names = inlined + frame.names
            inlined = []
            frames.append(kept)
        }
        return frames
    }

    /// Where an `.ips` text body ends: at the next line that opens another report's header
    /// (`{` with `bug_type`), or the end.
    private static func nextHeaderLine(_ bytes: UnsafeRawBufferPointer, from start: Int) -> Int {
        var lineStart = start
        while lineStart < bytes.count {
            let lineEnd = CrashTextLines.find(0x0a, in: bytes[...], from: lineStart)
            if lineStart > start, bytes[lineStart] == UInt8(ascii: "{"),
                CrashReportForm.contains(UnsafeRawBufferPointer(rebasing: bytes[lineStart..<lineEnd]), "\"bug_type\"")
            {
                return lineStart
            }
            lineStart = lineEnd + 1
        }
        return bytes.count
    }

    /// A member's text: a string as it is, a number as written (`"bug_type": 309` in some tools' copies).
    static func text(_ document: JSONDocument, _ object: Int, _ key: StaticString) -> String? {
        guard let value = document.member(object, key) else { return nil }
        switch document.kind(value) {
        case .string: return document.string(value)
        case .number: return String(decoding: document.rawBytes(value), as: UTF8.self)
        default: return nil
        }
    }

    private static func unsigned(_ document: JSONDocument, _ object: Int, _ key: StaticString) -> UInt64? {
        document.member(object, key).flatMap { unsignedValue(document, $0) }
    }

    private static func unsignedValue(_ document: JSONDocument, _ index: Int) -> UInt64? {
        if case .value(let number) = document.unsignedInteger(index) { return number }
        return nil
    }

    private static func isWhitespace(_ c: UInt8) -> Bool { c == 0x20 || c == 0x0a || c == 0x0d || c == 0x09 }

    /// Where the JSON object that opens at `start` ends (one past its `}`), strings and escapes
    /// skipped; `nil` when it does not end in `bytes`. No recursion: a depth count.
    static func endOfObject(_ bytes: UnsafeRawBufferPointer, from start: Int) -> Int? {
        var depth = 0
        var inString = false
        var escaped = false
        var index = start
        while index < bytes.count {
            if inString, !escaped, let base = bytes.baseAddress {
                // A string's plain bytes at once (names and paths are most of a body's bytes).
                index += yui_json_string_run(base.assumingMemoryBound(to: UInt8.self) + index, bytes.count - index)
                guard index < bytes.count else { break }
            }
            let c = bytes[index]
            if inString {
                if escaped {
                    escaped = false
                } else if c == UInt8(ascii: "\\") {
                    escaped = true
                } else if c == UInt8(ascii: "\"") {
                    inString = false
                }
            } else if c == UInt8(ascii: "\"") {
                inString = true
            } else if c == UInt8(ascii: "{") || c == UInt8(ascii: "[") {
                depth += 1
            } else if c == UInt8(ascii: "}") || c == UInt8(ascii: "]") {
                depth -= 1
                if depth == 0 { return index + 1 }
            }
            index += 1
        }
        return nil
    }
}
