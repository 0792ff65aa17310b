import Foundation

/// A line (or a word) of a text crash report: its bytes in the report. Reports are read as bytes,
/// not as `String`s: Character-by-Character scanning was 85% of `rows` over text reports, at a
/// twentieth of the payloads' speed per byte (docs/history.md, "Crash reports read as bytes").
typealias TextBytes = Slice<UnsafeRawBufferPointer>

/// The lines of a text crash report one by one: a frame, a binary image, a thread's start.
/// Every number goes through checked arithmetic: a report may spell any value
/// (`0xffffffffffffffff`, an end below its start), and none may trap.
enum CrashTextLines {
    /// A frame line: `0   YuiApp   0x0000000102a1c0ac 0x102a14000 + 32940` (unsymbolicated),
    /// `… 0x… main + 20 (main.swift:10)`, `… 0x… -[NSApplication run] + 517`, `… 0x… main (main.m:16)`.
    struct FrameLine {
        /// The image column's words (`App Namespace` is two), as bytes of the report.
        var imageName: TextBytes
        var address: UInt64
        /// `0x102a14000 + 32940`: the image's base and the offset, as an unsymbolicated line gives them.
        var baseAndOffset: (base: UInt64, offset: UInt64)?
        var name: AppleCrashReport.ReportName?
    }

    /// The words of `line` (runs of bytes between spaces and tabs), into `words` (emptied first,
    /// kept by the caller so that no line allocates).
    static func split(_ line: TextBytes, into words: inout [TextBytes]) {
        words.removeAll(keepingCapacity: true)
        var index = line.startIndex
        while index < line.endIndex {
            while index < line.endIndex, isSpace(line[index]) { index += 1 }
            let start = index
            while index < line.endIndex, !isSpace(line[index]) { index += 1 }
            if index > start { words.append(line[start..<index]) }
        }
    }

    /// `names`: whether the frame's name is read (`rows` needs none).
    static func frameLine(_ line: TextBytes, words: inout [TextBytes], names: Bool) -> FrameLine? {
        guard let first = line.first, isDigit(first) else { return nil }
        split(line, into: &words)
        guard words.count >= 3, words[0].allSatisfy(isDigit),
            let addressAt = (2..<words.count).first(where: { hasPrefix(words[$0], "0x") && number(words[$0]) != nil }),
            let address = number(words[addressAt])
        else { return nil }
        let image = line.base[words[1].startIndex..<words[addressAt - 1].endIndex]
        var frame = FrameLine(imageName: image, address: address)
        let rest = words[(addressAt + 1)...]
        if rest.count >= 3, equals(rest[rest.startIndex + 1], "+"), hasPrefix(rest.first!, "0x") {
            // `0x102a14000 + 32940`; a base or an offset past 2^64 − 1 says nothing. Jailbreak
            // symbolicators add the name as a comment: `0x189622000 + 0x77354 // -[A b] + 0x824`.
            if let base = number(rest[rest.startIndex]), let offset = number(rest[rest.startIndex + 2]) {
                frame.baseAndOffset = (base, offset)
            }
            if names, rest.count > 4, equals(rest[rest.startIndex + 3], "//") { frame.name = reportName(rest.dropFirst(4)) }
            return frame
        }
        if names { frame.name = reportName(rest) }
        return frame
    }

    /// `name + 24 (file.swift:10)`, `name (file.m:16)`, `name + 24`, `name`, each maybe marked
    /// `[inlined]`; `nil` for `???`, a bare address or nothing.
    private static func reportName(_ words: ArraySlice<TextBytes>) -> AppleCrashReport.ReportName? {
        var words = words
        var isInlined = false
        if let first = words.first, equals(first, "[inlined]") {
            isInlined = true
            words.removeFirst()
        }
        if let last = words.last, equals(last, "[inlined]") {
            isInlined = true
            words.removeLast()
        }
        var file: String?
        var line: Int?
        // `(file:line)` at the end; the file may hold spaces, so from the last word back to its `(`.
        if let last = words.last, last.last == UInt8(ascii: ")"),
            let open = words.lastIndex(where: { $0.first == UInt8(ascii: "(") }), open > words.startIndex
        {
            let inside = words.first!.base[(words[open].startIndex + 1)..<(last.endIndex - 1)]
            if let colon = inside.lastIndex(of: UInt8(ascii: ":")) {
                let path = inside[..<colon]
                file = path.isEmpty ? nil : String(decoding: path, as: UTF8.self)
                line = decimal(inside[(colon + 1)...]).flatMap { $0 > 0 && $0 <= UInt64(Int32.max) ? Int($0) : nil }
                words = words[..<open]
            }
        }
        var location: UInt64?
        if words.count >= 3, equals(words[words.endIndex - 2], "+"), let value = number(words[words.endIndex - 1]) {
            location = value
            words = words.dropLast(2)
        }
        guard let first = words.first, let last = words.last else { return nil }
        let symbol = first.base[first.startIndex..<last.endIndex]
        guard !equals(symbol, "???"), !(hasPrefix(symbol, "0x") && number(symbol) != nil) else { return nil }
        return AppleCrashReport.ReportName(
            symbol: String(decoding: symbol, as: UTF8.self), location: location, file: file, line: line, isInlined: isInlined)
    }

