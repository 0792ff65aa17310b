/// Reads row objects back, as `payload-tool rows` writes them in JSON or JSON Lines, so `top`,
/// `symbolicate` and `load` accept row files as well as payload dumps.
enum RowReader {
    /// A row object is recognised by its `row_key` and `kind` keys.
    static func isRowObject(_ document: JSONDocument, _ index: Int) -> Bool {
        document.kind(index) == .object && document.hasMember(index, "row_key") && document.hasMember(index, "kind")
    }

    /// The row at `index`, or the reason it cannot be one.
    static func read(_ document: JSONDocument, _ index: Int) -> Result<Row, InputDiagnostic> {
        var problem: String?
        func fail(_ key: String, _ message: String) {
            if problem == nil { problem = "key \(key): \(message)" }
        }
        func text(_ key: StaticString, optional: Bool = false) -> String? {
            guard let value = document.member(index, key), document.kind(value) != .null else {
                if !optional { fail(key.description, "missing") }
                return nil
            }
            guard let string = document.string(value) else {
                fail(key.description, "not a string")
                return nil
            }
            return string
        }
        func integer(_ key: StaticString, default fallback: Int?) -> Int? {
            guard let value = document.member(index, key), document.kind(value) != .null else {
                if fallback == nil { fail(key.description, "missing") }
                return fallback
            }
            guard let number = document.double(value), number.isFinite, number == number.rounded(.towardZero),
                abs(number) <= Double(Int32.max)
            else {
                fail(key.description, "not an integer that fits int")
                return fallback
            }
            return Int(number)
        }
        func boolean(_ key: StaticString) -> Bool {
            guard let value = document.member(index, key), document.kind(value) != .null else { return false }
            guard let flag = document.bool(value) else {
                fail(key.description, "not a boolean")
                return false
            }
            return flag
        }
        func number(_ key: StaticString) -> Double? {
            guard let value = document.member(index, key), document.kind(value) != .null else { return nil }
            guard let number = document.double(value), number.isFinite else {
                fail(key.description, "not a finite number")
                return nil
            }
            return number
        }
        /// A crash-reason column: absent in row files written before it, so absent is null.
        func count(_ key: StaticString, below limit: UInt64) -> Int? {
            guard let value = document.member(index, key), document.kind(value) != .null else { return nil }
            guard case .value(let number) = document.unsignedInteger(value), number < limit else {
                fail(key.description, "not a whole number from 0 to \(limit - 1)")
                return nil
            }
            return Int(number)
        }
        let buckets = readBuckets(document, index, fail: fail)
        let stack = readStack(document, index, fail: fail)
        // Read in column order: only the first problem is reported. An unknown kind is reported with
        // the table's other checks below, in the same words.
        let userID = text("user_id", optional: true)
        let rowKey = text("row_key") ?? ""
        let kindText = text("kind") ?? ""
        let row = Row(
            user_id: userID, row_key: rowKey, kind: RowKind(rawValue: kindText) ?? .metrics,
            name: text("name") ?? "", app_build: integer("app_build", default: nil) ?? 0,
            app_version: text("app_version") ?? "", os: text("os") ?? "", device: text("device") ?? "",
            promotion: boolean("promotion"), low_power: boolean("low_power"), thermal: integer("thermal", default: 0) ?? 0,
            period_start: text("period_start") ?? "", period_end: text("period_end") ?? "",
            n: integer("n", default: 0) ?? 0, buckets: buckets, p50: number("p50"), p95: number("p95"), max: number("max"),
            value: number("value"), stack: stack, exception_type: count("exception_type", below: 1 << 31),
            signal: count("signal", below: 1 << 31), termination_code: count("termination_code", below: 1 << 63),
            bundle_id: text("bundle_id", optional: true))
        if let problem {
            return .failure(InputDiagnostic(severity: .error, file: "", place: "", message: "row: \(problem)"))
        }
        let violations = row.tableViolations(kindText: kindText)
        if !violations.isEmpty {
            return .failure(
                InputDiagnostic(
                    severity: .error, file: "", place: "", message: "row breaks the table's checks: " + violations.joined(separator: "; ")))
        }
        return .success(row)
    }

    /// The `buckets` column: a list of counts (0 to 2^31−1), or nil when absent or null.
    private static func readBuckets(_ document: JSONDocument, _ index: Int, fail: (String, String) -> Void) -> [Int]? {
        if let value = document.member(index, "buckets"), document.kind(value) != .null {
            var counts: [Int] = []
            for element in document.elements(value) {
                guard case .value(let count) = document.unsignedInteger(element), count <= UInt64(Int32.max) else {
                    fail("buckets", "not a list of counts")
                    break
                }
                counts.append(Int(count))
            }
            if document.kind(value) != .array { fail("buckets", "not an array") }
            return counts
        }
        return nil
    }

    /// The `stack` column: frames with an offset each, UUIDs made canonical; nil when absent or null.
    private static func readStack(_ document: JSONDocument, _ index: Int, fail: (String, String) -> Void) -> [StackFrame]? {
        if let value = document.member(index, "stack"), document.kind(value) != .null {
            var frames: [StackFrame] = []
            if document.kind(value) != .array { fail("stack", "not an array") }
            // A frame naming the image of the frame before takes its strings: most of a stack's
            // frames do, and making two strings per frame was a tenth of reading a row file.
            var previous: (image: Int?, uuid: Int?, frame: StackFrame)?
            for (position, element) in document.elements(value).enumerated() {
                let imageNode = document.member(element, "image")
                let uuidNode = document.member(element, "uuid")
                guard let offsetIndex = document.member(element, "offset"),
                    case .value(let offset) = document.unsignedInteger(offsetIndex)
                else {
                    fail("stack[\(position)].offset", "missing or not an offset below 2^64")
                    break
                }
                func same(_ node: Int?, _ before: Int?) -> Bool {
                    switch (node, before) {
                    case (nil, nil): true
                    case (let node?, let before?): document.sameRawString(node, before)
                    default: false
                    }
                }
                var frame: StackFrame
                if let previous, same(imageNode, previous.image), same(uuidNode, previous.uuid) {
                    frame = previous.frame
                    frame.offset = offset
                } else {
                    let image = imageNode.flatMap { document.string($0) }
                    let uuid = uuidNode.flatMap { document.string($0) }
                    frame = StackFrame(image: image, uuid: uuid.flatMap { ColumnPatterns.canonicalUUID($0) } ?? uuid, offset: offset)
                }
                frames.append(frame)
                previous = (imageNode, uuidNode, frame)
            }
            return frames
        }
        return nil
    }
}
