/// UUID text forms (docs/design.md, "Symbolication").
public enum UUIDText {
    /// Upper-case 8-4-4-4-12 text of 16 bytes.
    static func canonical(_ bytes: [UInt8]) -> String {
        let digits = Array("0123456789ABCDEF".utf8)
        var text: [UInt8] = []
        text.reserveCapacity(36)
        for (index, byte) in bytes.prefix(16).enumerated() {
            if index == 4 || index == 6 || index == 8 || index == 10 { text.append(UInt8(ascii: "-")) }
            text.append(digits[Int(byte >> 4)])
            text.append(digits[Int(byte & 0xf)])
        }
        return String(decoding: text, as: UTF8.self)
    }

    /// True for upper-case 8-4-4-4-12 text.
    static func isCanonical(_ text: String) -> Bool {
        return text.utf8.withContiguousStorageIfAvailable { bytes -> Bool in
            guard bytes.count == 36 else { return false }
            for (index, byte) in bytes.enumerated() {
                if index == 8 || index == 13 || index == 18 || index == 23 {
                    if byte != UInt8(ascii: "-") { return false }
                } else if !((UInt8(ascii: "0")...UInt8(ascii: "9")).contains(byte) || (UInt8(ascii: "A")...UInt8(ascii: "F")).contains(byte)) {
                    return false
                }
            }
            return true
        } ?? false
    }

    /// An ELF build-id as a UUID: its first 16 bytes (zero-padded), and the Breakpad/Sentry form
    /// with the first three fields byte-swapped.
    static func fromBuildID(_ buildID: [UInt8]) -> (plain: String, swapped: String) {
        var bytes = Array(buildID.prefix(16))
        while bytes.count < 16 { bytes.append(0) }
        var swapped = bytes
        swapped.replaceSubrange(0..<4, with: bytes[0..<4].reversed())
        swapped.replaceSubrange(4..<6, with: bytes[4..<6].reversed())
        swapped.replaceSubrange(6..<8, with: bytes[6..<8].reversed())
        return (canonical(bytes), canonical(swapped))
    }

    /// The canonical form of a UUID given in any case, with or without dashes; `nil` when it is
    /// not 32 hex digits (such a value must never reach a path).
    public static func normalized(_ text: String) -> String? {
        // Payload UUIDs are canonical already (every frame of every row asks): say so without
        // building anything.
        if isCanonical(text) { return text }
        let digits = text.filter { $0 != "-" }
        guard digits.count == 32, digits.allSatisfy({ $0.isHexDigit && $0.isASCII }) else { return nil }
        var bytes: [UInt8] = []
        var index = digits.startIndex
        while index < digits.endIndex {
            let next = digits.index(index, offsetBy: 2)
            bytes.append(UInt8(digits[index..<next], radix: 16)!)
            index = next
        }
        return canonical(bytes)
    }
}
