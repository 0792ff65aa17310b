import Foundation
import Synchronization

/// Work started on a second thread and joined once: this module's one way to fork and join.
/// The batch and index builders split work in two halves, each with its own libdw handle (libdw's
/// lazy caches are unsynchronized, so a handle never serves two threads).
public final class SecondThread<Result>: Sendable {
    /// The work until the worker starts it, then nothing: the worker drops the closure before
    /// `join()` returns, so a caller may hand in a closure made with `withoutActuallyEscaping`.
    private let pending: Mutex<(() -> Result)?>
    /// The worker's result, put there once by the worker and taken once by `join()`.
    private let result = Mutex<Result?>(nil)
    private let finished = DispatchSemaphore(value: 0)

    /// Starts `work` on a new thread with an 8 MB stack (demangling and DIE walks of deep code
    /// need more than a secondary thread's default).
    public init(_ work: sending @escaping () -> sending Result) {
        pending = Mutex(work)
        let thread = Thread { [self] in
            // In a scope of its own, so the closure is released before `finished` is signalled.
            do {
                guard let work = pending.withLock({ $0.take() }) else { preconditionFailure("SecondThread started twice") }
                // The work runs inside the lock so its result goes straight into the slot; nobody
                // else takes the lock before `finished` is signalled.
                result.withLock { $0 = work() }
            }
            finished.signal()
        }
        thread.stackSize = 8 << 20
        thread.start()
    }

    /// Waits for the worker and takes its result (call once).
    public func join() -> sending Result {
        finished.wait()
        return result.withLock { slot -> sending Result in
            guard let value = slot.take() else { preconditionFailure("SecondThread joined twice") }
            return value
        }
    }
}

extension SecondThread {
    /// `transform` over `0..<count` as two halves at once, the second on a second thread, the
    /// results in order; on the calling thread alone below `minimum` or on one core.
    public static func mapInHalves<Element: Sendable>(
        _ count: Int, minimum: Int, _ transform: @escaping @Sendable (Range<Int>) -> [Element]
    ) -> [Element] {
        guard count >= minimum, count >= 2, ProcessInfo.processInfo.activeProcessorCount > 1 else { return transform(0..<count) }
        let middle = count / 2
        let secondHalf = SecondThread<[Element]> { transform(middle..<count) }
        var result = transform(0..<middle)
        result.append(contentsOf: secondHalf.join())
        return result
    }
}

extension SecondThread where Result == Void {
    /// Frees `value` on a thread of its own, not joined: the caller goes on while a large
    /// structure's objects are released one by one, work with no result for anyone.
    public static func release<Value>(_ value: sending Value) {
        // The closure, and with it `value`, is released on the worker when its work ends.
        _ = SecondThread { withExtendedLifetime(value) {} }
    }

    /// Runs `body` on `count` threads at once (the calling thread is one of them) and returns when
    /// every one has finished: fork and join for workers that share their work through a lock.
    public static func onThreads(_ count: Int, _ body: @escaping @Sendable () -> Void) {
        let others = (1..<Swift.max(count, 1)).map { _ in SecondThread { body() } }
        body()
        for other in others { other.join() }
    }
}
