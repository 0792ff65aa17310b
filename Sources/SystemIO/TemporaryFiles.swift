import Dispatch
import Foundation
import Synchronization

/// Temporary files of this process (an `--output` file being written), removed when the run is
/// interrupted by SIGINT, SIGTERM, SIGHUP or SIGQUIT, and before a broken pipe ends it.
///
/// The signals are read by a thread of our own from a pipe the handler writes to (not handled inside the interrupted thread), so
/// the cleanup may lock and call Foundation; then the signal's default action is restored and the
/// signal raised again, so the exit status says what ended the run, as the shell expects.
public enum TemporaryFiles {
    private static let paths = Mutex<Set<String>>([])

    public static func register(_ path: String) {
        // The sources come before the first file: a signal in between would leave it behind.
        _ = sourcesInstalled
        _ = paths.withLock { $0.insert(path) }
    }

    public static func unregister(_ path: String) {
        _ = paths.withLock { $0.remove(path) }
    }

    /// A folder of this run's temporary files (`dsyms import`'s staging folder): removed with
    /// everything in it on the same signals.
    public static func registerFolder(_ path: String) {
        _ = sourcesInstalled
        _ = folders.withLock { $0.insert(path) }
    }

    public static func unregisterFolder(_ path: String) {
        _ = folders.withLock { $0.remove(path) }
    }

    private static let folders = Mutex<Set<String>>([])

    /// Removes every registered file (they are this run's half-written outputs).
    static func removeAll() {
        let pending = paths.withLock { paths in
            defer { paths.removeAll() }
            return paths
        }
        for path in pending { unlink(path) }
        let pendingFolders = folders.withLock { folders in
            defer { folders.removeAll() }
            return folders
        }
        for folder in pendingFolders { try? FileManager.default.removeItem(atPath: folder) }
    }

    /// Called once by the executable. SIGQUIT gets its default action back: the Swift runtime
    /// takes it for its backtracer, prints "Program crashed" and lets the run go on, and a user's
    /// Ctrl-\ must stop it. The handlers and the thread that remove temporary files wait for the first
    /// one (`register`): starting a thread is a cost every short run (one address,
    /// `--help`) paid for files it never writes; with no file to remove, each signal's default
    /// action is already the right one.
    ///
    /// The four signals are unblocked too: a parent may start us with them blocked (Foundation's
    /// `Process` does, from its threads), and with their default action a blocked signal would
    /// wait forever rather than end the run.
    public static func removeOnSignals() {
        signal(SIGQUIT, SIG_DFL)
        var set = sigset_t()
        sigemptyset(&set)
        for signalNumber in [SIGINT, SIGTERM, SIGHUP, SIGQUIT] { sigaddset(&set, signalNumber) }
        pthread_sigmask(SIG_UNBLOCK, &set, nil)
    }

    /// SIGINT, SIGTERM, SIGHUP and SIGQUIT remove the temporary files, then end the process as the
    /// signal would have. Set up once, on first use.
    ///
    /// The handler only writes the signal's number to a pipe (`write` is async-signal-safe); a
    /// thread of our own, started here, reads it and does the cleanup, where it may lock and call
    /// Foundation. Why not a dispatch source: under load (the test suite's parallel processes on
    /// two cores) libdispatch once took the signal off its signalfd and never ran the handler, so
    /// the run neither cleaned up nor ended; a pipe and a waiting thread have no such step.
    private static let sourcesInstalled: Void = {
        var ends: [Int32] = [-1, -1]
        guard pipe(&ends) == 0 else { return }
        for end in ends { _ = fcntl(end, F_SETFD, FD_CLOEXEC) }
        signalPipe = ends[1]
        let reader = ends[0]
        let waiter = Thread {
            var number: UInt8 = 0
            while read(reader, &number, 1) != 1 {}
            removeAll()
            endAsSignal(Int32(number))
        }
        waiter.stackSize = 1 << 20
        waiter.start()
        for signalNumber in [SIGINT, SIGTERM, SIGHUP, SIGQUIT] {
            var action = sigaction()
            action.__sigaction_handler.sa_handler = { number in
                var byte = UInt8(truncatingIfNeeded: number)
                _ = write(TemporaryFiles.signalPipe, &byte, 1)
            }
            sigemptyset(&action.sa_mask)
            action.sa_flags = SA_RESTART
            sigaction(signalNumber, &action, nil)
        }
    }()

    /// The write end of the signal pipe (set once, before any handler that reads it is installed).
    nonisolated(unsafe) private static var signalPipe: Int32 = -1

    /// A reader closed the pipe we write to: remove the temporary files and end as `SIGPIPE` ends
    /// a program that does not catch it (quietly, status 128 + 13 in the shell).
    public static func endOnBrokenPipe() -> Never {
        removeAll()
        endAsSignal(SIGPIPE)
    }

    /// Ends the process as `signalNumber`'s default action would. libdispatch keeps the signals it
    /// watches blocked in its threads, so the signal is unblocked here first; should it still not
    /// end the process, the exit status is the shell's for it (128 + the signal's number).
    private static func endAsSignal(_ signalNumber: Int32) -> Never {
        signal(signalNumber, SIG_DFL)
        var set = sigset_t()
        sigemptyset(&set)
        sigaddset(&set, signalNumber)
        pthread_sigmask(SIG_UNBLOCK, &set, nil)
        raise(signalNumber)
        _exit(128 + signalNumber)
    }
}
