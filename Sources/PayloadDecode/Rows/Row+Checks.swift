import Foundation

extension Row {
    /// The checks of the `yui_perf` table (docs/postgres.md) this row breaks, as messages;
    /// empty when PostgreSQL would accept it. The patterns are the migration's, checked by hand.
    public func tableViolations() -> [String] { tableViolations(kindText: kind.rawValue) }

    /// The checks a row read back from the table must pass (`top --db`, `report --db`): the same,
    /// but a `row_key` that is null in the table (rows from builds before the key, which `Row`
    /// holds as "") is no violation. A row a table without the checks holds, or one the owner
    /// planted past them, is refused as a row file's would be.
    public func tableViolations(rowKeyMayBeMissing: Bool) -> [String] {
        tableViolations(kindText: kind.rawValue, rowKeyMayBeMissing: rowKeyMayBeMissing)
    }

    /// The checks, with `kind` as it was spelled in the input: a row read back from a file may
    /// name a kind `RowKind` does not have, and the message quotes it.
    func tableViolations(kindText: String, rowKeyMayBeMissing: Bool = false) -> [String] {
        var violations: [String] = []
        // Compared with the four names directly: `RowKind(rawValue:)` goes through the generic
        // string switch, a sixtieth of reading a row.
        if !RowKind.allCases.contains(where: { $0.rawValue == kindText }) {
            violations.append("kind \(InputText.quoted(kindText)) is not interval, memory, metrics or diagnostic")
        }
        if !ColumnPatterns.isName(name) { violations.append("name \(InputText.quoted(name)) does not match ^[a-z][a-z0-9_]{1,40}$") }
        if !ColumnPatterns.isDottedNumber(app_version) {
            violations.append("app_version \(InputText.quoted(app_version)) does not match ^[0-9]+(\\.[0-9]+)*$")
        }
        if !ColumnPatterns.isDottedNumber(os) { violations.append("os \(InputText.quoted(os)) does not match ^[0-9]+(\\.[0-9]+)*$") }
        if !ColumnPatterns.isDevice(device) {
            violations.append("device \(InputText.quoted(device)) does not match \(ColumnPatterns.devicePattern)")
        }
        if let buckets, buckets.count != 18 { violations.append("buckets has \(buckets.count) counts, not 18") }
        if let stack {
            if kindText != RowKind.diagnostic.rawValue { violations.append("stack on a \(kindText) row (diagnostic rows only)") }
            if stack.isEmpty || stack.count > 100 { violations.append("stack has \(stack.count) frames, not 1 to 100") }
            // The frame rules of the table's yui_perf_stack_frame_shape (a frame holds only image, uuid and offset): an image is
            // a binary's name reduced to letters, digits and `_.+-` (the converter keeps nothing
            // else), so no name can carry a terminal control into `top`'s output; PostgreSQL also
            // stores no U+0000 in jsonb, and would refuse the whole batch for it. A UUID is
            // canonical, upper case (the readers make it so before this check).
            // Most frames name the image and UUID of the frame before: each distinct pair is
            // checked once, and a frame like the one before has the same violations it had.
            var previous: (image: String?, uuid: String?, violations: [String])?
            for (position, frame) in stack.enumerated() {
                if let previous, previous.image == frame.image, previous.uuid == frame.uuid {
                    if !previous.violations.isEmpty {
                        violations += Self.frameViolations(frame, position: position)
                    }
                    continue
                }
                let found = Self.frameViolations(frame, position: position)
                violations += found
                previous = (frame.image, frame.uuid, found)
            }
        }
        if exception_type != nil || signal != nil || termination_code != nil,
            !(kindText == RowKind.diagnostic.rawValue && name == DiagnosticName.crash.rawValue)
        {
            violations.append(
                "a crash reason (exception_type, signal, termination_code) on a \(kindText) \(InputText.quoted(name)) row (crash rows only)")
        }
        // Column by column, not a list of them: a list made for every row was a fiftieth of reading it.
        if let exception_type, exception_type < 0 || exception_type > Int(Int32.max) {
            violations.append("exception_type \(exception_type) is outside 0 to 2^31 - 1")
        }
        if let signal, signal < 0 || signal > Int(Int32.max) { violations.append("signal \(signal) is outside 0 to 2^31 - 1") }
        if let bundle_id, !ColumnPatterns.isBundleID(bundle_id) {
            violations.append("bundle_id \(InputText.quoted(bundle_id)) is not 1 to 255 letters, digits, '-' and '.'")
        }
        if let termination_code, termination_code < 0 { violations.append("termination_code \(termination_code) is negative") }
        if let user_id, !ColumnPatterns.isDashedUUID(user_id) { violations.append("user_id \(InputText.quoted(user_id)) is not a UUID") }
        if !(rowKeyMayBeMissing && row_key.isEmpty), !ColumnPatterns.isDashedUUID(row_key) {
            violations.append("row_key \(InputText.quoted(row_key)) is not a UUID")
        }
        if app_build < 0 || app_build > Int(Int32.max) { violations.append("app_build \(app_build) is outside int") }
        if n < 0 || n > Int(Int32.max) { violations.append("n \(n) is outside int") }
        if thermal < Int(Int16.min) || thermal > Int(Int16.max) { violations.append("thermal \(thermal) is outside smallint") }
        let start = Timestamp.parseISO(period_start)
        // A diagnostic's period is one instant: the same text is parsed once.
        let end = period_end == period_start ? start : Timestamp.parseISO(period_end)
        if start == nil { violations.append("period_start \(InputText.quoted(period_start)) is not an ISO 8601 UTC timestamp") }
        if end == nil { violations.append("period_end \(InputText.quoted(period_end)) is not an ISO 8601 UTC timestamp") }
        if let start, let end, end < start { violations.append("period_end is before period_start") }
        func checkReal(_ column: String, _ value: Double?) {
            if let value, !value.isFinite || abs(value) > 3.4e38 { violations.append("\(column) \(value) does not fit real") }
        }
        checkReal("p50", p50)
        checkReal("p95", p95)
        checkReal("max", max)
        checkReal("value", value)
        return violations
    }

