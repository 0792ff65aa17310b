/// What ended a crashed process, as a crash row keeps it (`exception_type`, `signal`,
/// `termination_code`: numbers only, as the table holds nothing a phone could fill with free
/// text), with the names `symbolicate`, `top` and `report` print (docs/crash-reports.md, "Reasons").
public struct CrashCause: Sendable, Hashable, Comparable {
    /// The Mach exception type (`1` is `EXC_BAD_ACCESS`), nil when the crash has none.
    public var exceptionType: Int?
    /// The signal, numbered as on Darwin (`11` is `SIGSEGV`, `10` `SIGBUS`), nil when absent.
    public var signal: Int?
    /// The termination reason's code when its namespace is not `SIGNAL` (a `SIGNAL` code is the
    /// signal again): `0x8BADF00D` for the watchdog, nil when absent.
    public var terminationCode: Int?

    public init(exceptionType: Int?, signal: Int?, terminationCode: Int? = nil) {
        self.exceptionType = exceptionType
        self.signal = signal
        self.terminationCode = terminationCode
    }

    /// The row's reason, `nil` when it has none (every row but a crash, and crashes that say nothing).
    /// The row borrowed: an initialiser owns its argument, so its callers (`report`'s tally, once a
    /// crash row) would copy the whole row for it.
    public init?(row: borrowing Row) {
        guard row.exception_type != nil || row.signal != nil || row.termination_code != nil else { return nil }
        self.init(exceptionType: row.exception_type, signal: row.signal, terminationCode: row.termination_code)
    }

    /// `watchdog 0x8BADF00D, EXC_CRASH (SIGKILL)` or `EXC_BAD_ACCESS (SIGSEGV)`: the termination
    /// first when there is one (it says more than the `SIGKILL` it came with, as Organizer and Sentry
    /// lead with it), then the Exception Type line of Apple's crash reports. A number no name is
    /// known for stays a number (`exception type 99`, `signal 40`, `termination 0x1`).
    public var description: String {
        var exception: String?
        if let typeName = exceptionTypeName {
            exception = signalName.map { "\(typeName) (\($0))" } ?? typeName
        } else {
            exception = signalName
        }
        return [terminationName, exception].compactMap { $0 }.joined(separator: ", ")
    }

    /// `EXC_BAD_ACCESS`, or `exception type 99` for a type no name is known for.
    public var exceptionTypeName: String? {
        exceptionType.map { Self.exceptionNames[$0] ?? "exception type \($0)" }
    }

    /// `SIGSEGV`, or `signal 40` for a number no name is known for.
    public var signalName: String? {
        signal.map { Self.signalNames[$0] ?? "signal \($0)" }
    }

    /// `watchdog 0x8BADF00D`, or `termination 0x1` for a code no name is known for.
    public var terminationName: String? {
        terminationCode.map { code in
            let hex = "0x" + String(code, radix: 16, uppercase: true)
            return "\(Self.terminationNames[code] ?? "termination") \(hex)"
        }
    }

    /// Orders reasons by their numbers, absent first, so ties in a count break the same way every run.
    public static func < (lhs: CrashCause, rhs: CrashCause) -> Bool {
        func key(_ cause: CrashCause) -> [Int] { [cause.terminationCode ?? -1, cause.exceptionType ?? -1, cause.signal ?? -1] }
        return key(lhs).lexicographicallyPrecedes(key(rhs))
    }

    /// `<mach/exception_types.h>`.
    static let exceptionNames: [Int: String] = [
        1: "EXC_BAD_ACCESS", 2: "EXC_BAD_INSTRUCTION", 3: "EXC_ARITHMETIC", 4: "EXC_EMULATION", 5: "EXC_SOFTWARE",
        6: "EXC_BREAKPOINT", 7: "EXC_SYSCALL", 8: "EXC_MACH_SYSCALL", 9: "EXC_RPC_ALERT", 10: "EXC_CRASH", 11: "EXC_RESOURCE",
        12: "EXC_GUARD", 13: "EXC_CORPSE_NOTIFY",
    ]

