import Foundation
import PayloadDecode

/// How a `Row` travels to and from `yui_perf`: one text value per column, in PostgreSQL's text forms.
///
/// Each form is chosen so that a row read back equals the row that was stored, column by column:
/// numbers in their shortest exact spelling into `double precision` columns, timestamps compared as
/// ISO 8601 UTC, stacks as JSON whose offsets are exact integers.
enum RowColumns {
    /// The columns `load` writes and reads, in `Row.columns` order, each with the cast its text needs.
    static let names = Row.columns
    static let casts = [
        "uuid", "uuid", "text", "text", "int", "text", "text", "text", "boolean",
        "boolean", "smallint", "timestamptz", "timestamptz", "int", "int[]", "float8", "float8", "float8", "float8",
        "jsonb", "int", "int", "bigint", "text",
    ]

    /// The select list that reads rows back in the same order: timestamps as UTC wall-clock text with
    /// microseconds (independent of the session's TimeZone and DateStyle), the rest as text.
    static let selectList = names.map { name -> String in
        switch name {
        case "user_id", "row_key", "buckets", "stack":
            return "\(name)::text"
        case "period_start", "period_end":
            return "to_char(\(name) at time zone 'UTC', 'YYYY-MM-DD\"T\"HH24:MI:SS.US')"
        default:
            return name
        }
    }.joined(separator: ", ")

    /// A problem with a row found before it is sent.
    struct UnsendableRow: Error {
        var message: String
    }

    /// The row's values as text parameters, `nil` for SQL null.
    static func parameters(of row: Row) throws(UnsendableRow) -> [String?] {
        let stackText: String?
        if let stack = row.stack {
            let encoder = JSONEncoder()
            encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
            guard let data = try? encoder.encode(stack), let text = String(data: data, encoding: .utf8) else {
                throw UnsendableRow(message: "its stack cannot be written as JSON")
            }
            stackText = text
        } else {
            stackText = nil
        }
        let values: [String?] = [
            row.user_id, row.row_key, row.kind.rawValue, row.name, String(row.app_build), row.app_version, row.os,
            row.device, row.promotion ? "true" : "false", row.low_power ? "true" : "false", String(row.thermal),
            row.period_start, row.period_end, String(row.n),
            row.buckets.map { "{" + $0.map(String.init).joined(separator: ",") + "}" },
            row.p50.map(text(of:)), row.p95.map(text(of:)), row.max.map(text(of:)), row.value.map(text(of:)),
            stackText, row.exception_type.map(String.init), row.signal.map(String.init), row.termination_code.map(String.init),
            row.bundle_id,
        ]
        // libpq takes C strings: a NUL would silently cut the value short.
        for (name, value) in zip(names, values) where value?.utf8.contains(0) == true {
            throw UnsendableRow(message: "column \(name) contains a NUL character")
        }
        return values
    }

    /// Appends `row` as one line of COPY's text format, the same values `parameters(of:)` gives
    /// (the stack as compact JSON, which `jsonb` stores the same way), without building them as
    /// strings first: this runs once per row of a `load`.
    ///
    /// - Returns: `false` when a value holds a NUL character (COPY would refuse it; the caller names
    ///   the row through `parameters(of:)`); `out` is then left partly written.
    static func appendCopyLine(_ row: Row, to out: inout [UInt8], scratch: inout [UInt8]) -> Bool {
        var clean = true
        func tab() { out.append(UInt8(ascii: "\t")) }
        func null() {
            out.append(UInt8(ascii: "\\"))
            out.append(UInt8(ascii: "N"))
        }
        func text(_ value: String) {
            var value = value
            value.withUTF8 { bytes in
                if !appendEscaped(bytes, to: &out) { clean = false }
            }
        }
        func number(_ value: Double?) {
            tab()
            if let value { out.append(contentsOf: Self.text(of: value).utf8) } else { null() }
        }
        func integer(_ value: Int) { out.append(contentsOf: String(value).utf8) }
        func optionalInteger(_ value: Int?) {
            tab()
            if let value { integer(value) } else { null() }
        }
        func flag(_ value: Bool) {
            tab()
            out.append(contentsOf: value ? "true".utf8 : "false".utf8)
        }

        if let user = row.user_id { text(user) } else { null() }
        tab()
        text(row.row_key)
        tab()
        text(row.kind.rawValue)
        tab()
        text(row.name)
        tab()
        integer(row.app_build)
        tab()
        text(row.app_version)
        tab()
        text(row.os)
        tab()
        text(row.device)
        flag(row.promotion)
        flag(row.low_power)
        tab()
        integer(row.thermal)
        tab()
        text(row.period_start)
        tab()
        text(row.period_end)
        tab()
        integer(row.n)
        tab()
        if let buckets = row.buckets {
            out.append(UInt8(ascii: "{"))
            for (position, count) in buckets.enumerated() {
                if position > 0 { out.append(UInt8(ascii: ",")) }
                integer(count)
            }
            out.append(UInt8(ascii: "}"))
        } else {
            null()
        }
        number(row.p50)
        number(row.p95)
        number(row.max)
        number(row.value)
        tab()
        if let stack = row.stack {
            scratch.removeAll(keepingCapacity: true)
            RowWriter.stackJSON(stack, into: &scratch)
            scratch.withUnsafeBufferPointer { bytes in
                if !appendEscaped(bytes, to: &out) { clean = false }
            }
        } else {
            null()
        }
        optionalInteger(row.exception_type)
        optionalInteger(row.signal)
        optionalInteger(row.termination_code)
        tab()
        if let bundle = row.bundle_id { text(bundle) } else { null() }
        out.append(UInt8(ascii: "\n"))
        return clean
    }

