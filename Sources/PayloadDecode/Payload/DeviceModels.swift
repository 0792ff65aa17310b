/// Which device models have a ProMotion (120 Hz) display, from Apple's published model
/// identifiers. Used for the `promotion` column unless `--promotion` overrides it.
public enum DeviceModels {
    public static let promotionModels: Set<String> = [
        // iPhone 13 Pro, 13 Pro Max
        "iPhone14,2", "iPhone14,3",
        // iPhone 14 Pro, 14 Pro Max
        "iPhone15,2", "iPhone15,3",
        // iPhone 15 Pro, 15 Pro Max
        "iPhone16,1", "iPhone16,2",
        // iPhone 16 Pro, 16 Pro Max
        "iPhone17,1", "iPhone17,2",
        // iPhone 17 Pro, 17 Pro Max, 17, Air (the whole iPhone 17 family has ProMotion)
        "iPhone18,1", "iPhone18,2", "iPhone18,3", "iPhone18,4",
        // iPad Pro 12.9-inch (2nd generation), 10.5-inch
        "iPad7,1", "iPad7,2", "iPad7,3", "iPad7,4",
        // iPad Pro 11-inch (1st, 2nd), 12.9-inch (3rd, 4th)
        "iPad8,1", "iPad8,2", "iPad8,3", "iPad8,4", "iPad8,5", "iPad8,6", "iPad8,7", "iPad8,8",
        "iPad8,9", "iPad8,10", "iPad8,11", "iPad8,12",
        // iPad Pro 11-inch (3rd), 12.9-inch (5th)
        "iPad13,4", "iPad13,5", "iPad13,6", "iPad13,7", "iPad13,8", "iPad13,9", "iPad13,10", "iPad13,11",
        // iPad Pro 11-inch (4th), 12.9-inch (6th)
        "iPad14,3", "iPad14,4", "iPad14,5", "iPad14,6",
        // iPad Pro 11-inch and 13-inch (M4)
        "iPad16,3", "iPad16,4", "iPad16,5", "iPad16,6",
        // iPad Pro 11-inch and 13-inch (M5)
        "iPad17,1", "iPad17,2", "iPad17,3", "iPad17,4",
    ]

    public static func hasPromotion(_ model: String) -> Bool { promotionModels.contains(model) }
}

/// The table's checks on text columns, by hand (no NSRegularExpression per row).
extension String {
    fileprivate var nilIfEmpty: String? { isEmpty ? nil : self }
}

public enum ColumnPatterns {
    /// A column value an input cannot give, with the reason in words.
    public struct Refusal: Error, Sendable {
        public var message: String
    }

    /// `app_build` from a build number as Apple writes it: `130.1` (a test build) counts as 130.
    public static func appBuild(_ build: String) -> Result<Int, Refusal> {
        let integerPart = build.split(separator: ".", maxSplits: 1, omittingEmptySubsequences: false).first ?? ""
        let isDigitsAndDots =
            !integerPart.isEmpty && integerPart.utf8.allSatisfy({ $0 >= 0x30 && $0 <= 0x39 })
            && build.utf8.allSatisfy({ ($0 >= 0x30 && $0 <= 0x39) || $0 == UInt8(ascii: ".") })
        if isDigitsAndDots, integerPart.utf8.count <= 10, let number = Int(integerPart), number <= Int(Int32.max) {
            return .success(number)
        }
        if isDigitsAndDots {
            // Digits and dots, but more than the table's `int` column holds.
            return .failure(Refusal(message: "build number \(InputText.quoted(build)) is larger than 2147483647, the most app_build holds"))
        }
        return .failure(Refusal(message: "\(InputText.quoted(build)) is not a build number (digits and dots)"))
    }

