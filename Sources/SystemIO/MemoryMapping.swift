import Foundation

/// Files mapped into memory, read-only, and the SIGBUS a read of a mapped page past the file's end
/// raises (a file truncated under the mapping).
public enum MemoryMapping {
    /// The size of a memory page (`sysconf(_SC_PAGESIZE)`; -1 should the system not say).
    public static var pageSize: Int { sysconf(Int32(_SC_PAGESIZE)) }

    /// Maps the first `count` bytes of the open file `descriptor` read-only and private (`mmap`,
    /// one try), or the `errno`. The mapping stays when the descriptor is closed.
    public static func mapReadOnly(_ descriptor: Int32, count: Int) -> Result<UnsafeRawPointer, SystemErrno> {
        SystemCall.nonNilValueOrErrno(retryOnInterrupt: false) { () -> UnsafeRawPointer? in
            let mapped = mmap(nil, count, PROT_READ, MAP_PRIVATE, descriptor, 0)
            return mapped == MAP_FAILED ? nil : UnsafeRawPointer(mapped)
        }
    }

    /// Unmaps a mapping `mapReadOnly` made (an empty one has nothing to unmap).
    public static func unmap(_ mapping: UnsafeRawBufferPointer) {
        guard let base = mapping.baseAddress else { return }
        munmap(UnsafeMutableRawPointer(mutating: base), mapping.count)
    }

    /// `madvise(MADV_DONTNEED)` over the whole pages of a read-only file mapping: they leave this
    /// process's resident set and fault back from the page cache when read again. A failure only
    /// means the pages stay, so it is not reported.
    public static func dropResidentPages(_ mapping: UnsafeRawBufferPointer) {
        guard let base = mapping.baseAddress, mapping.count > 0 else { return }
        let page = UInt(pageSize)
        let start = UInt(bitPattern: base) & ~(page - 1)
        let end = UInt(bitPattern: base) + UInt(mapping.count)
        _ = madvise(UnsafeMutableRawPointer(bitPattern: start), Int(end - start), MADV_DONTNEED)
    }

    /// Maps a page of zeros over the page at `address` (`size` bytes, page-aligned) of a mapping:
    /// a read there then reads zeros instead of faulting again. Whether it did. Safe inside a
    /// signal handler (one `mmap`, nothing allocated).
    public static func replaceWithZeros(at address: UInt, size: UInt) -> Bool {
        let replaced = mmap(UnsafeMutableRawPointer(bitPattern: address), Int(size), PROT_READ, MAP_PRIVATE | MAP_ANONYMOUS | MAP_FIXED, -1, 0)
        return replaced != MAP_FAILED
    }

    /// Makes `handler` the SIGBUS handler, called with the faulting address. It runs inside the
    /// signal: no locks, no allocation. When it returns the faulting read is made again, so it
    /// either mends the page (`replaceWithZeros`) or calls `restoreDefaultBusErrorAction()`, and
    /// the read then raises SIGBUS once more, which ends the process as it would have.
    /// `SA_NODEFER`: a second fault while the handler runs is handled too.
    public static func handleBusErrors(_ handler: @convention(c) (UInt) -> Void) {
        busErrorHandler = handler
        var action = sigaction()
        action.__sigaction_handler.sa_sigaction = { _, info, _ in
            MemoryMapping.busErrorHandler?(UInt(bitPattern: info?.pointee._sifields._sigfault.si_addr))
        }
        action.sa_flags = SA_SIGINFO | Int32(SA_NODEFER)
        sigemptyset(&action.sa_mask)
        sigaction(SIGBUS, &action, nil)
    }

    /// SIGBUS's default action back (it ends the process). Safe inside a signal handler.
    public static func restoreDefaultBusErrorAction() {
        signal(SIGBUS, SIG_DFL)
    }

    /// The handler `handleBusErrors` installed. Safe without a lock: written before `sigaction`
    /// makes the signal handler that reads it (so its one-time initialisation has run by then),
    /// and a function pointer is read whole.
    nonisolated(unsafe) private static var busErrorHandler: (@convention(c) (UInt) -> Void)?
}