    /// An old report's exception backtrace on one line: `(0x1838a6d8c 0x182a605ec …)`.
    static func addressList(_ line: TextBytes, words: inout [TextBytes]) -> [UInt64]? {
        let inside = trimmed(line)
        guard hasPrefix(inside, "(0x"), inside.last == UInt8(ascii: ")") else { return nil }
        split(inside.dropFirst().dropLast(), into: &words)
        let addresses = words.compactMap { number($0) }
        return addresses.count == words.count ? addresses : nil
    }

    /// The start and end of a `Binary Images:` line (`0x100f3c000 - 0x100f43fff …`, the dash maybe
    /// against either number), read without the rest: most images hold no frame of a row.
    static func binaryImageRange(_ line: TextBytes) -> (start: UInt64, end: UInt64, rest: TextBytes)? {
        var index = line.startIndex
        while index < line.endIndex, isSpace(line[index]) { index += 1 }
        let startBegin = index
        while index < line.endIndex, !isSpace(line[index]), line[index] != UInt8(ascii: "-") { index += 1 }
        guard let start = number(line[startBegin..<index]), hasPrefix(line[startBegin..<index], "0x") else { return nil }
        while index < line.endIndex, isSpace(line[index]) { index += 1 }
        guard index < line.endIndex, line[index] == UInt8(ascii: "-") else { return nil }
        index += 1
        while index < line.endIndex, isSpace(line[index]) { index += 1 }
        let endBegin = index
        while index < line.endIndex, !isSpace(line[index]) { index += 1 }
        guard let end = number(line[endBegin..<index]) else { return nil }
        return (start, end, line[index...])
    }

    /// A `Binary Images:` line: `START - END [+]NAME [ARCH] [(VERSION)] <UUID> [PATH]`, the name
    /// maybe with spaces (`App Namespace arm64 <…>`), the architecture maybe in parentheses (old
    /// macOS reports: `+com.example.App (x86_64) <…>`), the version maybe with spaces
    /// (`(400.9.4 - 1.0.0)`). The end is the image's last byte: the size is `END - START + 1`,
    /// `nil` when that does not fit (the `0x0 - 0xffffffffffffffff ???` line) or the end is below
    /// the start. Nothing of the path is kept.
    static func binaryImage(_ line: TextBytes, words: inout [TextBytes]) -> AppleCrashReport.Image? {
        guard let (start, end, rest) = binaryImageRange(line) else { return nil }
        split(rest, into: &words)
        guard let uuidAt = words.firstIndex(where: { $0.first == UInt8(ascii: "<") && $0.last == UInt8(ascii: ">") }), uuidAt >= 1
        else { return nil }
        var described = trimmed(rest.base[words[0].startIndex..<words[uuidAt - 1].endIndex])
        if described.first == UInt8(ascii: "+") { described = described.dropFirst() }
        var arch: TextBytes?
        // A parenthesized group at the end: an architecture when it names one, else a version.
        if described.last == UInt8(ascii: ")"), let open = described.lastIndex(of: UInt8(ascii: "(")) {
            let group = described[(open + 1)..<(described.endIndex - 1)]
            let before = trimmed(described[..<open])
            if isArchitecture(group) || !before.isEmpty {
                // `(x86_64)` is the architecture; `(400.9.4 - 1.0.0)` a version, not kept.
                if isArchitecture(group) { arch = group }
                described = before
            }
        }
        if arch == nil, let space = described.lastIndex(where: isSpace) {
            arch = described[(space + 1)...]
            described = trimmed(described[..<space])
        }
        let hexDigits = words[uuidAt].dropFirst().dropLast()
        var uuid = ColumnPatterns.canonicalUUID(String(decoding: hexDigits, as: UTF8.self))
        if uuid == "00000000-0000-0000-0000-000000000000" { uuid = nil }
        let (last, overflow) = end.subtractingReportingOverflow(start)
        let size: UInt64? = overflow || last == UInt64.max ? nil : last + 1
        return AppleCrashReport.Image(
            name: described.isEmpty ? nil : joinedWords(described), uuid: uuid, base: start, size: size,
            arch: arch.map { String(decoding: $0, as: UTF8.self) })
    }