    /// Darwin's `<sys/signal.h>` (not Linux's: SIGBUS is 10 there, 7 here).
    static let signalNames: [Int: String] = [
        1: "SIGHUP", 2: "SIGINT", 3: "SIGQUIT", 4: "SIGILL", 5: "SIGTRAP", 6: "SIGABRT", 7: "SIGEMT", 8: "SIGFPE", 9: "SIGKILL",
        10: "SIGBUS", 11: "SIGSEGV", 12: "SIGSYS", 13: "SIGPIPE", 14: "SIGALRM", 15: "SIGTERM", 16: "SIGURG", 17: "SIGSTOP",
        18: "SIGTSTP", 19: "SIGCONT", 20: "SIGCHLD", 21: "SIGTTIN", 22: "SIGTTOU", 23: "SIGIO", 24: "SIGXCPU", 25: "SIGXFSZ",
        26: "SIGVTALRM", 27: "SIGPROF", 28: "SIGWINCH", 29: "SIGINFO", 30: "SIGUSR1", 31: "SIGUSR2",
    ]

    /// The termination codes Apple's "Understanding the exception types in a crash report" names.
    static let terminationNames: [Int: String] = [
        0x8BAD_F00D: "watchdog", 0xDEAD_10CC: "lock held in background", 0xC000_10FF: "thermal", 0xDEAD_FA11: "force quit",
        0xBAAD_CA11: "PushKit call not reported", 0xBAD2_2222: "VoIP resumed too often", 0x2BAD_45EC: "security violation",
    ]
}

extension CrashCause {
    /// The termination code a reason keeps: the code, unless the namespace is `SIGNAL` (its code is
    /// the signal, which the row has already) or the code does not fit `bigint`.
    public static func terminationCode(namespace: String?, code: UInt64?) -> Int? {
        guard let code, namespace?.uppercased() != "SIGNAL", code <= UInt64(Int.max) else { return nil }
        return Int(code)
    }

    /// The code of MetricKit's `terminationReason` text, in the forms payloads carry:
    /// `Namespace SIGNAL, Code 0xb`, `FRONTBOARD 2343432205 …`, or RunningBoard's
    /// `<RBSTerminateContext| domain:10 code:0x8BADF00D explanation:…>` alone. `nil` for a
    /// `SIGNAL` reason, and for text in none of these forms.
    public static func terminationCode(reason: String) -> Int? {
        // The first four words: a reason runs to a few kB of RunningBoard's context, and splitting all
        // of it by Characters was a percent of `rows` over real-shaped dumps.
        let words = reason.split(maxSplits: 4, whereSeparator: { $0 == " " || $0 == "\n" || $0 == "\t" || $0 == "," }).prefix(4)
            .map(String.init)
        if words.count >= 4, words[0] == "Namespace", words[2].lowercased() == "code", let code = number(words[3]) {
            return terminationCode(namespace: words[1], code: code)
        }
        if words.count >= 2, words[0].allSatisfy({ ($0 >= "A" && $0 <= "Z") || $0 == "_" }), let code = number(words[1]) {
            return terminationCode(namespace: words[0], code: code)
        }
        // RunningBoard's context alone: its `code:` field (`domain:` names the namespace by number).
        guard let range = reason.range(of: "code:") else { return nil }
        let digits = reason[range.upperBound...].prefix { $0.isHexDigit || $0 == "x" || $0 == "X" }
        return number(String(digits)).flatMap { terminationCode(namespace: nil, code: $0) }
    }

    /// `0x8BADF00D` or `2343432205`.
    private static func number(_ text: String) -> UInt64? {
        if text.hasPrefix("0x") || text.hasPrefix("0X") { return UInt64(text.dropFirst(2), radix: 16) }
        return UInt64(text)
    }
}
