import Foundation
import PayloadDecode
import StackSymbolize

/// Turns an option's text into its value, or refuses it with a usage error that names the option.
/// Every option value of every command is checked by one of these, so a kind of value (a build
/// number, a UUID, seconds) is checked the same way wherever it is accepted.
struct ValueParser<Value>: Sendable {
    /// The placeholder an option gets when it declares none (the words of a choice: `on|off`).
    let placeholder: String?
    /// The words the parser accepts, when it takes only a few (a choice): shells complete them.
    let words: [String]?
    private let parseText: @Sendable (_ text: String, _ option: ValueContext) throws(UsageError) -> Value

    init(
        placeholder: String? = nil, words: [String]? = nil,
        _ parse: @escaping @Sendable (_ text: String, _ option: ValueContext) throws(UsageError) -> Value
    ) {
        self.placeholder = placeholder
        self.words = words
        parseText = parse
    }

    func parse(_ text: String, for option: ValueContext) throws(UsageError) -> Value {
        try parseText(text, option)
    }

    /// A parser that accepts what `convert` turns into a value and refuses the rest with `refusal`.
    static func accepting(
        placeholder: String? = nil, words: [String]? = nil, refusal: Refusal, _ convert: @escaping @Sendable (String) -> Value?
    ) -> ValueParser<Value> {
        ValueParser(placeholder: placeholder, words: words) { text, option throws(UsageError) in
            guard let value = convert(text) else { throw UsageError(message: refusal.message(text, option)) }
            return value
        }
    }
}

/// What a refusal names: the option, and how the usage line writes it (`'--batch-size N'`).
struct ValueContext {
    let name: String
    let synopsis: String
}

/// The ways the commands word a refused value. They differ by command (each keeps the wording its
/// users and tests know); each command picks one per option.
enum Refusal: Sendable {
    /// `Invalid value 'X' for '--jobs'` followed by `detail`: ` (1 to 64).` or `: not a UUID.`
    case invalidValue(detail: String)
    /// `Option '--count' takes a positive whole number, not 'X'.`
    case takes(String)
    /// `Option '--db' takes a PostgreSQL URL, not an empty string.` (for the empty string only)
    case takesNonEmpty(String)
    /// `The value 'X' is invalid for '--batch-size N': a whole number from 1 to 100000.`
    /// (argument-parser's wording, kept by `load`)
    case isInvalidFor(String)
    /// `Option '--uuid' needs a UUID, got 'X'.`
    case needs(String)

    func message(_ text: String, _ option: ValueContext) -> String {
        switch self {
        case .invalidValue(let detail): "Invalid value '\(text)' for '\(option.name)'\(detail)"
        case .takes(let what): "Option '\(option.name)' takes \(what), not '\(text)'."
        case .takesNonEmpty(let what): "Option '\(option.name)' takes \(what), not an empty string."
        case .isInvalidFor(let what): "The value '\(text)' is invalid for '\(option.synopsis)': \(what)."
        case .needs(let what): "Option '\(option.name)' needs \(what), got '\(text)'."
        }
    }
}

extension ValueParser where Value == String {
    /// Any text, the empty string included.
    static var text: ValueParser<String> { ValueParser { text, _ in text } }

    /// Any text but the empty string.
    static func nonEmpty(_ refusal: Refusal) -> ValueParser<String> {
        .accepting(refusal: refusal) { $0.isEmpty ? nil : $0 }
    }

    /// A user's UUID in its one canonical form (lower-case 8-4-4-4-12): the user is part of every
    /// row key, so two spellings of one user must give the same keys.
    static var userID: ValueParser<String> {
        .accepting(refusal: .invalidValue(detail: ": not a UUID.")) { ColumnPatterns.userUUID($0) }
    }

    /// An image UUID in any case, with or without dashes; the text is kept as given.
    static func imageUUID(_ refusal: Refusal) -> ValueParser<String> {
        .accepting(refusal: refusal) { UUIDText.normalized($0) == nil ? nil : $0 }
    }

    /// A build folder's name: one plain path component, so `../../etc` never reaches a path.
    /// A build number (`StoreBuild`), as the name of its folder: `130.1` is `130`.
    static var storeBuildNumber: ValueParser<String> {
        .accepting(refusal: .invalidValue(detail: ": a build number (digits and dots, e.g. 130 or 130.1).")) {
            StoreBuild.folderName(fromVersion: $0)
        }
    }

