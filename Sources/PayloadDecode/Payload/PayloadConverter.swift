import Foundation
import SystemIO

/// The context columns every row of one payload (or one diagnostic) shares.
struct RowContext {
    var appBuild: Int
    var appVersion: String
    var os: String
    var device: String
    var promotion: Bool
    var lowPower: Bool
    var periodStart: String
    var periodEnd: String
    var bundleID: String?
}

/// Converts parsed payloads to rows (docs/rows.md, "Inputs"). One converter serves one input; its
/// scratch buffers are reused from payload to payload.
final class PayloadConverter {
    /// The longest duration a diagnostic may report (a day), in seconds.
    static let longestDiagnosticSeconds: Double = 86_400

    let options: ConversionOptions
    let file: String
    let canonical = CanonicalForm()
    var issues: [InputDiagnostic] = []
    var place = ""
    var failed = false
    /// SHA-1 given the row-key namespace and this payload's canonical digest: each row's key
    /// hashes on from a copy of it (docs/rows.md, `row_key`).
    var rowKeyHasher = SHA1()

    init(options: ConversionOptions, file: String) {
        self.options = options
        self.file = file
    }

    /// What one payload gave: its rows (none when it failed) and what to report.
    struct Result {
        var rows: [Row]
        var issues: [InputDiagnostic]
        var failed: Bool
    }

    /// Converts the payload at `index` (`place` is e.g. `payload 2` or `line 3`). A payload either
    /// converts whole (possibly with warnings and absent rows) or gives no rows and an error.
    func convert(_ document: JSONDocument, _ index: Int, place: String) -> Result {
        self.place = place
        issues.removeAll()
        failed = false
        rowKeyHasher = SHA1()
        rowKeyHasher.update(NameBasedUUID.rowKeyNamespace)
        rowKeyHasher.update(canonical.digest(of: document, at: index))
        var rows: [Row] = []
        switch document.kind(index) {
        case .object:
            if document.hasMember(index, "callStackTree") || document.hasMember(index, "diagnosticMetaData") {
                convertSingleDiagnostic(document, index, into: &rows)
            } else if Self.diagnosticKinds.contains(where: { document.hasMember(index, $0.arrayKey) }) {
                convertDiagnosticPayload(document, index, into: &rows)
            } else if document.hasMember(index, "metaData") || Self.metricCategories.contains(where: { document.hasMember(index, $0) }) {
                convertMetricPayload(document, index, into: &rows)
            } else if document.hasMember(index, "timeStampBegin") {
                warn("", "payload holds neither metrics nor diagnostics; no rows")
            } else {
                error("", "not a MetricKit payload (no metaData, diagnostic arrays or callStackTree)")
            }
        default:
            error("", "not a MetricKit payload (a JSON object was expected)")
        }
        return Result(rows: failed ? [] : rows, issues: issues, failed: failed)
    }

    /// Whether the object at `index` is a MetricKit payload or single diagnostic, by its keys (as
    /// `convert` tells them).
    static func isPayload(_ document: JSONDocument, _ index: Int) -> Bool {
        document.hasMember(index, "callStackTree") || document.hasMember(index, "diagnosticMetaData")
            || diagnosticKinds.contains(where: { document.hasMember(index, $0.arrayKey) }) || document.hasMember(index, "metaData")
            || metricCategories.contains(where: { document.hasMember(index, $0) }) || document.hasMember(index, "timeStampBegin")
    }

    static let metricCategories: [StaticString] = [
        "cpuMetrics", "gpuMetrics", "applicationTimeMetrics", "applicationLaunchMetrics",
        "applicationResponsivenessMetrics", "memoryMetrics", "animationMetrics", "diskIOMetrics",
        "networkTransferMetrics", "displayMetrics", "applicationExitMetrics", "cellularConditionMetrics",
        "locationActivityMetrics", "signpostMetrics",
    ]

    struct DiagnosticKind {
        var arrayKey: StaticString
        var name: DiagnosticName
        var valueKey: StaticString?
        var unit: ValueUnit
        var orientation: StackNormalizer.Orientation

        static let crash = DiagnosticKind(arrayKey: "crashDiagnostics", name: .crash, valueKey: nil, unit: .none, orientation: .innermostRoot)
        static let hang = DiagnosticKind(
            arrayKey: "hangDiagnostics", name: .hang, valueKey: "hangDuration", unit: .seconds, orientation: .sampleTree)
        static let cpuException = DiagnosticKind(
            arrayKey: "cpuExceptionDiagnostics", name: .cpuException, valueKey: "totalCPUTime", unit: .seconds, orientation: .sampleTree)
        static let diskWrite = DiagnosticKind(
            arrayKey: "diskWriteExceptionDiagnostics", name: .diskWrite, valueKey: "writesCaused", unit: .megabytes,
            orientation: .sampleTree)
        static let launch = DiagnosticKind(
            arrayKey: "appLaunchDiagnostics", name: .launch, valueKey: "launchDuration", unit: .seconds, orientation: .sampleTree)
    }