    /// A stack frame's violations of the table's frame rules.
    private static func frameViolations(_ frame: StackFrame, position: Int) -> [String] {
        var violations: [String] = []
        if let image = frame.image, let problem = imageProblem(image) {
            violations.append("stack frame \(position): image \(InputText.quoted(image)) \(problem)")
        }
        if let uuid = frame.uuid, !ColumnPatterns.isDashedUUID(uuid, upperCase: true) {
            violations.append("stack frame \(position): uuid \(InputText.quoted(uuid)) is not an upper-case 8-4-4-4-12 UUID")
        }
        return violations
    }
}

extension Row {
    /// The longest image name a frame may carry, in bytes (the table's check repeats it).
    public static let longestImage = 1_024

    /// Why `image` breaks the frame rules, or `nil`: 1 to 1,024 letters, digits and `_.+-`.
    static func imageProblem(_ image: String) -> String? {
        var image = image
        // On the bytes, not the scalars: every frame of a row file is checked, and walking the
        // string's views was a twentieth of reading one. Only a name with a byte outside the
        // allowed ones needs its scalars looked at.
        let allowed = image.withUTF8 { bytes in
            bytes.allSatisfy { c in
                (c >= 0x61 && c <= 0x7a) || (c >= 0x41 && c <= 0x5a) || (c >= 0x30 && c <= 0x39) || c == 0x5f || c == 0x2e || c == 0x2b
                    || c == 0x2d
            }
        }
        if !allowed, image.unicodeScalars.contains(where: { $0.value < 0x20 || (0x7F...0x9F).contains($0.value) }) {
            return "holds control characters"
        }
        let count = image.utf8.count
        if count == 0 || count > longestImage { return "is not 1 to \(longestImage) bytes long" }
        return allowed ? nil : "holds characters other than letters, digits and _.+-"
    }
}

extension Timestamp {
    /// Seconds of an ISO 8601 timestamp with a zone (what rows hold).
    public static func parseISO(_ text: String) -> Int64? {
        var text = text
        return text.withUTF8 { bytes -> Int64? in
            guard bytes.count >= 20, bytes[10] == UInt8(ascii: "T") else { return nil }
            return parse(bytes, zone: .gmt)
        }
    }
}
