import Foundation

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

        /// An image that answers for no frame: `0x0 - 0xffffffffffffffff ??? unknown-arch
        /// <00000000000000000000000000000000> ???`, which most recent reports list, or one without
        /// a load address or size. Frames are never placed in it by their address.
        public var answersNothing: Bool {
            name == nil || name == "???" || base == nil || size == nil || size == 0
        }
    }

    /// A name the report already gives a frame: the phone names system frames, Xcode and
    /// TestFlight the app's (`symbol`, `symbolLocation`, `sourceFile`, `sourceLine` in `.ips`;
    /// `name + offset (file:line)` in text).
    public struct ReportName: Sendable, Equatable, Hashable {
        public var symbol: String
        /// Bytes from the function's start to the frame's address (`symbolLocation`, `+ 24`).
        public var location: UInt64?
        public var file: String?
        public var line: Int?
        /// An inlined call (`"inline": true`): the code at the address is its, inside the next name.
        public var isInlined: Bool

        public init(symbol: String, location: UInt64? = nil, file: String? = nil, line: Int? = nil, isInlined: Bool = false) {
            self.symbol = symbol
            self.location = location
            self.file = file
            self.line = line
            self.isInlined = isInlined
        }
    }

    /// One frame of a thread: an offset into an image of `images`.
    public struct Frame: Sendable, Equatable {
        /// Index into `images`; `nil` when the frame names none (or one past its end), or lies in
        /// no image (it is kept, as `???`, with its address as the offset).
        public var imageIndex: Int?
        /// The address minus the image's load address (the address itself when in no image).
        public var imageOffset: UInt64
        /// The address in the process, as the report gives it (text) or base plus offset (`.ips`);
        /// `nil` when it does not fit 64 bits.
        public var address: UInt64?
        /// `.ips`: where in the file the frame's object closes (its `}`), so `symbolicate --format
        /// ips` can add Xcode's keys there and leave every other byte as it was.
        public var objectEnd: Int?
        /// `.ips`: the frame already has a `symbol` key (Apple symbolicated it).
        public var hasSymbol = false
        /// The report's names for the frame, innermost first (inlined calls before the function
        /// that holds them); empty when the report names it not.
        public var names: [ReportName] = []

        public init(
            imageIndex: Int?, imageOffset: UInt64, address: UInt64? = nil, objectEnd: Int? = nil, hasSymbol: Bool = false,
            names: [ReportName] = []
        ) {
            self.imageIndex = imageIndex
            self.imageOffset = imageOffset
            self.address = address
            self.objectEnd = objectEnd
            self.hasSymbol = hasSymbol
            self.names = names
        }
    }

    public struct Thread: Sendable, Equatable {
        /// `Thread N` as the report numbers it (`.ips`: its place in `threads`).
        public var number: Int
        public var frames: [Frame]
        /// The thread that crashed (`triggered`, or `Thread N Crashed:`).
        public var crashed: Bool

        public init(number: Int, frames: [Frame], crashed: Bool) {
            self.number = number
            self.frames = frames
            self.crashed = crashed
        }
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
    /// Where an uncaught exception was thrown (`lastExceptionBacktrace`, `Last Exception
    /// Backtrace:`), innermost first; empty when the report has none.
    public var lastExceptionBacktrace: [Frame] = []
    /// The SHA-1 of the report's bytes: its rows' keys are made from it, so a report read twice
    /// gives the same keys and is stored once.
    public var digest: [UInt8]

    /// The crashed thread: the one marked so, else the first.
    public var crashedThread: Thread? { threads.first(where: \.crashed) ?? threads.first }

    /// The frames a crash row keeps: the last exception backtrace when there is one (an uncaught
    /// exception is grouped where it was thrown, as Sentry and Crashlytics group it, not on the
    /// `abort` every such crash ends in), else the crashed thread's.
    public var rowFrames: [Frame] {
        lastExceptionBacktrace.isEmpty ? crashedThread?.frames ?? [] : lastExceptionBacktrace
    }
}

/// What kind of report a file is, told from its first line (never its name).
public enum CrashReportForm: Sendable {
    /// A JSON header line with `bug_type`; its body is JSON (iOS 15 and later, macOS 12 and later)
    /// or text (iOS 14 and earlier).
    case ips
    /// Text: opens with `Incident Identifier:`, or a macOS report's `Process:`, `Hardware Model:`
    /// or another header key, or the `Translated Report` banner of text made from an `.ips`.
    case text
    /// A thread listing or binary images without the report's header (a fragment pasted from
    /// one): refused with a message that says so.
    case fragment

