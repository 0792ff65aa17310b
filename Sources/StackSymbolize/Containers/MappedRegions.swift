import Foundation
import SystemIO

/// Memory-mapped debug and index files that may shrink while they are read.
///
/// A mapped file that is truncated under us (a dSYM replaced with `cp`, an index cut short) makes
/// the next read of a page past its new end raise SIGBUS, which ends the process. Every mapping of
/// a file is registered here; a SIGBUS inside one of them maps a page of zeros over the faulting
/// page (so the read goes on, reading zeros) and marks the mapping damaged. Whoever reads the file
/// checks `isDamaged` (and the file's identity, `FileIdentity`) after its reads and reports the
/// file as changed instead of trusting what it read. A SIGBUS anywhere else keeps its default
/// action.
///
/// The signal handler touches only memory allocated once here (no locks, no allocation).
enum MappedRegions {
    static let capacity = 1_024
    // Why the `nonisolated(unsafe)` below are safe:
    // - `starts`, `ends` and `damage` are pointers set once (Swift runs a static's initializer
    //   once, under its own lock) and never changed. The slots they point to are written only
    //   under `lock` (`register`, `unregister`) or by the SIGBUS handler (`damage` alone). Reads
    //   without the lock (the handler, `isDamaged`) read whole aligned words, so they see a slot
    //   either before or after a write; a mapping is read only after `register` returned its
    //   slot, so the handler never misses a mapping being read.
    // - `pageSize` and `handlerInstalled` are read and written only under `lock`; the handler
    //   reads `pageSize` too, but only after `installHandler` wrote it and then installed the handler.

    /// Per slot: start and end address of a registered mapping (0 when free), and the damage mark.
    nonisolated(unsafe) private static let starts: UnsafeMutablePointer<UInt> = zeroedSlots()
    nonisolated(unsafe) private static let ends: UnsafeMutablePointer<UInt> = zeroedSlots()
    nonisolated(unsafe) private static let damage: UnsafeMutablePointer<UInt8> = zeroedSlots()
    nonisolated(unsafe) private static var pageSize: UInt = 4_096
    private static let lock = NSLock()
    nonisolated(unsafe) private static var handlerInstalled = false

    /// A table of `capacity` zeros, allocated once and never freed (the handler may read it at
    /// any time).
    private static func zeroedSlots<Slot: FixedWidthInteger>() -> UnsafeMutablePointer<Slot> {
        let pointer = UnsafeMutablePointer<Slot>.allocate(capacity: capacity)
        pointer.initialize(repeating: 0, count: capacity)
        return pointer
    }

    /// Registers a mapping; returns its slot, or nil when every slot is taken (the mapping is then
    /// read unguarded, as before).
    static func register(_ base: UnsafeRawPointer, count: Int) -> Int? {
        guard count > 0 else { return nil }
        lock.lock()
        defer { lock.unlock() }
        installHandler()
        for slot in 0..<capacity where starts[slot] == 0 {
            damage[slot] = 0
            ends[slot] = UInt(bitPattern: base) + UInt(count)
            starts[slot] = UInt(bitPattern: base)
            return slot
        }
        return nil
    }

    static func unregister(_ slot: Int?) {
        guard let slot else { return }
        lock.lock()
        starts[slot] = 0
        ends[slot] = 0
        lock.unlock()
    }

    /// True once a read of the mapping in `slot` faulted past the file's end.
    static func isDamaged(_ slot: Int?) -> Bool {
        guard let slot else { return false }
        return damage[slot] != 0
    }

    /// Called with the lock held.
    private static func installHandler() {
        guard !handlerInstalled else { return }
        handlerInstalled = true
        let size = MemoryMapping.pageSize
        if size > 0 { pageSize = UInt(size) }
        // Touch the tables so their one-time initialisation never runs inside the handler.
        _ = (starts, ends, damage)
        MemoryMapping.handleBusErrors { address in MappedRegions.busError(at: address) }
    }

    /// The SIGBUS handler's work: a fault inside a registered mapping gets a page of zeros and a
    /// damage mark; any other fault restores the default action, so returning re-raises it.
    private static func busError(at address: UInt) {
        for slot in 0..<capacity {
            let start = starts[slot]
            if start != 0, address >= start, address < ends[slot] {
                damage[slot] = 1
                if MemoryMapping.replaceWithZeros(at: address & ~(pageSize - 1), size: pageSize) { return }
            }
        }
        MemoryMapping.restoreDefaultBusErrorAction()
    }
}
