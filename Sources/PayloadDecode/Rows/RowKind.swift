/// The `kind` column (docs/design.md, "Rows"): who measured the row. The raw values are the JSON and
/// SQL spellings, which the table's check lists.
public enum RowKind: String, Sendable, Hashable, Codable, CaseIterable {
    /// The app's own signposts: a histogram of one interval's durations.
    case interval
    /// The app's own memory samples.
    case memory
    /// MetricKit's metric payloads.
    case metrics
    /// MetricKit's diagnostics: one row per crash, hang or exception, with its stack.
    case diagnostic
}

/// The names of the `metrics` rows the converter writes (docs/design.md, "Rows"). Interval and
/// memory rows are named by the app, so `Row.name` stays a string; this is the closed set MetricKit gives.
public enum MetricName: String, Sendable, Hashable, CaseIterable {
    case foregroundTime = "fg_time"
    case hangRate = "hang_rate"
    case hitchRatio = "hitch_ratio"
    case cpuTime = "cpu_time"
    case launchTime = "launch_mk"
    case resumeTime = "resume_mk"
    case memoryPeak = "mem_peak"
    case memoryAverage = "mem_avg"
    /// `diskIOMetrics.cumulativeLogicalWrites`, MB.
    case diskWrites = "disk_writes"
    /// `cpuMetrics.cumulativeCPUInstructions`, in instructions (MetricKit counts thousands).
    case cpuInstructions = "cpu_instructions"
    /// `gpuMetrics.cumulativeGPUTime`, seconds.
    case gpuTime = "gpu_time"
}

/// Why the app ended, as `applicationExitMetrics` counts it: one `metrics` row per reason and state,
/// `exit_fg_<reason>` or `exit_bg_<reason>`, whose value is the count (docs/rows.md, "Exits").
public enum ExitReason: String, Sendable, Hashable, CaseIterable {
    case normal
    case abnormal
    case watchdog
    case memoryLimit = "memory_limit"
    case memoryPressure = "memory_pressure"
    case cpuLimit = "cpu_limit"
    case badAccess = "bad_access"
    case illegalInstruction = "illegal_instruction"
    case lockedFile = "locked_file"
    case taskTimeout = "task_timeout"
    case urlSessionTimeout = "url_session_timeout"
    case fetchTimeout = "fetch_timeout"

    /// MetricKit's key for the count.
    public var payloadKey: StaticString {
        switch self {
        case .normal: "cumulativeNormalAppExitCount"
        case .abnormal: "cumulativeAbnormalExitCount"
        case .watchdog: "cumulativeAppWatchdogExitCount"
        case .memoryLimit: "cumulativeMemoryResourceLimitExitCount"
        case .memoryPressure: "cumulativeMemoryPressureExitCount"
        case .cpuLimit: "cumulativeCPUResourceLimitExitCount"
        case .badAccess: "cumulativeBadAccessExitCount"
        case .illegalInstruction: "cumulativeIllegalInstructionExitCount"
        case .lockedFile: "cumulativeSuspendedWithLockedFileExitCount"
        case .taskTimeout: "cumulativeBackgroundTaskAssertionTimeoutExitCount"
        case .urlSessionTimeout: "cumulativeBackgroundURLSessionCompletionTimeoutExitCount"
        case .fetchTimeout: "cumulativeBackgroundFetchCompletionTimeoutExitCount"
        }
    }

    /// The row name for this reason in the foreground or the background.
    public func rowName(background: Bool) -> String {
        let names = background ? Self.backgroundRowNames : Self.foregroundRowNames
        return names[Self.allCases.firstIndex(of: self)!]
    }

    // Made once: a new String per exit row was a percent of `rows` over payload dumps.
    private static let foregroundRowNames = allCases.map { "exit_fg_" + $0.rawValue }
    private static let backgroundRowNames = allCases.map { "exit_bg_" + $0.rawValue }

    /// The reason and state a row name stands for.
    public static func of(rowName name: String) -> (reason: ExitReason, background: Bool)? {
        let background: Bool
        if name.hasPrefix("exit_bg_") {
            background = true
        } else if name.hasPrefix("exit_fg_") {
            background = false
        } else {
            return nil
        }
        return ExitReason(rawValue: String(name.dropFirst(8))).map { ($0, background) }
    }

    /// Whether the exit ended the app against its will: every reason but normal exits and the
    /// background's memory-pressure exits (the system reclaiming a suspended app's memory). The
    /// report's worse rule and its terminations tile count these.
    public func isUnwanted(background: Bool) -> Bool { self != .normal && !(background && self == .memoryPressure) }

    /// What a person would call it: `watchdog`, `memory limit`, `bad access`.
    public var words: String { rawValue.replacingOccurrences(of: "_", with: " ") }
}

/// The names of the `diagnostic` rows (docs/design.md, "Rows").
public enum DiagnosticName: String, Sendable, Hashable, CaseIterable {
    case crash
    case hang
    case cpuException = "cpu_exception"
    case diskWrite = "disk_write"
    case launch = "launch_diag"
}

extension Row {
    /// The metric this row holds, `nil` unless it is a `metrics` row with one of MetricKit's names.
    public var metric: MetricName? { kind == .metrics ? MetricName(rawValue: name) : nil }

    /// The diagnostic this row holds, `nil` unless it is a `diagnostic` row with a known name.
    public var diagnostic: DiagnosticName? { kind == .diagnostic ? DiagnosticName(rawValue: name) : nil }

    /// The phone the row came from, as `user/device`: rows carry no phone identifier, so a user's
    /// devices of one model are one phone (docs/report.md, "Each figure"). `top` and `report` name
    /// phones this way.
    public var phoneName: String { "\(user_id ?? "")/\(device)" }
}

/// The names of the app's own `memory` rows (docs/design.md, "Rows") that the report reads.
public enum MemorySampleName: String, Sendable, Hashable, CaseIterable {
    /// value and p50 the period's median MB, max the peak, n the samples.
    case footprint = "mem_footprint"
    /// value the count of memory warnings.
    case warning = "mem_warning"
    /// MB grown over a scripted 30-minute session.
    case growth = "mem_growth"
}

extension Row {
    /// The memory sample this row holds, `nil` unless it is a `memory` row with one of these names.
    public var memorySample: MemorySampleName? { kind == .memory ? MemorySampleName(rawValue: name) : nil }
}
