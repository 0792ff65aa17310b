import Foundation
import Synchronization

/// Work started on a second thread and joined once: this module's one way to fork and join.
/// The batch and index builders split work in two halves, each with its own libdw handle (libdw's
/// lazy caches are unsynchronized, so a handle never serves two threads).
final class SecondThread<Result>: Sendable {
    /// The worker's result, put there once by the worker and taken once by `join()`.
    private let result = Mutex<Result?>(nil)
    private let finished = DispatchSemaphore(value: 0)

    /// Starts `work` on a new thread with an 8 MB stack (demangling and DIE walks of deep code
    /// need more than a secondary thread's default).
    init(_ work: sending @escaping () -> sending Result) {
        // Safe: `work` was passed `sending`, so the caller kept no reference to it or to anything
        // it captured; the new thread is its only user.
        nonisolated(unsafe) let work = work
        let thread = Thread { [self] in
            // The work runs inside the lock so its result goes straight into the slot; nobody
            // else takes the lock before `finished` is signalled.
            result.withLock { $0 = work() }
            finished.signal()
        }
        thread.stackSize = 8 << 20
        thread.start()
    }

    /// Waits for the worker and takes its result (call once).
    func join() -> sending Result {
        finished.wait()
        return result.withLock { slot -> sending Result in
            guard let value = slot.take() else { preconditionFailure("SecondThread joined twice") }
            return value
        }
    }
}
