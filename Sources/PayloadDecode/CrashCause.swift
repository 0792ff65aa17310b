/// What a crash diagnostic says ended the process: its Mach exception type and its signal
/// (`diagnosticMetaData.exceptionType` and `.signal`). Rows have no column for them (the
/// `yui_perf` table holds none), so only a payload dump carries them: `RowSource.readRows` hands
/// them out beside the rows when asked (`symbolicate` names them in a crash's header).
public struct CrashCause: Sendable, Hashable {
    /// The Mach exception type (`1` is `EXC_BAD_ACCESS`), nil when the diagnostic has none.
    public var exceptionType: UInt64?
    /// The signal, numbered as on Darwin (`11` is `SIGSEGV`, `10` `SIGBUS`), nil when absent.
    public var signal: UInt64?

    public init(exceptionType: UInt64?, signal: UInt64?) {
        self.exceptionType = exceptionType
        self.signal = signal
    }

    /// `EXC_BAD_ACCESS (SIGSEGV)`, as the Exception Type line of Apple's crash reports writes it;
    /// a number no name is known for stays a number (`exception type 99`, `signal 40`).
    public var description: String {
        guard let typeName = exceptionTypeName else { return signalName ?? "" }
        return signalName.map { "\(typeName) (\($0))" } ?? typeName
    }

    /// `EXC_BAD_ACCESS`, or `exception type 99` for a type no name is known for.
    public var exceptionTypeName: String? {
        exceptionType.map { Self.exceptionNames[$0] ?? "exception type \($0)" }
    }

    /// `SIGSEGV`, or `signal 40` for a number no name is known for.
    public var signalName: String? {
        signal.map { Self.signalNames[$0] ?? "signal \($0)" }
    }

    /// `<mach/exception_types.h>`.
    static let exceptionNames: [UInt64: String] = [
        1: "EXC_BAD_ACCESS", 2: "EXC_BAD_INSTRUCTION", 3: "EXC_ARITHMETIC", 4: "EXC_EMULATION", 5: "EXC_SOFTWARE",
        6: "EXC_BREAKPOINT", 7: "EXC_SYSCALL", 8: "EXC_MACH_SYSCALL", 9: "EXC_RPC_ALERT", 10: "EXC_CRASH", 11: "EXC_RESOURCE",
        12: "EXC_GUARD", 13: "EXC_CORPSE_NOTIFY",
    ]

    /// Darwin's `<sys/signal.h>` (not Linux's: SIGBUS is 10 there, 7 here).
    static let signalNames: [UInt64: String] = [
        1: "SIGHUP", 2: "SIGINT", 3: "SIGQUIT", 4: "SIGILL", 5: "SIGTRAP", 6: "SIGABRT", 7: "SIGEMT", 8: "SIGFPE", 9: "SIGKILL",
        10: "SIGBUS", 11: "SIGSEGV", 12: "SIGSYS", 13: "SIGPIPE", 14: "SIGALRM", 15: "SIGTERM", 16: "SIGURG", 17: "SIGSTOP",
        18: "SIGTSTP", 19: "SIGCONT", 20: "SIGCHLD", 21: "SIGTTIN", 22: "SIGTTOU", 23: "SIGIO", 24: "SIGXCPU", 25: "SIGXFSZ",
        26: "SIGVTALRM", 27: "SIGPROF", 28: "SIGWINCH", 29: "SIGINFO", 30: "SIGUSR1", 31: "SIGUSR2",
    ]
}