    enum ValueUnit { case none, seconds, megabytes }

    /// In the order a diagnostic payload's rows are written.
    static let diagnosticKinds: [DiagnosticKind] = [.crash, .hang, .cpuException, .diskWrite, .launch]

    // MARK: Reporting

    func location(_ key: String) -> String { key.isEmpty ? place : "\(place), key \(key)" }

    func warn(_ key: String, _ message: String) {
        issues.append(InputDiagnostic(severity: .warning, file: file, place: location(key), message: message))
    }

    func error(_ key: String, _ message: String) {
        failed = true
        issues.append(InputDiagnostic(severity: .error, file: file, place: location(key), message: message))
    }

    // MARK: Context

    func period(_ document: JSONDocument, _ index: Int, keyPrefix: String) -> (String, String)? {
        func read(_ key: StaticString) -> Int64? {
            let keyPath = keyPrefix + key.description
            guard let value = document.member(index, key) else {
                error(keyPath, "missing; a row needs its period")
                return nil
            }
            guard document.kind(value) == .string,
                let seconds = document.withStringBytes(value, { Timestamp.parse($0, zone: options.timeZone) })
            else {
                if let text = document.string(value) {
                    error(keyPath, "\(InputText.quoted(text)) is not a timestamp (yyyy-MM-dd HH:mm:ss with an optional zone)")
                } else {
                    error(keyPath, "not a string (a JSON \(document.kind(value))); a timestamp is a yyyy-MM-dd HH:mm:ss string")
                }
                return nil
            }
            return seconds
        }
        guard let begin = read("timeStampBegin"), let end = read("timeStampEnd") else { return nil }
        guard end >= begin else {
            error(keyPrefix + "timeStampEnd", "before timeStampBegin")
            return nil
        }
        guard let start = Timestamp.iso8601(begin), let finish = Timestamp.iso8601(end) else {
            error(keyPrefix + "timeStampBegin", "outside the years 0 to 9999")
            return nil
        }
        return (start, finish)
    }

    /// The period of a single diagnostic (docs/rows.md, "Single diagnostics"):
    /// `MXDiagnostic.jsonRepresentation()` carries no time of its own. In order: timeStampBegin/End
    /// beside `version` (exporters that keep one); `--period-start`/`--period-end`; the
    /// diagnostic's own `signpostData` times (earliest begin, latest end); the file's modification
    /// time. The last two come with a warning that says which was used.
    func singleDiagnosticPeriod(_ document: JSONDocument, _ diagnostic: Int, meta: Int?) -> (String, String)? {
        if document.hasMember(diagnostic, "timeStampBegin") || document.hasMember(diagnostic, "timeStampEnd") {
            return period(document, diagnostic, keyPrefix: "")
        }
        func iso(_ begin: Int64, _ end: Int64, _ keyPath: String) -> (String, String)? {
            guard let start = Timestamp.iso8601(begin), let finish = Timestamp.iso8601(end) else {
                error(keyPath, "outside the years 0 to 9999")
                return nil
            }
            return (start, finish)
        }
        if let start = options.periodStart {
            return iso(start, options.periodEnd ?? start, "timeStampBegin")
        }
        if let meta, let signposts = document.member(meta, "signpostData"), document.kind(signposts) == .array {
            var earliest: Int64?
            var latest: Int64?
            for signpost in document.elements(signposts) {
                for key in ["beginTimeStamp", "endTimeStamp"] as [StaticString] {
                    guard let value = document.member(signpost, key), document.kind(value) == .string,
                        let seconds = document.withStringBytes(value, { Timestamp.parse($0, zone: options.timeZone) })
                    else { continue }
                    earliest = min(earliest ?? seconds, seconds)
                    latest = max(latest ?? seconds, seconds)
                }
            }
            if let earliest, let latest, let found = iso(earliest, latest, "diagnosticMetaData.signpostData") {
                warn("timeStampBegin", "missing; the period is the diagnostic's signpostData, \(found.0) to \(found.1) (--period-start sets it)")
                return found
            }
        }
        if file != "<stdin>", case .success(let status) = FileIO.status(of: file, retryOnInterrupt: false),
            let found = iso(status.modifiedSeconds, status.modifiedSeconds, "timeStampBegin")
        {
            warn("timeStampBegin", "missing; the period is the file's modification time, \(found.0) (--period-start sets it)")
            return found
        }
        error("timeStampBegin", "missing, and no signpostData or file time to stand for it; give the period with --period-start")
        return nil
    }