    /// `bytes` with COPY's text escapes (backslash, tab, newline, carriage return); most values have
    /// none of them and go in whole. Returns `false` at a NUL, which COPY cannot carry.
    private static func appendEscaped(_ bytes: UnsafeBufferPointer<UInt8>, to out: inout [UInt8]) -> Bool {
        var plain = true
        for byte in bytes where byte <= UInt8(ascii: "\\") {
            if byte == UInt8(ascii: "\\") || byte == UInt8(ascii: "\t") || byte == UInt8(ascii: "\n")
                || byte == UInt8(ascii: "\r") || byte == 0
            {
                plain = false
                break
            }
        }
        if plain {
            out.append(contentsOf: bytes)
            return true
        }
        for byte in bytes {
            switch byte {
            case 0: return false
            case UInt8(ascii: "\\"):
                out.append(UInt8(ascii: "\\"))
                out.append(UInt8(ascii: "\\"))
            case UInt8(ascii: "\t"):
                out.append(UInt8(ascii: "\\"))
                out.append(UInt8(ascii: "t"))
            case UInt8(ascii: "\n"):
                out.append(UInt8(ascii: "\\"))
                out.append(UInt8(ascii: "n"))
            case UInt8(ascii: "\r"):
                out.append(UInt8(ascii: "\\"))
                out.append(UInt8(ascii: "r"))
            default: out.append(byte)
            }
        }
        return true
    }

    /// Swift prints a Double in its shortest exact form, which PostgreSQL reads back to the same bits;
    /// only the non-finite values are spelled differently.
    static func text(of number: Double) -> String {
        if number.isNaN { return "NaN" }
        if number.isInfinite { return number < 0 ? "-Infinity" : "Infinity" }
        return "\(number)"
    }

    /// A row from the text values of `selectList`.
    ///
    /// - Throws: `RowStoreError` naming the column and the value when the table holds something
    ///   a `Row` cannot (which the table's checks rule out for rows `load` wrote).
    static func row(from values: [String?]) throws(RowStoreError) -> Row {
        var reader = ValueReader(values: values)
        return Row(
            user_id: reader.optional(),
            // A null row_key is a row from a build before the key (docs/design.md, "Rows"); `Row` has no null for it.
            row_key: reader.optional() ?? "",
            kind: try reader.kind(),
            name: try reader.required(),
            app_build: try reader.integer(),
            app_version: try reader.required(),
            os: try reader.required(),
            device: try reader.required(),
            promotion: try reader.boolean(),
            low_power: try reader.boolean(),
            thermal: try reader.integer(),
            period_start: try reader.timestamp(),
            period_end: try reader.timestamp(),
            n: try reader.integer(),
            buckets: try reader.integerArray(),
            p50: try reader.double(),
            p95: try reader.double(),
            max: try reader.double(),
            value: try reader.double(),
            stack: try reader.stack(),
            exception_type: try reader.optionalInteger(),
            signal: try reader.optionalInteger(),
            termination_code: try reader.optionalInteger(),
            bundle_id: reader.optional()
        )
    }

