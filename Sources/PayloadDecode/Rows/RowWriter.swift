/// The output formats of `payload-tool rows` (docs/design.md, "Rows"). Column values are the same in all.
public enum RowFormat: String, Sendable, CaseIterable {
    /// A JSON array of row objects, every column, nulls included (a PostgREST batch).
    case json
    /// One row object per line.
    case jsonl
    /// A header line of column names, then one line per row; null is an empty field.
    case csv
    /// `INSERT … ON CONFLICT DO NOTHING;` per row, for psql.
    case sql
}

/// Writes rows as bytes in one format, appending to a caller's buffer so the caller decides when
/// to flush (no String per value; output is byte-identical from run to run).
public struct RowWriter: Sendable {
    public let format: RowFormat
    private var rowsWritten = 0

    public init(format: RowFormat) { self.format = format }

    /// A writer for rows that continue another writer's output: a worker formatting one input of
    /// many while the main writer writes the earlier ones. Its rows are separated as if rows came
    /// before them; `append(chunk:rowCount:into:)` on the main writer puts them in place.
    public init(continuing format: RowFormat) {
        self.format = format
        rowsWritten = 1
    }

    /// Appends rows a `continuing` writer formatted, in order, fixing up JSON's opening bracket
    /// when they are the first rows of the output.
    public mutating func append(chunk: [UInt8], rowCount: Int, into out: inout [UInt8]) {
        guard rowCount > 0 else { return }
        if format == .json, rowsWritten == 0 {
            out.append(contentsOf: Array("[\n".utf8))
            out.append(contentsOf: chunk.dropFirst(2))  // the ",\n" a continuation starts with
        } else {
            out.append(contentsOf: chunk)
        }
        rowsWritten += rowCount
    }

    /// What comes before the first row (the CSV header; JSON's `[` is written lazily).
    public mutating func begin(into out: inout [UInt8]) {
        if format == .csv {
            out.append(contentsOf: Array(Row.columns.joined(separator: ",").utf8))
            out.append(0x0a)
        }
    }

    public mutating func write(_ row: Row, into out: inout [UInt8]) {
        switch format {
        case .json:
            out.append(rowsWritten == 0 ? UInt8(ascii: "[") : UInt8(ascii: ","))
            out.append(0x0a)
            Self.appendJSONObject(row, into: &out)
        case .jsonl:
            Self.appendJSONObject(row, into: &out)
            out.append(0x0a)
        case .csv: appendCSV(row, into: &out)
        case .sql: appendSQL(row, into: &out)
        }
        rowsWritten += 1
    }

    /// What comes after the last row (JSON closes its array; no rows is `[]`).
    public mutating func end(into out: inout [UInt8]) {
        if format == .json { out.append(contentsOf: rowsWritten == 0 ? Array("[]\n".utf8) : Array("\n]\n".utf8)) }
    }

    /// Every format of a list of rows, as text (for tests and small outputs).
    public static func text(of rows: [Row], format: RowFormat) -> String {
        var writer = RowWriter(format: format)
        var out: [UInt8] = []
        writer.begin(into: &out)
        for row in rows { writer.write(row, into: &out) }
        writer.end(into: &out)
        return String(decoding: out, as: UTF8.self)
    }

    // MARK: Values

    private enum Value {
        case null
        case text(String)
        case integer(Int)
        case number(Double)
        case boolean(Bool)
        case integers([Int])
        case stack([StackFrame])
    }

    private func values(_ row: Row) -> [Value] {
        func optional(_ value: Double?) -> Value { value.map { .number($0) } ?? .null }
        return [
            row.user_id.map { .text($0) } ?? .null, .text(row.row_key), .text(row.kind.rawValue), .text(row.name),
            .integer(row.app_build), .text(row.app_version), .text(row.os), .text(row.device),
            .boolean(row.promotion), .boolean(row.low_power), .integer(row.thermal), .text(row.period_start),
            .text(row.period_end), .integer(row.n), row.buckets.map { .integers($0) } ?? .null, optional(row.p50),
            optional(row.p95), optional(row.max), optional(row.value), row.stack.map { .stack($0) } ?? .null,
            row.exception_type.map { .integer($0) } ?? .null, row.signal.map { .integer($0) } ?? .null,
            row.termination_code.map { .integer($0) } ?? .null, row.bundle_id.map { .text($0) } ?? .null,
        ]
    }