    /// `Thread 0:`, `Thread 3 Crashed:`, `Thread 0 Crashed:: Dispatch queue: …`, `Thread 1 Crashed: Test Thread Name`:
    /// the thread's number and whether it crashed; `nil` for `Thread 0 name: …`, `Thread 0 crashed with ARM Thread State`.
    static func threadStart(_ line: TextBytes) -> (number: Int, crashed: Bool)? {
        guard hasPrefix(line, "Thread ") else { return nil }
        let rest = line.dropFirst(7)
        let digits = rest.prefix(while: isDigit)
        guard !digits.isEmpty, digits.count <= 9, let number = decimal(digits) else { return nil }
        let after = rest.dropFirst(digits.count)
        if after.first == UInt8(ascii: ":") { return (Int(number), false) }
        if hasPrefix(after, " Crashed:") { return (Int(number), true) }
        return nil
    }

    static func isThreadStart(_ line: TextBytes) -> Bool { threadStart(line) != nil }

    private static let architectures: [String] = [
        "arm64", "arm64e", "arm64_32", "armv7", "armv7s", "armv7k", "armv6", "x86_64", "x86_64h", "i386", "ppc", "ppc64", "unknown-arch",
    ]

    private static func isArchitecture(_ word: TextBytes) -> Bool { architectures.contains { $0.utf8.elementsEqual(word) } }

    // MARK: Bytes

    static func isSpace(_ c: UInt8) -> Bool { c == 0x20 || c == 0x09 || c == 0x0d }
    /// Header keys start with a letter (`Hardware Model:`); register lines (`  x0: 0x…`) do not.
    static func isHeaderKeyStart(_ c: UInt8) -> Bool { (c >= 0x41 && c <= 0x5a) || (c >= 0x61 && c <= 0x7a) }
    static func isDigit(_ c: UInt8) -> Bool { c >= 0x30 && c <= 0x39 }

    /// Whether `bytes` starts with `text` (memcmp: every line of a report is asked several).
    static func hasPrefix(_ bytes: TextBytes, _ text: StaticString) -> Bool {
        let count = text.utf8CodeUnitCount
        guard bytes.count >= count, let base = bytes.base.baseAddress else { return false }
        return memcmp(base + bytes.startIndex, text.utf8Start, count) == 0
    }

    /// Where `byte` is next in `bytes` from `start`, else `bytes.endIndex` (memchr: line ends are
    /// searched through whole reports).
    static func find(_ byte: UInt8, in bytes: TextBytes, from start: Int) -> Int {
        guard start < bytes.endIndex, let base = bytes.base.baseAddress,
            let found = memchr(base + start, Int32(byte), bytes.endIndex - start)
        else { return bytes.endIndex }
        return UnsafeRawPointer(base).distance(to: UnsafeRawPointer(found))
    }

    static func equals(_ bytes: TextBytes, _ text: StaticString) -> Bool {
        text.withUTF8Buffer { bytes.elementsEqual($0) }
    }

    static func trimmed(_ bytes: TextBytes) -> TextBytes {
        var start = bytes.startIndex
        var end = bytes.endIndex
        while start < end, isSpace(bytes[start]) { start += 1 }
        while end > start, isSpace(bytes[end - 1]) { end -= 1 }
        return bytes[start..<end]
    }

    /// The words of `bytes` joined by one space each (`App   Namespace` is `App Namespace`).
    static func joinedWords(_ bytes: TextBytes) -> String {
        var words: [TextBytes] = []
        split(bytes, into: &words)
        var out: [UInt8] = []
        for (index, word) in words.enumerated() {
            if index > 0 { out.append(0x20) }
            out.append(contentsOf: word)
        }
        return String(decoding: out, as: UTF8.self)
    }

    /// `0x1f`, `31`: `nil` past 2^64 − 1 or when not a number.
    static func number(_ word: TextBytes) -> UInt64? {
        if hasPrefix(word, "0x") || hasPrefix(word, "0X") { return hexadecimal(word.dropFirst(2)) }
        return decimal(word)
    }

    static func hexadecimal(_ digits: TextBytes) -> UInt64? {
        guard !digits.isEmpty, digits.count <= 16 else { return nil }
        var value: UInt64 = 0
        for c in digits {
            let digit: UInt8
            switch c {
            case 0x30...0x39: digit = c - 0x30
            case 0x61...0x66: digit = c - 0x61 + 10
            case 0x41...0x46: digit = c - 0x41 + 10
            default: return nil
            }
            value = value << 4 | UInt64(digit)
        }
        return value
    }

    static func decimal(_ digits: TextBytes) -> UInt64? {
        guard !digits.isEmpty, digits.count <= 20 else { return nil }
        var value: UInt64 = 0
        for c in digits {
            guard isDigit(c) else { return nil }
            let (times, overflow) = value.multipliedReportingOverflow(by: 10)
            let (sum, carry) = times.addingReportingOverflow(UInt64(c - 0x30))
            guard !overflow, !carry else { return nil }
            value = sum
        }
        return value
    }
}
