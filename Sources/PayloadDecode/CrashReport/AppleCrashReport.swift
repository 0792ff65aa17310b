/// One Apple crash report, as `.ips` (iOS 15 and later: a JSON header line, then a JSON body) or
/// legacy `.crash` text writes it: the parts yui-perf uses, and nothing the `yui_perf` table may
/// not hold goes further than here unless named (docs/crash-reports.md).
public struct AppleCrashReport: Sendable, Equatable {
    /// A binary image of `usedImages` (or a `Binary Images:` line).
    public struct Image: Sendable, Equatable {
        /// The image's file name (`YuiApp`, `UIKitCore`), as the report gives it.
        public var name: String?
        /// Canonical upper-case 8-4-4-4-12, `nil` when the report's is missing or not a UUID.
        public var uuid: String?
        /// Its load address in the process.
        public var base: UInt64?
        public var size: UInt64?
        public var arch: String?
    }

    /// One frame of a thread: an offset into an image of `images`.
    public struct Frame: Sendable, Equatable {
        /// Index into `images`; `nil` when the frame names none (or one past its end).
        public var imageIndex: Int?
        /// The address minus the image's load address.
        public var imageOffset: UInt64
        /// `.ips`: where in the file the frame's object closes (its `}`), so `symbolicate --format
        /// ips` can add Xcode's keys there and leave every other byte as it was.
        public var objectEnd: Int?
        /// `.ips`: the frame already has a `symbol` key (Apple symbolicated it).
        public var hasSymbol = false
    }

    public struct Thread: Sendable, Equatable {
        public var frames: [Frame]
        /// The thread that crashed (`triggered`, or `Thread N Crashed:`).
        public var crashed: Bool
    }

    /// Its place in the file, from 1 (a file may hold several reports).
    public var position = 1
    /// `bug_type` (`309` a crash); `"crash"` for `.crash` text.
    public var bugType: String
    /// `app_version` (CFBundleShortVersionString) and `build_version` (CFBundleVersion).
    public var appVersion: String?
    public var buildVersion: String?
    public var bundleID: String?
    /// `os_version`, as `iPhone OS 17.2 (21C62)`.
    public var osVersion: String?
    /// `modelCode` (`iPhone15,2`).
    public var modelCode: String?
    /// When it crashed, seconds since 1970 (`captureTime`, else the header's `timestamp`).
    public var time: Int64?
    /// `EXC_BAD_ACCESS`, `EXC_CRASH`, as the report names it.
    public var exceptionType: String?
    /// `SIGSEGV`, `SIGABRT`.
    public var signal: String?
    /// `termination.namespace` and `.code` (`FRONTBOARD`, `0x8BADF00D` for the watchdog).
    public var terminationNamespace: String?
    public var terminationCode: UInt64?
    public var threads: [Thread]
    public var images: [Image]
    /// The SHA-1 of the report's bytes: its rows' keys are made from it, so a report read twice
    /// gives the same keys and is stored once.
    public var digest: [UInt8]

    /// The crashed thread: the one marked so, else the first.
    public var crashedThread: Thread? { threads.first(where: \.crashed) ?? threads.first }
}

/// What kind of report a file is, told from its first bytes (never its name).
public enum CrashReportForm: Sendable {
    case ips
    case text

    /// `.ips` when the first line is a JSON object with `bug_type`; `.text` when the first
    /// non-blank line starts `Incident Identifier:`.
    public static func of(firstLine line: UnsafeRawBufferPointer) -> CrashReportForm? {
        var start = 0
        while start < line.count, line[start] == 0x20 || line[start] == 0x09 || line[start] == 0x0d { start += 1 }
        guard start < line.count else { return nil }
        let rest = UnsafeRawBufferPointer(rebasing: line[start...])
        if rest.first == UInt8(ascii: "{") {
            return contains(rest, "\"bug_type\"") ? .ips : nil
        }
        return rest.starts(with: "Incident Identifier:".utf8) ? .text : nil
    }

    static func contains(_ bytes: UnsafeRawBufferPointer, _ text: String) -> Bool {
        let needle = Array(text.utf8)
        guard bytes.count >= needle.count else { return false }
        for start in 0...(bytes.count - needle.count) where bytes[start] == needle[0] {
            if (0..<needle.count).allSatisfy({ bytes[start + $0] == needle[$0] }) { return true }
        }
        return false
    }
}

/// Crash reports read from bytes held in memory: what `symbolicate --format` writes back.
public enum CrashReports {
    /// The reports of `bytes` and the problems met, or `nil` when the bytes are not a crash report
    /// (their first line is neither an `.ips` header nor `Incident Identifier:`).
    public static func read(
        _ bytes: UnsafeRawBufferPointer, fileName: String
    ) -> (
        form: CrashReportForm, reports: [AppleCrashReport], diagnostics: [InputDiagnostic]
    )? {
        var start = 0
        while start < bytes.count, bytes[start] == 0x20 || bytes[start] == 0x0a || bytes[start] == 0x0d || bytes[start] == 0x09 {
            start += 1
        }
        var end = start
        while end < bytes.count, bytes[end] != 0x0a { end += 1 }
        guard let form = CrashReportForm.of(firstLine: UnsafeRawBufferPointer(rebasing: bytes[start..<end])) else { return nil }
        var diagnostics: [InputDiagnostic] = []
        let problem = { (problem: IPSReader.Problem) in
            diagnostics.append(InputDiagnostic(severity: problem.severity, file: fileName, place: problem.place, message: problem.message))
        }
        let reports =
            switch form {
            case .ips: IPSReader.read(bytes, parser: JSONParser(maxDepth: ConversionOptions().maxJSONDepth), problem: problem)
            case .text: CrashTextReader.read(bytes, problem: problem)
            }
        return (form, reports, diagnostics)
    }

    /// `app_build` of a report, as its row has it (`nil` when it has no build number).
    public static func appBuild(_ report: AppleCrashReport) -> Int? {
        report.buildVersion.flatMap { try? ColumnPatterns.appBuild($0).get() }
    }
}
