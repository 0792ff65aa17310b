import Dispatch
import Foundation

/// Temporary files of this process (an `--output` file being written), removed when the run is
/// interrupted by SIGINT, SIGTERM, SIGHUP or SIGQUIT, and before a broken pipe ends it.
///
/// The signals are taken by dispatch sources (not a handler run inside the interrupted thread), so
/// the cleanup may lock and call Foundation; then the signal's default action is restored and the
/// signal raised again, so the exit status says what ended the run, as the shell expects.
public enum TemporaryFiles {
    private static let lock = NSLock()
    // Safe: both are read and written only while `lock` is held (register, unregister, the signal
    // sources' cleanup), which the compiler cannot see.
    nonisolated(unsafe) private static var paths: Set<String> = []
    nonisolated(unsafe) private static var sources: [DispatchSourceSignal] = []

    static func register(_ path: String) {
        lock.lock()
        paths.insert(path)
        lock.unlock()
    }

    static func unregister(_ path: String) {
        lock.lock()
        paths.remove(path)
        lock.unlock()
    }

    /// Removes every registered file (they are this run's half-written outputs).
    static func removeAll() {
        lock.lock()
        let pending = paths
        paths.removeAll()
        lock.unlock()
        for path in pending { unlink(path) }
    }

    /// Called once by the executable: SIGINT, SIGTERM, SIGHUP and SIGQUIT remove the temporary
    /// files, then end the process as the signal would have. (The Swift runtime takes SIGQUIT for
    /// its backtracer, prints "Program crashed" and lets the run go on: a user's Ctrl-\ must stop it.)
    public static func removeOnSignals() {
        for signalNumber in [SIGINT, SIGTERM, SIGHUP, SIGQUIT] {
            signal(signalNumber, SIG_IGN)
            let source = DispatchSource.makeSignalSource(signal: signalNumber, queue: .global())
            source.setEventHandler {
                removeAll()
                endAsSignal(signalNumber)
            }
            source.resume()
            sources.append(source)
        }
    }

    /// A reader closed the pipe we write to: remove the temporary files and end as `SIGPIPE` ends
    /// a program that does not catch it (quietly, status 128 + 13 in the shell).
    static func endOnBrokenPipe() -> Never {
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
