import Foundation

/// Reads `.ips` crash reports: one or several of (a JSON header line, then a JSON body), as a
/// device's Analytics Data, Xcode's Organizer and TestFlight hand them out (docs/crash-reports.md).
/// Every problem is reported with the report's number and the key; a bad report is skipped and
/// the others are read.
enum IPSReader {
    typealias Problem = (severity: InputDiagnostic.Severity, place: String, message: String)

    static func read(_ bytes: UnsafeRawBufferPointer, parser: JSONParser, problem: (Problem) -> Void) -> [AppleCrashReport] {
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
            guard position < bytes.count, bytes[position] == UInt8(ascii: "{") else {
                problem((.error, place, "bug_type \(InputText.quoted(bugType)): a header without a body"))
                break
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
            if var report = convert(header: fields, body: body, bugType: bugType, digest: digest.finish(), place: place, problem: problem) {
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

        init(_ header: JSONDocument) {
            let root = JSONDocument.root
            appVersion = IPSReader.text(header, root, "app_version")
            buildVersion = IPSReader.text(header, root, "build_version")
            bundleID = IPSReader.text(header, root, "bundleID")
            osVersion = IPSReader.text(header, root, "os_version")
            timestamp = IPSReader.text(header, root, "timestamp")
        }
    }

    private static func convert(
        header: HeaderFields, body: JSONDocument, bugType: String, digest: [UInt8], place: String, problem: (Problem) -> Void
    ) -> AppleCrashReport? {
        let root = JSONDocument.root
        guard body.kind(root) == .object,
            let threadList = body.member(root, "threads"), body.kind(threadList) == .array,
            let imageList = body.member(root, "usedImages"), body.kind(imageList) == .array
        else {
            problem((.error, place, "bug_type \(InputText.quoted(bugType)) is not a report this reads: its body has no threads and usedImages"))
            return nil
        }
        var images: [AppleCrashReport.Image] = []
        for (index, node) in body.elements(imageList).enumerated() {
            guard body.kind(node) == .object else {
                images.append(AppleCrashReport.Image())
                problem((.warning, "\(place), usedImages[\(index)]", "not an object; its frames have no image"))
                continue
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
            images.append(image)
        }
        let faulting = body.member(root, "faultingThread").flatMap { unsignedValue(body, $0) }
        var threads: [AppleCrashReport.Thread] = []
        for (threadIndex, node) in body.elements(threadList).enumerated() {
            guard body.kind(node) == .object else {
                problem((.warning, "\(place), threads[\(threadIndex)]", "not an object; skipped"))
                continue
            }
            let triggered = body.member(node, "triggered").flatMap { body.bool($0) } ?? false
            var frames: [AppleCrashReport.Frame] = []
            if let frameList = body.member(node, "frames"), body.kind(frameList) == .array {
                for (frameIndex, frameNode) in body.elements(frameList).enumerated() {
                    let framePlace = "\(place), threads[\(threadIndex)].frames[\(frameIndex)]"
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
                        problem(
                            (.warning, "\(framePlace).imageIndex", "\(index) points past usedImages (\(images.count) images); frame has no image"))
                        imageIndex = nil
                    }
                    // The object's `}`: from its `{` (a container node's start), counting brackets.
                    let bodyBytes = UnsafeRawBufferPointer(start: body.base, count: body.count)
                    let objectEnd = endOfObject(bodyBytes, from: Int(body.nodes[frameNode].start)).map { $0 - 1 }
                    frames.append(
                        AppleCrashReport.Frame(
                            imageIndex: imageIndex, imageOffset: offset, objectEnd: objectEnd, hasSymbol: body.hasMember(frameNode, "symbol")))
                }
            }
            threads.append(AppleCrashReport.Thread(frames: frames, crashed: triggered || faulting == UInt64(threadIndex)))
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
        if let termination = body.member(root, "termination"), body.kind(termination) == .object {
            report.terminationNamespace = text(body, termination, "namespace")
            report.terminationCode = body.member(termination, "code").flatMap { unsignedValue(body, $0) }
        }
        return report
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
