/// The lines of a text crash report one by one: a frame, a binary image, a thread's start.
/// Every number goes through checked arithmetic: a report may spell any value
/// (`0xffffffffffffffff`, an end below its start), and none may trap.
enum CrashTextLines {
    /// A frame line: `0   YuiApp   0x0000000102a1c0ac 0x102a14000 + 32940` (unsymbolicated),
    /// `… 0x… main + 20 (main.swift:10)`, `… 0x… -[NSApplication run] + 517`, `… 0x… main (main.m:16)`.
    struct FrameLine {
        var imageName: String
        var address: UInt64
        /// `0x102a14000 + 32940`: the image's base and the offset, as an unsymbolicated line gives them.
        var baseAndOffset: (base: UInt64, offset: UInt64)?
        var name: AppleCrashReport.ReportName?
    }

    static func frameLine(_ line: Substring) -> FrameLine? {
        let words = line.split(whereSeparator: { $0 == " " || $0 == "\t" })
        guard words.count >= 3, words[0].allSatisfy({ $0.isASCII && $0.isNumber }),
            let addressAt = words.indices.dropFirst(2).first(where: { number(words[$0]) != nil && words[$0].hasPrefix("0x") }),
            let address = number(words[addressAt])
        else { return nil }
        var frame = FrameLine(imageName: words[1..<addressAt].joined(separator: " "), address: address)
        let rest = Array(words[(addressAt + 1)...])
        if rest.count >= 3, rest[1] == "+", rest[0].hasPrefix("0x") {
            // `0x102a14000 + 32940`; a base or an offset past 2^64 − 1 says nothing. Jailbreak
            // symbolicators add the name as a comment: `0x189622000 + 0x77354 // -[A b] + 0x824`.
            if let base = number(rest[0]), let offset = number(rest[2]) { frame.baseAndOffset = (base, offset) }
            if rest.count > 4, rest[3] == "//" { frame.name = reportName(Array(rest[4...])) }
            return frame
        }
        frame.name = reportName(rest)
        return frame
    }

    /// `name + 24 (file.swift:10)`, `name (file.m:16)`, `name + 24`, `name`, each maybe marked
    /// `[inlined]`; `nil` for `???`, a bare address or nothing.
    private static func reportName(_ words: [Substring]) -> AppleCrashReport.ReportName? {
        var words = words
        var isInlined = false
        if words.first == "[inlined]" {
            isInlined = true
            words.removeFirst()
        }
        if words.last == "[inlined]" {
            isInlined = true
            words.removeLast()
        }
        var file: String?
        var line: Int?
        // `(file:line)` at the end; the file may hold spaces, so from the last word back to its `(`.
        if let last = words.last, last.hasSuffix(")"), let open = words.lastIndex(where: { $0.hasPrefix("(") }), open > 0 {
            let inside = words[open...].joined(separator: " ").dropFirst().dropLast()
            if let colon = inside.lastIndex(of: ":") {
                let path = inside[..<colon]
                file = path.isEmpty ? nil : String(path)
                line = Int(inside[inside.index(after: colon)...]).flatMap { $0 > 0 ? $0 : nil }
                words.removeSubrange(open...)
            }
        }
        var location: UInt64?
        if words.count >= 3, words[words.count - 2] == "+", let value = number(words[words.count - 1]) {
            location = value
            words.removeLast(2)
        }
        let symbol = words.joined(separator: " ")
        guard !symbol.isEmpty, symbol != "???", !(symbol.hasPrefix("0x") && number(Substring(symbol)) != nil) else { return nil }
        return AppleCrashReport.ReportName(symbol: symbol, location: location, file: file, line: line, isInlined: isInlined)
    }

    /// An old report's exception backtrace on one line: `(0x1838a6d8c 0x182a605ec …)`.
    static func addressList(_ line: Substring) -> [UInt64]? {
        let inside = line.drop(while: { $0 == " " || $0 == "\t" })
        guard inside.hasPrefix("(0x"), inside.hasSuffix(")") else { return nil }
        let words = inside.dropFirst().dropLast().split(whereSeparator: { $0 == " " || $0 == "\t" })
        let addresses = words.compactMap { number($0) }
        return addresses.count == words.count ? addresses : nil
    }