    /// A row read back, checked as a row file's row is (`RowReader`): frame UUIDs made canonical,
    /// then every rule of the table. The table's checks keep such rows out, but a table made
    /// before a check, or a row the owner planted past it, may hold one; `top` and `report` would
    /// print its image to a terminal. The error names the column or the rule.
    static func checkedRow(from values: [String?]) throws(RowStoreError) -> Row {
        var row = try self.row(from: values)
        if let stack = row.stack {
            row.stack = stack.map { frame in
                var frame = frame
                if let uuid = frame.uuid, let canonical = ColumnPatterns.canonicalUUID(uuid) { frame.uuid = canonical }
                return frame
            }
        }
        let rowKeyColumn = names.firstIndex(of: "row_key")!
        let violations = row.tableViolations(rowKeyMayBeMissing: rowKeyColumn < values.count && values[rowKeyColumn] == nil)
        guard violations.isEmpty else { throw RowStoreError(message: "row breaks the table's checks: " + violations.joined(separator: "; ")) }
        return row
    }

    /// Walks one result row column by column, so every error names its column.
    private struct ValueReader {
        let values: [String?]
        var position = 0

        init(values: [String?]) { self.values = values }

        /// The column `next()` last read (messages come after the read, which moved `position` on).
        private var column: String {
            let read = position - 1
            return read >= 0 && read < RowColumns.names.count ? RowColumns.names[read] : "#\(read)"
        }

        private mutating func next() -> String? {
            defer { position += 1 }
            return position < values.count ? values[position] : nil
        }

        private func unreadable(_ value: String?, _ what: String) -> RowStoreError {
            RowStoreError(message: "column \(column) holds \(value.map { InputText.quoted($0) } ?? "null"), not \(what)")
        }

        mutating func optional() -> String? { next() }

        mutating func required() throws(RowStoreError) -> String {
            guard let value = next() else { throw unreadable(nil, "text") }
            return value
        }

        mutating func kind() throws(RowStoreError) -> RowKind {
            let value = next()
            guard let value, let kind = RowKind(rawValue: value) else { throw unreadable(value, "a row kind") }
            return kind
        }

        mutating func integer() throws(RowStoreError) -> Int {
            let value = next()
            guard let value, let number = Int(value) else { throw unreadable(value, "an integer") }
            return number
        }

        mutating func optionalInteger() throws(RowStoreError) -> Int? {
            guard let value = next() else { return nil }
            guard let number = Int(value) else { throw unreadable(value, "an integer") }
            return number
        }

        mutating func boolean() throws(RowStoreError) -> Bool {
            switch next() {
            case "t": return true
            case "f": return false
            case let value: throw unreadable(value, "a boolean")
            }
        }

        /// `2024-03-01T04:00:00.000000` → `2024-03-01T04:00:00Z`; a fraction keeps only its significant digits.
        mutating func timestamp() throws(RowStoreError) -> String {
            let value = next()
            guard var text = value, text.count >= 19 else { throw unreadable(value, "a timestamp") }
            if text.contains(".") {
                while text.hasSuffix("0") { text.removeLast() }
                if text.hasSuffix(".") { text.removeLast() }
            }
            return text + "Z"
        }

        mutating func double() throws(RowStoreError) -> Double? {
            guard let value = next() else { return nil }
            guard let number = Double(value) else { throw unreadable(value, "a number") }
            return number
        }

        /// `{1,2,3}`; `{}` is an empty array.
        mutating func integerArray() throws(RowStoreError) -> [Int]? {
            guard let value = next() else { return nil }
            guard value.hasPrefix("{"), value.hasSuffix("}") else { throw unreadable(value, "an integer array") }
            let inner = value.dropFirst().dropLast()
            if inner.isEmpty { return [] }
            var numbers: [Int] = []
            for element in inner.split(separator: ",", omittingEmptySubsequences: false) {
                guard let number = Int(element) else { throw unreadable(value, "an integer array") }
                numbers.append(number)
            }
            return numbers
        }

        mutating func stack() throws(RowStoreError) -> [StackFrame]? {
            guard let value = next() else { return nil }
            guard let frames = try? JSONDecoder().decode([StackFrame].self, from: Data(value.utf8)) else {
                throw unreadable(value, "frames as {image, uuid, offset}")
            }
            return frames
        }
    }
}
