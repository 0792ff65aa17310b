/// One row of the `yui_perf` table (docs/design.md, "Rows"): every insertable column, `nil` where absent.
///
/// Property names are the column names, so every output format (JSON, JSON Lines, CSV, SQL)
/// and the database loader agree on them without a mapping table.
public struct Row: Sendable, Hashable, Codable {
    public var user_id: String?
    public var row_key: String
    public var kind: RowKind
    public var name: String
    public var app_build: Int
    public var app_version: String
    public var os: String
    public var device: String
    public var promotion: Bool
    public var low_power: Bool
    public var thermal: Int
    /// ISO 8601 UTC, e.g. `2024-03-01T04:00:00Z`.
    public var period_start: String
    public var period_end: String
    public var n: Int
    /// Exactly 18 counts on histogram rows, `nil` otherwise.
    public var buckets: [Int]?
    public var p50: Double?
    public var p95: Double?
    public var max: Double?
    public var value: Double?
    /// Innermost frame first, 1 to 32 frames, diagnostic rows only.
    public var stack: [StackFrame]?
    /// What ended a crashed process, as numbers (`CrashCause` names them), crash rows only, each
    /// `nil` when the crash does not say: the Mach exception type (`1` is `EXC_BAD_ACCESS`),
    public var exception_type: Int?
    /// the signal as Darwin numbers it (`11` is `SIGSEGV`),
    public var signal: Int?
    /// and the termination code of a reason other than a signal (`0x8BADF00D`, the watchdog's).
    public var termination_code: Int?
    /// The app's bundle identifier (`app.yui.Yui`) where the input names it (MetricKit's
    /// `bundleIdentifier`, a crash report's `bundleID`), nil otherwise: two apps' rows are never
    /// one app's builds (docs/report.md, "One app").
    public var bundle_id: String?

    /// The column order used by every output format.
    public static let columns = [
        "user_id", "row_key", "kind", "name", "app_build", "app_version", "os", "device", "promotion",
        "low_power", "thermal", "period_start", "period_end", "n", "buckets", "p50", "p95", "max", "value",
        "stack", "exception_type", "signal", "termination_code", "bundle_id",
    ]

    public init(
        user_id: String?, row_key: String, kind: RowKind, name: String, app_build: Int, app_version: String,
        os: String, device: String, promotion: Bool, low_power: Bool, thermal: Int, period_start: String,
        period_end: String, n: Int, buckets: [Int]?, p50: Double?, p95: Double?, max: Double?, value: Double?,
        stack: [StackFrame]?, exception_type: Int? = nil, signal: Int? = nil, termination_code: Int? = nil,
        bundle_id: String? = nil
    ) {
        self.user_id = user_id
        self.row_key = row_key
        self.kind = kind
        self.name = name
        self.app_build = app_build
        self.app_version = app_version
        self.os = os
        self.device = device
        self.promotion = promotion
        self.low_power = low_power
        self.thermal = thermal
        self.period_start = period_start
        self.period_end = period_end
        self.n = n
        self.buckets = buckets
        self.p50 = p50
        self.p95 = p95
        self.max = max
        self.value = value
        self.stack = stack
        self.exception_type = exception_type
        self.signal = signal
        self.termination_code = termination_code
        self.bundle_id = bundle_id
    }
}