    /// The keys a text report's first line may start with.
    static let headerKeys: [String] = [
        "Incident Identifier", "CrashReporter Key", "Hardware Model", "Process", "Path", "Identifier", "Version", "Code Type",
        "Parent Process", "Date/Time", "OS Version", "Report Version", "Anonymous UUID", "Sleep/Wake UUID", "Exception Type",
        "Launch Time", "Role", "Responsible", "User ID", "Translated Report",
    ]

    public static func of(firstLine line: UnsafeRawBufferPointer) -> CrashReportForm? {
        var start = 0
        while start < line.count, line[start] == 0x20 || line[start] == 0x09 || line[start] == 0x0d { start += 1 }
        guard start < line.count else { return nil }
        let rest = UnsafeRawBufferPointer(rebasing: line[start...])
        if rest.first == UInt8(ascii: "{") {
            return contains(rest, "\"bug_type\"") ? .ips : nil
        }
        if CrashTextLines.isThreadStart(rest[...]) || CrashTextLines.hasPrefix(rest[...], "Binary Images:")
            || CrashTextLines.hasPrefix(rest[...], "Last Exception Backtrace:")
        {
            return .fragment
        }
        let text = String(decoding: rest.prefix(64), as: UTF8.self)
        // `-------------------------------------` over `Translated Report (Full Report Below)`.
        if text.count >= 8, text.allSatisfy({ $0 == "-" || $0 == "\r" }) { return .text }
        for key in headerKeys where text.hasPrefix(key) {
            let after = text.dropFirst(key.count)
            if after.first == ":" || (key == "Translated Report" && after.first == " ") { return .text }
        }
        return nil
    }

    /// Whether `text` occurs in `bytes`, its first byte found by `memchr`: the first line of a
    /// JSON Lines file is a whole payload, and a loop over it was a percent of `rows` over dumps.
    static func contains(_ bytes: UnsafeRawBufferPointer, _ text: StaticString) -> Bool {
        let length = text.utf8CodeUnitCount
        guard let base = bytes.baseAddress, length > 0, bytes.count >= length else { return false }
        let lastStart = base + (bytes.count - length)
        var from = base
        while from <= lastStart, let hit = memchr(from, Int32(text.utf8Start.pointee), lastStart - from + 1) {
            if memcmp(hit, text.utf8Start, length) == 0 { return true }
            from = UnsafeRawPointer(hit) + 1
        }
        return false
    }
}

/// Crash reports read from bytes held in memory: what every command reads them through.
public enum CrashReports {
    /// What `read` says of a fragment, as the error of its file.
    public static let fragmentMessage =
        "a thread listing without a crash report's header (no Incident Identifier:, Process: or .ips header line above it): "
        + "not a report this reads; give the whole report"

    /// The reports of `bytes` and the problems met, or `nil` when the bytes are not a crash report
    /// (their first line is neither an `.ips` header, a text report's header line nor a thread).
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
        let reports = read(bytes, form: form, parser: JSONParser(maxDepth: ConversionOptions().maxJSONDepth)) { problem in
            diagnostics.append(InputDiagnostic(severity: problem.severity, file: fileName, place: problem.place, message: problem.message))
        }
        return (form, reports, diagnostics)
    }

    /// The reports of `bytes` in `form`, each problem handed to `problem`.
    static func read(
        _ bytes: UnsafeRawBufferPointer, form: CrashReportForm, parser: JSONParser, detail: CrashReportDetail = .full,
        problem: (IPSReader.Problem) -> Void
    ) -> [AppleCrashReport] {
        switch form {
        case .ips: return IPSReader.read(bytes, parser: parser, detail: detail, problem: problem)
        case .text: return CrashTextReader.read(bytes, detail: detail, problem: problem)
        case .fragment:
            problem((.error, "", fragmentMessage))
            return []
        }
    }

    /// `app_build` of a report, as its row has it (`nil` when it has no build number).
    public static func appBuild(_ report: AppleCrashReport) -> Int? {
        report.buildVersion.flatMap { try? ColumnPatterns.appBuild($0).get() }
    }
}