    static var buildFolderName: ValueParser<String> {
        .accepting(refusal: .invalidValue(detail: ": one folder name (letters, digits, '.', '_', '-'), not a path.")) {
            (try? BuildSymbolizer.buildFolder(root: "/", build: $0)) == nil ? nil : $0
        }
    }
}

extension ValueParser where Value == Int {
    /// A whole number in `range`.
    static func integer(in range: ClosedRange<Int>, _ refusal: Refusal) -> ValueParser<Int> {
        .accepting(refusal: refusal) { text in Int(text).flatMap { range.contains($0) ? $0 : nil } }
    }

    /// A build number (`app_build`, 0 or more): anything else, such as '../../etc', never reaches
    /// a path.
    static var buildNumber: ValueParser<Int> { .integer(in: 0...Int.max, .takes("a build number such as 131")) }
}

extension ValueParser where Value == String {
    /// A Mach-O architecture as atos and llvm-symbolizer name it (`arm64`, `arm64e`, `x86_64`).
    static var architecture: ValueParser<String> {
        .accepting(
            words: SliceChoice.architectures,
            refusal: .invalidValue(detail: " (\(SliceChoice.architectures.joined(separator: ", "))).")
        ) { SliceChoice.architectures.contains($0) ? $0 : nil }
    }
}

extension ValueParser where Value == UInt64 {
    /// An address as atos and llvm-symbolizer read one: `0x`-prefixed hex or decimal, below 2^64.
    static var address: ValueParser<UInt64> {
        .accepting(refusal: .invalidValue(detail: ": an address (0x-prefixed hex or decimal).")) { text in
            SymbolicateObject.parseAddress(ArraySlice(text.utf8))
        }
    }
}

extension ValueParser where Value == Double {
    /// Seconds, 0 or more (finite).
    static var seconds: ValueParser<Double> {
        .accepting(refusal: .takes("seconds (0 or more)")) { text in
            Double(text).flatMap { $0.isFinite && $0 >= 0 ? $0 : nil }
        }
    }
}

extension ValueParser where Value == TimeZone {
    /// An IANA zone name, or a fixed `+HH:MM` / `-HH:MM` offset.
    static var timeZone: ValueParser<TimeZone> {
        .accepting(refusal: .invalidValue(detail: ": an IANA name (Europe/Berlin) or +HH:MM.")) { zone($0) }
    }

    private static func zone(_ text: String) -> TimeZone? {
        let bytes = Array(text.utf8)
        if let sign = bytes.first, sign == UInt8(ascii: "+") || sign == UInt8(ascii: "-") {
            let digits = bytes.dropFirst().filter { $0 != UInt8(ascii: ":") }
            guard bytes.count == 6, bytes[3] == UInt8(ascii: ":"), digits.count == 4,
                digits.allSatisfy({ $0 >= 0x30 && $0 <= 0x39 })
            else { return nil }
            let values = digits.map { Int($0 - 0x30) }
            let hours = values[0] * 10 + values[1]
            let minutes = values[2] * 10 + values[3]
            guard hours <= 18, minutes < 60 else { return nil }
            let seconds = (hours * 3600 + minutes * 60) * (sign == UInt8(ascii: "-") ? -1 : 1)
            return TimeZone(secondsFromGMT: seconds)
        }
        guard text.contains("/") || text == "UTC" || text == "GMT" else { return nil }
        return TimeZone(identifier: text)
    }
}

extension ValueParser where Value == Int64 {
    /// A wall-clock time such as `2026-11-30 09:41:00`, read in `zone` when it names none; seconds
    /// since 1970.
    static func time(in zone: TimeZone) -> ValueParser<Int64> {
        .accepting(refusal: .invalidValue(detail: ": a time such as 2026-11-30 09:41:00 (zone optional).")) {
            Timestamp.seconds($0, zone: zone)
        }
    }
}

extension ValueParser {
    /// One of a few words, each standing for a value; the placeholder lists the words (`on|off`).
    static func choice(_ words: KeyValuePairs<String, Value>, _ refusal: Refusal) -> ValueParser<Value>
    where Value: Sendable {
        let table = Array(words)
        return .accepting(placeholder: table.map(\.key).joined(separator: "|"), words: table.map(\.key), refusal: refusal) { text in
            table.first { $0.key == text }?.value
        }
    }
}