    /// `os` from an OS version as Apple writes it: the number follows the system's name
    /// ("iPhone OS 17.2.1 (21C66)", "iOS 26.0 (23A341)", "macOS 12.2 (21D49)"); a number after
    /// anything else ("Windows 95") is not an Apple OS version.
    public static func osNumber(_ osVersion: String) -> String? {
        // Every payload's text is ASCII, whose Characters are its bytes: its words by bytes (by
        // Characters, with a String per word, this was a percent of `rows` over payload dumps).
        if osVersion.utf8.allSatisfy({ $0 < 0x80 }) {
            let words = osVersion.utf8.split(separator: UInt8(ascii: " "))
            func endsInOS(_ word: Substring.UTF8View) -> Bool { word.count >= 2 && word.suffix(2).elementsEqual("OS".utf8) }
            guard let index = words.firstIndex(where: { isDottedNumber(bytes: $0) }), index > 0,
                endsInOS(words[index - 1]) || (index > 1 && words[index - 1].elementsEqual("X".utf8) && endsInOS(words[index - 2]))
            else { return nil }
            return String(Substring(words[index]))
        }
        let words = osVersion.split(separator: " ")
        // `iPhone OS 17.5.1 (21F90)`, `macOS 14.2`, and `Mac OS X 10.14.0 (18A391)` on old Macs.
        guard let index = words.indices.first(where: { isDottedNumber(String(words[$0])) }), index > 0,
            words[index - 1].hasSuffix("OS") || (index > 1 && words[index - 1] == "X" && words[index - 2].hasSuffix("OS"))
        else { return nil }
        return String(words[index])
    }

    /// An image name as a row keeps it: only letters, digits and `_.+-` (so no terminal control
    /// reaches an output), `nil` when nothing is left.
    public static func imageName<Bytes: Sequence<UInt8>>(_ bytes: Bytes) -> String? {
        // Most names keep every byte: made straight from them, without the array of kept bytes.
        if let whole = bytes.withContiguousStorageIfAvailable({ raw in
            raw.allSatisfy(isImageNameByte) ? (raw.isEmpty ? "" : String(decoding: raw, as: UTF8.self)) : nil
        }), let whole {
            return whole.isEmpty ? nil : whole
        }
        var kept: [UInt8] = []
        for c in bytes where isImageNameByte(c) { kept.append(c) }
        return kept.isEmpty ? nil : String(decoding: kept, as: UTF8.self)
    }

    /// Letters, digits and `_.+-`.
    @inline(__always) private static func isImageNameByte(_ c: UInt8) -> Bool {
        (c >= 0x61 && c <= 0x7a) || (c >= 0x41 && c <= 0x5a) || (c >= 0x30 && c <= 0x39) || c == 0x5f || c == 0x2e || c == 0x2b
            || c == 0x2d
    }

    /// `^[a-z][a-z0-9_]{1,40}$`
    public static func isName(_ text: String) -> Bool {
        let bytes = Array(text.utf8)
        guard bytes.count >= 2, bytes.count <= 41, bytes[0] >= 0x61 && bytes[0] <= 0x7a else { return false }
        return bytes.dropFirst().allSatisfy { ($0 >= 0x61 && $0 <= 0x7a) || ($0 >= 0x30 && $0 <= 0x39) || $0 == 0x5f }
    }

    /// `^[0-9]+(\.[0-9]+)*$` (app_version and os)
    public static func isDottedNumber(_ text: String) -> Bool { isDottedNumber(bytes: text.utf8) }

    static func isDottedNumber(bytes: some Collection<UInt8>) -> Bool {
        guard !bytes.isEmpty else { return false }
        var previousWasDigit = false
        for c in bytes {
            if c >= 0x30 && c <= 0x39 {
                previousWasDigit = true
            } else if c == UInt8(ascii: ".") && previousWasDigit {
                previousWasDigit = false
            } else {
                return false
            }
        }
        return previousWasDigit
    }

    /// The brief's pattern, `^([A-Z][A-Za-z]*[0-9]+,[0-9]+|arm64)$`, refuses every model
    /// identifier Apple uses for phones and tablets (`iPhone17,2` starts with a lower-case `i`),
    /// while the seed names `iPhone16,2` and `iPhone17,2` as the values this column holds. So the
    /// first letter may be either case, as in the migration's check (db/yui_perf.sql).
    public static let devicePattern = "^([A-Za-z]+[0-9]+,[0-9]+|arm64)$"