    /// A `Binary Images:` line: `START - END [+]NAME [ARCH] [(VERSION)] <UUID> [PATH]`, the name
    /// maybe with spaces (`App Namespace arm64 <…>`), the architecture maybe in parentheses (old
    /// macOS reports: `+com.example.App (x86_64) <…>`), the version maybe with spaces
    /// (`(400.9.4 - 1.0.0)`). The end is the image's last byte: the size is `END - START + 1`,
    /// `nil` when that does not fit (the `0x0 - 0xffffffffffffffff ???` line) or the end is below
    /// the start. Nothing of the path is kept.
    static func binaryImage(_ line: Substring) -> AppleCrashReport.Image? {
        var words = line.split(whereSeparator: { $0 == " " || $0 == "\t" })
        // `0x1000-0x1fff`, `0x1000 -0x1fff`: the dash as its own word.
        if let first = words.first, let dash = first.firstIndex(of: "-"), first.hasPrefix("0x") {
            words.replaceSubrange(0...0, with: [first[..<dash], "-", first[first.index(after: dash)...]].filter { !$0.isEmpty })
        }
        if words.count > 2, words[1] != "-", words[1].hasPrefix("-") {
            words.replaceSubrange(1...1, with: ["-", words[1].dropFirst()])
        }
        guard words.count >= 5, let start = number(words[0]), words[1] == "-", let end = number(words[2]),
            let uuidAt = words.indices.dropFirst(3).first(where: { words[$0].hasPrefix("<") && words[$0].hasSuffix(">") }), uuidAt >= 4
        else { return nil }
        var described = words[3..<uuidAt].joined(separator: " ")[...]
        if described.hasPrefix("+") { described = described.dropFirst() }
        var arch: Substring?
        // A parenthesized group at the end: an architecture when it names one, else a version.
        if described.hasSuffix(")"), let open = described.lastIndex(of: "(") {
            let group = described[described.index(after: open)..<described.index(before: described.endIndex)]
            let before = described[..<open].trimmingSpaces
            if isArchitecture(group) || !before.isEmpty {
                // `(x86_64)` is the architecture; `(400.9.4 - 1.0.0)` a version, not kept.
                if isArchitecture(group) { arch = group }
                described = before
            }
        }
        var nameWords = described.split(separator: " ")
        if arch == nil, nameWords.count >= 2 { arch = nameWords.removeLast() }
        let hexDigits = words[uuidAt].dropFirst().dropLast()
        var uuid = ColumnPatterns.canonicalUUID(String(hexDigits))
        if uuid == "00000000-0000-0000-0000-000000000000" { uuid = nil }
        let (last, overflow) = end.subtractingReportingOverflow(start)
        let size: UInt64? = overflow || last == UInt64.max ? nil : last + 1
        return AppleCrashReport.Image(
            name: nameWords.isEmpty ? nil : nameWords.joined(separator: " "), uuid: uuid, base: start, size: size,
            arch: arch.map(String.init))
    }

    private static let architectures: Set<Substring> = [
        "arm64", "arm64e", "arm64_32", "armv7", "armv7s", "armv7k", "armv6", "x86_64", "x86_64h", "i386", "ppc", "ppc64", "unknown-arch",
    ]

    private static func isArchitecture(_ word: Substring) -> Bool { architectures.contains(word) }

    /// `Thread 0:`, `Thread 3 Crashed:`, `Thread 0 Crashed:: Dispatch queue: …`, `Thread 1 Crashed: Test Thread Name`:
    /// the thread's number and whether it crashed; `nil` for `Thread 0 name: …`, `Thread 0 crashed with ARM Thread State`.
    static func threadStart(_ line: Substring) -> (number: Int, crashed: Bool)? {
        guard line.hasPrefix("Thread ") else { return nil }
        let rest = line.dropFirst("Thread ".count)
        let digits = rest.prefix(while: { $0.isASCII && $0.isNumber })
        guard !digits.isEmpty, digits.count <= 9, let number = Int(digits) else { return nil }
        let after = rest.dropFirst(digits.count)
        if after.hasPrefix(":") { return (number, false) }
        if after.hasPrefix(" Crashed:") { return (number, true) }
        return nil
    }

    static func isThreadStart(_ line: Substring) -> Bool { threadStart(line) != nil }

    /// `0x1f`, `31`: `nil` past 2^64 − 1 or when not a number.
    static func number(_ word: Substring) -> UInt64? {
        if word.hasPrefix("0x") || word.hasPrefix("0X") {
            let digits = word.dropFirst(2)
            return digits.isEmpty ? nil : UInt64(digits, radix: 16)
        }
        return UInt64(word)
    }
}

extension Substring {
    var trimmingSpaces: Substring {
        var text = self
        while let first = text.first, first == " " || first == "\t" { text.removeFirst() }
        while let last = text.last, last == " " || last == "\t" || last == "\r" { text.removeLast() }
        return text
    }
}
