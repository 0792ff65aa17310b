/// Text from an input, made safe to print in a message: control characters (C0, DEL, C1) are
/// written as `\u{1B}`, so an input cannot move the cursor, retitle the terminal or forge a line of
/// its own; and a long value is cut, so a 1 MB field does not make a 1 MB error line.
public enum InputText {
    /// At most this many characters of a value are quoted.
    public static let longestQuoted = 200

    /// `value` escaped and cut, in single quotes: `'2.1\u{1B}]0;x'`, `'aaa…' (1048376 more characters)`.
    public static func quoted(_ value: some StringProtocol) -> String {
        var text = ""
        var count = 0
        var index = value.startIndex
        while index < value.endIndex, count < longestQuoted {
            text += escaped(value[index])
            count += 1
            index = value.index(after: index)
        }
        guard index < value.endIndex else { return "'" + text + "'" }
        let rest = value[index...].count
        return "'" + text + "…' (\(rest) more character\(rest == 1 ? "" : "s"))"
    }

    /// `text` with its control characters escaped (nothing cut): for messages that already hold
    /// input, such as file names.
    public static func escaped(_ text: some StringProtocol) -> String {
        guard text.unicodeScalars.contains(where: isControl) else { return String(text) }
        var result = ""
        for character in text { result += escaped(character) }
        return result
    }

    private static func escaped(_ character: Character) -> String {
        guard character.unicodeScalars.contains(where: isControl) else { return String(character) }
        // "\r\n" is one Character: escape each of its scalars.
        return character.unicodeScalars.map { isControl($0) ? "\\u{\(String($0.value, radix: 16, uppercase: true))}" : String($0) }.joined()
    }

    private static func isControl(_ scalar: Unicode.Scalar) -> Bool {
        scalar.value < 0x20 || (0x7F...0x9F).contains(scalar.value)
    }

    /// Appends `value` as a JSON string literal, escaped as JSONEncoder escapes (slashes left
    /// alone): what hand-written JSON output (`symbolicate --json`, the report page's data) uses.
    public static func appendJSONString(_ value: String, to out: inout String) {
        out += "\""
        var plain = true
        for byte in value.utf8 where byte < 0x20 || byte == UInt8(ascii: "\"") || byte == UInt8(ascii: "\\") {
            plain = false
            break
        }
        if plain {
            out += value
        } else {
            for scalar in value.unicodeScalars {
                switch scalar {
                case "\"": out += "\\\""
                case "\\": out += "\\\\"
                case "\n": out += "\\n"
                case "\r": out += "\\r"
                case "\t": out += "\\t"
                case "\u{08}": out += "\\b"
                case "\u{0C}": out += "\\f"
                default:
                    if scalar.value < 0x20 {
                        let hex = String(scalar.value, radix: 16)
                        out += "\\u" + String(repeating: "0", count: 4 - hex.count) + hex
                    } else {
                        out.unicodeScalars.append(scalar)
                    }
                }
            }
        }
        out += "\""
    }
}