    /// `devicePattern`, by hand.
    public static func isDevice(_ text: String) -> Bool {
        if text == "arm64" { return true }
        let bytes = Array(text.utf8)
        guard let first = bytes.first, (first >= 0x41 && first <= 0x5a) || (first >= 0x61 && first <= 0x7a) else { return false }
        var i = 1
        func isLetter(_ c: UInt8) -> Bool { (c >= 0x41 && c <= 0x5a) || (c >= 0x61 && c <= 0x7a) }
        func isDigit(_ c: UInt8) -> Bool { c >= 0x30 && c <= 0x39 }
        while i < bytes.count, isLetter(bytes[i]) { i += 1 }
        let majorStart = i
        while i < bytes.count, isDigit(bytes[i]) { i += 1 }
        guard i > majorStart, i < bytes.count, bytes[i] == UInt8(ascii: ",") else { return false }
        i += 1
        let minorStart = i
        while i < bytes.count, isDigit(bytes[i]) { i += 1 }
        return i > minorStart && i == bytes.count
    }

    /// The longest bundle identifier a row keeps, in bytes (the table's check repeats it).
    public static let longestBundleID = 255

    /// A bundle identifier as Apple allows them (letters, digits, `-` and `.`; `app.yui.Yui`), 1 to
    /// 255 bytes: the `bundle_id` column's rule, so no terminal control or path reaches a row.
    public static func isBundleID(_ text: String) -> Bool {
        let bytes = text.utf8
        return !bytes.isEmpty && bytes.count <= longestBundleID
            && bytes.allSatisfy { c in
                (c >= 0x41 && c <= 0x5a) || (c >= 0x61 && c <= 0x7a) || (c >= 0x30 && c <= 0x39) || c == 0x2d || c == 0x2e
            }
    }

    /// A canonical upper-case 8-4-4-4-12 UUID from 32 hex digits, without dashes or with them
    /// where a UUID has them.
    public static func canonicalUUID(_ text: String) -> String? {
        var text = text
        return text.withUTF8 { canonicalUUID(bytes: $0) }
    }

    static func canonicalUUID(bytes: UnsafeBufferPointer<UInt8>) -> String? {
        let dashed = bytes.count == 36
        guard dashed || bytes.count == 32 else { return nil }
        return String(unsafeUninitializedCapacity: 36) { out in
            var written = 0
            var digits = 0
            for (position, c) in bytes.enumerated() {
                if dashed && (position == 8 || position == 13 || position == 18 || position == 23) {
                    guard c == UInt8(ascii: "-") else { return 0 }
                    continue
                }
                guard hexValue(c) != nil else { return 0 }
                if digits == 8 || digits == 12 || digits == 16 || digits == 20 {
                    out[written] = UInt8(ascii: "-")
                    written += 1
                }
                out[written] = c >= 0x61 ? c - 0x20 : c
                written += 1
                digits += 1
            }
            return written
        }.nilIfEmpty
    }

    /// Whether `text` is an 8-4-4-4-12 UUID (`userUUID(text) != nil`), and with `upperCase` one
    /// already canonical (`canonicalUUID(text) == text`), checked on its bytes: the row checks
    /// ask this of every frame and row key of a row file, and making the copy to compare was a
    /// tenth of reading one.
    public static func isDashedUUID(_ text: String, upperCase: Bool = false) -> Bool {
        var text = text
        return text.withUTF8 { bytes in
            guard bytes.count == 36 else { return false }
            for position in 0..<36 {
                let c = bytes[position]
                if position == 8 || position == 13 || position == 18 || position == 23 {
                    guard c == UInt8(ascii: "-") else { return false }
                } else {
                    guard hexValue(c) != nil, !upperCase || c < 0x61 else { return false }
                }
            }
            return true
        }
    }

    /// A lower-case 8-4-4-4-12 UUID (for `--user`), or `nil` when `text` is not a UUID.
    public static func userUUID(_ text: String) -> String? {
        guard text.utf8.count == 36, let canonical = canonicalUUID(text) else { return nil }
        return canonical.lowercased()
    }
}