    private static func append(_ string: String, to out: inout [UInt8]) { out.append(contentsOf: string.utf8) }

    private static func integerList(_ values: [Int], into out: inout [UInt8]) {
        out.append(UInt8(ascii: "{"))
        for (k, value) in values.enumerated() {
            if k > 0 { out.append(UInt8(ascii: ",")) }
            append(String(value), to: &out)
        }
        out.append(UInt8(ascii: "}"))
    }

    /// `bytes` between `quote`s, each `quote` inside doubled: CSV's quoting and SQL's literals.
    private static func appendQuoted(_ bytes: some Sequence<UInt8>, quote: UInt8, to out: inout [UInt8]) {
        out.append(quote)
        for c in bytes {
            if c == quote { out.append(c) }
            out.append(c)
        }
        out.append(quote)
    }

    /// One value as CSV and SQL both spell numbers and booleans; text, lists and stacks are
    /// quoted by `quote`, a list followed by `listSuffix` and a stack by `stackSuffix` (SQL's casts).
    private static func appendCell(
        _ value: Value, into out: inout [UInt8], quote: (_ bytes: [UInt8], _ out: inout [UInt8]) -> Void,
        listSuffix: String = "", stackSuffix: String = ""
    ) {
        switch value {
        case .null, .text: preconditionFailure("null and text are spelled by the format")
        case .integer(let integer): append(String(integer), to: &out)
        case .number(let number): append(NumberText.shortest(number), to: &out)
        case .boolean(let flag): append(flag ? "true" : "false", to: &out)
        case .integers(let integers):
            var list: [UInt8] = []
            integerList(integers, into: &list)
            quote(list, &out)
            append(listSuffix, to: &out)
        case .stack(let frames):
            var json: [UInt8] = []
            stackJSON(frames, into: &json)
            quote(json, &out)
            append(stackSuffix, to: &out)
        }
    }

    private func appendCSV(_ row: Row, into out: inout [UInt8]) {
        let quote = UInt8(ascii: "\"")
        for (k, value) in values(row).enumerated() {
            if k > 0 { out.append(UInt8(ascii: ",")) }
            switch value {
            case .null: break
            case .text(let text):
                let bytes = Array(text.utf8)
                if bytes.isEmpty || bytes.contains(where: { $0 == 0x2c || $0 == 0x22 || $0 == 0x0a || $0 == 0x0d }) {
                    Self.appendQuoted(bytes, quote: quote, to: &out)
                } else {
                    out.append(contentsOf: bytes)
                }
            default:
                Self.appendCell(value, into: &out, quote: { Self.appendQuoted($0, quote: quote, to: &$1) })
            }
        }
        out.append(0x0a)
    }

    private func appendSQL(_ row: Row, into out: inout [UInt8]) {
        let quote = UInt8(ascii: "'")
        Self.append("INSERT INTO public.yui_perf (\(Row.columns.joined(separator: ", "))) VALUES (", to: &out)
        for (k, value) in values(row).enumerated() {
            if k > 0 { Self.append(", ", to: &out) }
            switch value {
            case .null: Self.append("NULL", to: &out)
            case .text(let text): Self.appendQuoted(text.utf8, quote: quote, to: &out)
            default:
                Self.appendCell(
                    value, into: &out, quote: { Self.appendQuoted($0, quote: quote, to: &$1) }, listSuffix: "::int[]",
                    stackSuffix: "::jsonb")
            }
        }
        // No conflict target: the table's unique key is (user_id, row_key, period_start) since it is
        // partitioned, (user_id, row_key) on a table the migration has not reached; both are met.
        Self.append(") ON CONFLICT DO NOTHING;\n", to: &out)
    }
}
