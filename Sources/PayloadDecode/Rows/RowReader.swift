import Foundation

/// Reads row objects back, as `payload-tool rows` writes them in JSON or JSON Lines, so `top`,
/// `symbolicate` and `load` accept row files as well as payload dumps.
enum RowReader {
    /// A row object is recognised by its `row_key` and `kind` keys.
    static func isRowObject(_ document: JSONDocument, _ index: Int) -> Bool {
        document.kind(index) == .object && document.hasMember(index, "row_key") && document.hasMember(index, "kind")
    }

    /// The keys of a row object, in `Row.columns` order.
    private enum Column: Int, CaseIterable {
        case userID, rowKey, kind, name, appBuild, appVersion, os, device, promotion, lowPower, thermal, periodStart, periodEnd, n
        case buckets, p50, p95, max, value, stack, exceptionType, signal, terminationCode, bundleID

        var key: StaticString {
            switch self {
            case .userID: "user_id"
            case .rowKey: "row_key"
            case .kind: "kind"
            case .name: "name"
            case .appBuild: "app_build"
            case .appVersion: "app_version"
            case .os: "os"
            case .device: "device"
            case .promotion: "promotion"
            case .lowPower: "low_power"
            case .thermal: "thermal"
            case .periodStart: "period_start"
            case .periodEnd: "period_end"
            case .n: "n"
            case .buckets: "buckets"
            case .p50: "p50"
            case .p95: "p95"
            case .max: "max"
            case .value: "value"
            case .stack: "stack"
            case .exceptionType: "exception_type"
            case .signal: "signal"
            case .terminationCode: "termination_code"
            case .bundleID: "bundle_id"
            }
        }

        /// All of them, found in one pass over a row object (`JSONDocument.members`).
        static let table = JSONDocument.KeyTable(allCases.map(\.key))
    }

    /// The frame images and UUIDs a file's rows named lately, as the bytes gave them and as the
    /// frames hold them. A file's rows mostly name a few images, each row the same few in turn: its
    /// rows then share one string of each, where making and checking them anew was a tenth of
    /// reading a row.
    struct FrameStrings {
        fileprivate var images = RecentStrings()
        fileprivate var uuids = RecentStrings()

        init() {}
    }