    /// Reads the context columns from a metadata object; `appVersion` may live beside it.
    func context(
        _ document: JSONDocument, meta: Int?, metaKey: String, appVersion: Int?, appVersionKey: String, period: (String, String)
    ) -> RowContext? {
        guard let meta, document.kind(meta) == .object else {
            error(
                metaKey,
                meta == nil
                    ? "missing; rows need the build, version, OS and device"
                    : "not an object (a JSON \(document.kind(meta!))); rows need the build, version, OS and device")
            return nil
        }
        var ok = true
        func text(_ key: StaticString, _ index: Int?, _ keyPath: String) -> String? {
            guard let index else {
                error(keyPath, "missing")
                ok = false
                return nil
            }
            guard let value = document.string(index) else {
                error(keyPath, "not a string")
                ok = false
                return nil
            }
            return value
        }
        var appBuild = 0
        if let build = text("appBuildVersion", document.member(meta, "appBuildVersion"), "\(metaKey).appBuildVersion") {
            switch ColumnPatterns.appBuild(build) {
            case .success(let number): appBuild = number
            case .failure(let problem):
                error("\(metaKey).appBuildVersion", problem.message)
                ok = false
            }
        }
        let version = text("appVersion", appVersion, appVersionKey)
        if let version, !ColumnPatterns.isDottedNumber(version) {
            error(appVersionKey, "\(InputText.quoted(version)) does not fit app_version (digits and dots only)")
            ok = false
        }
        var os = ""
        if let osVersion = text("osVersion", document.member(meta, "osVersion"), "\(metaKey).osVersion") {
            if let number = ColumnPatterns.osNumber(osVersion) {
                os = number
            } else {
                error("\(metaKey).osVersion", "\(InputText.quoted(osVersion)) holds no version number")
                ok = false
            }
        }
        let device = text("deviceType", document.member(meta, "deviceType"), "\(metaKey).deviceType")
        if let device, !ColumnPatterns.isDevice(device) {
            error("\(metaKey).deviceType", "\(InputText.quoted(device)) is not a model identifier (like iPhone17,2) or arm64")
            ok = false
        }
        var lowPower = false
        if let flag = document.member(meta, "lowPowerModeEnabled") {
            if let value = document.bool(flag) { lowPower = value } else { warn("\(metaKey).lowPowerModeEnabled", "not a boolean; read as false") }
        }
        // Absent before iOS 16 in real data (docs/rows.md); a value that breaks the column's rule is left out.
        var bundleID: String?
        if let member = document.member(meta, "bundleIdentifier"), document.kind(member) != .null {
            if let text = document.string(member), ColumnPatterns.isBundleID(text) {
                bundleID = text
            } else {
                warn("\(metaKey).bundleIdentifier", "not a bundle identifier (letters, digits, '-' and '.', 1 to 255); left null")
            }
        }
        guard ok, let version, let device else { return nil }
        return RowContext(
            appBuild: appBuild, appVersion: version, os: os, device: device,
            promotion: options.promotionOverride ?? DeviceModels.hasPromotion(device), lowPower: lowPower,
            periodStart: period.0, periodEnd: period.1, bundleID: bundleID)
    }

    func makeRow(
        _ context: RowContext, kind: RowKind, name: String, ordinal: Int, n: Int, histogram: BucketHistogram? = nil,
        value: Double?, stack: [StackFrame]? = nil
    ) -> Row {
        // row_key: the payload's canonical digest, the row's name, the diagnostic's position in the
        // payload (two identical crashes are two rows), and the user.
        var hasher = rowKeyHasher
        hasher.update(byte: UInt8(ascii: "\n"))
        hasher.update(name)
        hasher.update(byte: UInt8(ascii: "\n"))
        if ordinal < 0 { hasher.update(byte: UInt8(ascii: "-")) }
        DecimalDigits.with(UInt64(ordinal.magnitude)) { hasher.update($0) }
        hasher.update(byte: UInt8(ascii: "\n"))
        if let user = options.userID { hasher.update(user) }
        let key = NameBasedUUID.make(hashed: hasher)
        return Row(
            user_id: options.userID, row_key: key, kind: kind, name: name, app_build: context.appBuild,
            app_version: context.appVersion, os: context.os, device: context.device, promotion: context.promotion,
            low_power: context.lowPower, thermal: 0, period_start: context.periodStart, period_end: context.periodEnd,
            n: n, buckets: histogram?.counts, p50: histogram?.percentile(0.5), p95: histogram?.percentile(0.95),
            max: histogram?.max, value: value, stack: stack, bundle_id: context.bundleID)
    }

    // MARK: Values
}
