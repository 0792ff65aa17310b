import Foundation

/// An exclusive `flock(2)` on a lock file, held until `release()` (or the process ends: the kernel
/// drops it with the last descriptor, so a killed run never leaves a lock behind).
///
/// The lock file is created when missing and never removed: removing it would let a run that
/// opened the old file and one that created a new one each hold "the" lock at once.
public final class FileLock {
    /// Why the lock was not taken.
    public enum Failure: Error, Sendable, CustomStringConvertible {
        /// Another process held it for the whole wait.
        case timedOut(path: String, seconds: Double)
        /// The lock file could not be opened or created, or `flock` failed.
        case system(FileError)

        public var description: String {
            switch self {
            case .timedOut(let path, let seconds):
                return "\(path): another run held the lock for \(Self.seconds(seconds)) s; gave up waiting"
            case .system(let error): return error.description
            }
        }

        private static func seconds(_ value: Double) -> String {
            value == value.rounded() ? String(Int(value)) : String(value)
        }
    }

    public let path: String
    private var descriptor: Int32

    /// Takes the lock, waiting at most `wait` for another holder to let go.
    ///
    /// - Parameter mode: the permissions a new lock file gets (before the umask): those of the file it
    ///   guards, so everyone who may write that file may take its lock.
    public init(exclusive path: String, mode: mode_t, wait: Duration) throws(Failure) {
        self.path = path
        // Read-only is enough for flock: a lock file someone else made, not writable by us, still locks.
        var opened = SystemCall.valueOrErrno { open(path, O_RDWR | O_CREAT | O_CLOEXEC, mode) }
        if case .failure(let failure) = opened, failure.code == EACCES || failure.code == EROFS {
            if case .success(let readOnly) = SystemCall.valueOrErrno({ open(path, O_RDONLY | O_CLOEXEC) }) { opened = .success(readOnly) }
        }
        switch opened {
        case .success(let value): descriptor = value
        case .failure(let failure): throw .system(FileError(path: path, action: "cannot open the lock file", errno: failure))
        }
        // Polled rather than blocking: a blocking flock cannot be given up after a while without
        // a signal to interrupt it, and the caller's signals belong to its temporary-file cleanup.
        let clock = ContinuousClock()
        let deadline = clock.now.advanced(by: wait)
        var pause = Duration.milliseconds(2)
        while true {
            switch SystemCall.valueOrErrno({ flock(descriptor, LOCK_EX | LOCK_NB) }) {
            case .success: return
            case .failure(let failure) where failure.code == EWOULDBLOCK:
                guard clock.now < deadline else {
                    close(descriptor)
                    descriptor = -1
                    let (seconds, attoseconds) = wait.components
                    throw .timedOut(path: path, seconds: Double(seconds) + Double(attoseconds) / 1e18)
                }
                usleep(UInt32(pause.components.attoseconds / 1_000_000_000_000))
                pause = min(pause * 2, .milliseconds(50))
            case .failure(let failure):
                close(descriptor)
                descriptor = -1
                throw .system(FileError(path: path, action: "cannot lock", errno: failure))
            }
        }
    }

    /// Lets go of the lock (closing the descriptor does it; the file stays).
    public func release() {
        guard descriptor >= 0 else { return }
        close(descriptor)
        descriptor = -1
    }

    deinit { release() }
}