    /// The row at `index`, or the reason it cannot be one, sharing the frames' image and UUID
    /// strings with the rows read before (`strings`).
    static func read(_ document: JSONDocument, _ index: Int, strings: inout FrameStrings) -> Result<Row, InputDiagnostic> {
        var problem: String?
        func fail(_ key: String, _ message: String) {
            if problem == nil { problem = "key \(key): \(message)" }
        }
        let found = document.members(index, Column.table)
        /// The column's value, nil when absent or null.
        func present(_ column: Column) -> Int? {
            guard let value = found[column.rawValue], document.kind(value) != .null else { return nil }
            return value
        }
        func text(_ column: Column, optional: Bool = false) -> String? {
            guard let value = present(column) else {
                if !optional { fail(column.key.description, "missing") }
                return nil
            }
            guard let string = document.string(value) else {
                fail(column.key.description, "not a string")
                return nil
            }
            return string
        }
        func integer(_ column: Column, default fallback: Int?) -> Int? {
            guard let value = present(column) else {
                if fallback == nil { fail(column.key.description, "missing") }
                return fallback
            }
            guard let number = document.double(value), number.isFinite, number == number.rounded(.towardZero),
                abs(number) <= Double(Int32.max)
            else {
                fail(column.key.description, "not an integer that fits int")
                return fallback
            }
            return Int(number)
        }
        func boolean(_ column: Column) -> Bool {
            guard let value = present(column) else { return false }
            guard let flag = document.bool(value) else {
                fail(column.key.description, "not a boolean")
                return false
            }
            return flag
        }
        func number(_ column: Column) -> Double? {
            guard let value = present(column) else { return nil }
            guard let number = document.double(value), number.isFinite else {
                fail(column.key.description, "not a finite number")
                return nil
            }
            return number
        }
        /// A crash-reason column: absent in row files written before it, so absent is null.
        func count(_ column: Column, below limit: UInt64) -> Int? {
            guard let value = present(column) else { return nil }
            guard case .value(let number) = document.unsignedInteger(value), number < limit else {
                fail(column.key.description, "not a whole number from 0 to \(limit - 1)")
                return nil
            }
            return Int(number)
        }
        let buckets = readBuckets(document, present(.buckets), fail: fail)
        let stack = readStack(document, present(.stack), strings: &strings, fail: fail)
        // Read in column order: only the first problem is reported. An unknown kind is reported with
        // the table's other checks below, in the same words.
        let userID = text(.userID, optional: true)
        let rowKey = text(.rowKey) ?? ""
        let kindText = text(.kind) ?? ""
        let row = Row(
            user_id: userID, row_key: rowKey, kind: RowKind(rawValue: kindText) ?? .metrics,
            name: text(.name) ?? "", app_build: integer(.appBuild, default: nil) ?? 0,
            app_version: text(.appVersion) ?? "", os: text(.os) ?? "", device: text(.device) ?? "",
            promotion: boolean(.promotion), low_power: boolean(.lowPower), thermal: integer(.thermal, default: 0) ?? 0,
            period_start: text(.periodStart) ?? "", period_end: text(.periodEnd) ?? "",
            n: integer(.n, default: 0) ?? 0, buckets: buckets, p50: number(.p50), p95: number(.p95), max: number(.max),
            value: number(.value), stack: stack, exception_type: count(.exceptionType, below: 1 << 31),
            signal: count(.signal, below: 1 << 31), termination_code: count(.terminationCode, below: 1 << 63),
            bundle_id: text(.bundleID, optional: true))
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
    private static func readBuckets(_ document: JSONDocument, _ value: Int?, fail: (String, String) -> Void) -> [Int]? {
        if let value {
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

    /// A frame object's `image`, `uuid` and `offset`, in one pass over its members (three `member`
    /// calls passed over them three times, the most of reading a stack), each the last one given as
    /// `member` finds it.
    private static func frameMembers(_ document: JSONDocument, _ frame: Int) -> (image: Int?, uuid: Int?, offset: Int?) {
        var found: (image: Int?, uuid: Int?, offset: Int?) = (nil, nil, nil)
        document.forEachMember(frame) { key, value in
            if document.keyIs(key, "image") {
                found.image = value
            } else if document.keyIs(key, "uuid") {
                found.uuid = value
            } else if document.keyIs(key, "offset") {
                found.offset = value
            }
        }
        return found
    }

    /// The `stack` column: frames with an offset each, UUIDs made canonical; nil when absent or null.
    private static func readStack(
        _ document: JSONDocument, _ value: Int?, strings: inout FrameStrings, fail: (String, String) -> Void
    ) -> [StackFrame]? {
        if let value {
            var frames: [StackFrame] = []
            if document.kind(value) != .array { fail("stack", "not an array") }
            // Each frame takes the image and UUID strings of a frame before when its bytes name the
            // same (`FrameStrings`, across rows too): most frames do, and making two strings per
            // frame was a twelfth of reading a row file.
            for (position, element) in document.elements(value).enumerated() {
                let (imageNode, uuidNode, offsetNode) = frameMembers(document, element)
                guard let offsetIndex = offsetNode,
                    case .value(let offset) = document.unsignedInteger(offsetIndex)
                else {
                    fail("stack[\(position)].offset", "missing or not an offset below 2^64")
                    break
                }
                let image = strings.images.string(document, imageNode) { $0 }
                let uuid = strings.uuids.string(document, uuidNode) { ColumnPatterns.canonicalUUID($0) ?? $0 }
                frames.append(StackFrame(image: image, uuid: uuid, offset: offset))
            }
            return frames
        }
        return nil
    }
}
