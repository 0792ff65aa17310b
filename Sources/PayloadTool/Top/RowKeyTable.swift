/// The keys `CountedRows` has seen: an open-addressing table of (user, 128 bits) in one block of
/// memory, probed linearly. A `Set` of the same keys took 0.41 s per million inserts against this
/// table's 0.15 s (a loop of random keys, docs/speed.md): its generic hashing and probing per row
/// were 13% of `report`'s reading thread over a million rows.
final class RowKeyTable {
    /// A slot: `tag` is the user's number plus one, 0 for an empty slot.
    private struct Slot {
        var tag: UInt64
        var high: UInt64
        var low: UInt64
    }

    private var slots: UnsafeMutablePointer<Slot>
    private var capacity: Int
    private(set) var count = 0
    /// Odd multipliers drawn per process, so which keys share a probe run cannot be chosen by the
    /// one who writes the row keys (as `Set`'s per-process hash seed does).
    private let seeds: (UInt64, UInt64, UInt64)

    init(capacity: Int = 1024) {
        self.capacity = capacity
        slots = Self.emptySlots(capacity)
        var random = SystemRandomNumberGenerator()
        seeds = (random.next() | 1, random.next() | 1, random.next() | 1)
    }

    /// A copy with the same keys (`CountedRows` is a value: a copy changed later keeps its own).
    init(copying other: RowKeyTable) {
        capacity = other.capacity
        count = other.count
        seeds = other.seeds
        slots = .allocate(capacity: capacity)
        slots.initialize(from: other.slots, count: capacity)
    }

    deinit { slots.deallocate() }

    /// Adds the key; false when it was there already.
    func insert(user: Int, high: UInt64, low: UInt64) -> Bool {
        // At most three quarters full, so probe runs stay short.
        if (count + 1) * 4 > capacity * 3 { grow() }
        let tag = UInt64(truncatingIfNeeded: user) &+ 1
        let mask = capacity - 1
        var index = slot(tag, high, low, mask: mask)
        while true {
            let slot = slots[index]
            if slot.tag == 0 {
                slots[index] = Slot(tag: tag, high: high, low: low)
                count += 1
                return true
            }
            if slot.tag == tag, slot.high == high, slot.low == low { return false }
            index = (index + 1) & mask
        }
    }

    @inline(__always) private func slot(_ tag: UInt64, _ high: UInt64, _ low: UInt64, mask: Int) -> Int {
        // Multiply-add, keeping high bits (the low bits of a product mix least).
        Int(truncatingIfNeeded: (high &* seeds.0 &+ low &* seeds.1 &+ tag &* seeds.2) >> 24) & mask
    }

    private func grow() {
        let (old, oldCapacity) = (slots, capacity)
        capacity *= 2
        slots = Self.emptySlots(capacity)
        let mask = capacity - 1
        for position in 0..<oldCapacity where old[position].tag != 0 {
            let moved = old[position]
            var index = slot(moved.tag, moved.high, moved.low, mask: mask)
            while slots[index].tag != 0 { index = (index + 1) & mask }
            slots[index] = moved
        }
        old.deallocate()
    }

    private static func emptySlots(_ capacity: Int) -> UnsafeMutablePointer<Slot> {
        let slots = UnsafeMutablePointer<Slot>.allocate(capacity: capacity)
        slots.initialize(repeating: Slot(tag: 0, high: 0, low: 0), count: capacity)
        return slots
    }
}
