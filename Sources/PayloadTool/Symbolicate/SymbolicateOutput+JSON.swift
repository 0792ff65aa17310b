import Foundation
import PayloadDecode
import StackSymbolize

/// `symbolicate`'s JSON: frames as `JSONSource` encodes them, written by hand where a batch writes many.
extension SymbolicateOutput {
    struct JSONSource: Codable {
        var file: String?
        var function: String
        var inlined: Bool
        var line: Int?
        var linkage_name: String?
        var simplified_name: String

        init(_ source: SourceFrame) {
            file = source.file
            function = source.function
            inlined = source.isInlined
            line = source.line
            linkage_name = source.linkageName
            simplified_name = source.simplifiedName
        }
    }

    /// Appends `"key":value` (with a leading comma unless `first`); a `nil` value is left out, as
    /// JSONEncoder leaves out nil optionals.
    static func jsonField(_ key: String, _ value: String?, first: Bool = false, into out: inout String) {
        guard let value else { return }
        out += first ? "\"" : ",\""
        out += key
        out += "\":"
        jsonString(value, into: &out)
    }

    /// A JSON string literal, escaped as JSONEncoder escapes (slashes left alone).
    static func jsonString(_ value: String, into out: inout String) {
        InputText.appendJSONString(value, to: &out)
    }

    /// One source frame as `JSONSource` encodes it (sorted keys).
    static func jsonSource(_ source: SourceFrame, into out: inout String) {
        out += "{"
        var first = true
        if let file = source.file {
            jsonField("file", file, first: true, into: &out)
            first = false
        }
        jsonField("function", source.function, first: first, into: &out)
        out += source.isInlined ? ",\"inlined\":true" : ",\"inlined\":false"
        if let line = source.line { out += ",\"line\":\(line)" }
        jsonField("linkage_name", source.linkageName, into: &out)
        jsonField("simplified_name", source.simplifiedName, into: &out)
        out += "}"
    }

    static func encodeCompact<T: Encodable>(_ value: T) -> String {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        guard let data = try? encoder.encode(value) else { return "null" }
        return String(decoding: data, as: UTF8.self)
    }

    static func encode<T: Encodable>(_ value: T) -> String {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        guard let data = try? encoder.encode(value) else { return "[]\n" }
        return String(decoding: data, as: UTF8.self) + "\n"
    }
}
