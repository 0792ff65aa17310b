/// The keys `CountedRows` has seen: the keys themselves, (user, 128 bits), in the order they came,
/// and an open-addressing index over them, probed linearly, whose slots hold 32 bits of a key's
/// hash and its place. A `Set` of the same keys took 0.41 s per million inserts against 0.15 s for a
/// table of whole keys (a loop of random keys, docs/speed.md): its generic hashing and probing per
/// row were 13% of `report`'s reading thread over a million rows. Slots of whole keys (24 bytes)
/// then made the table 48 MB at a million rows; slots of 8 bytes keep it at 16 MB (`report`'s peak
/// 10 MB lower). Its one load of a slot still misses the cache at that size, 5% of `report`'s CPU
/// samples (perf, docs/speed.md).
final class RowKeyTable {
    private struct Key {
        var user: UInt64
        var high: UInt64
        var low: UInt64
    }

    /// Every key, in the order inserted; a slot's place indexes it.
    private var keys: [Key] = []
    /// A slot: 32 bits of the key's hash (above) and its place in `keys` plus one (below), 0 when
    /// empty. A key is read from `keys` only when the hash bits match: at a duplicate, nearly never
    /// otherwise. Places are 32 bits: four billion rows would need 100 GB of keys first.
    private var slots: UnsafeMutablePointer<UInt64>
    private var capacity: Int
    var count: Int { keys.count }
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
        keys = other.keys
        seeds = other.seeds
        slots = .allocate(capacity: capacity)
        slots.initialize(from: other.slots, count: capacity)
    }

    deinit { slots.deallocate() }

    /// Adds the key; false when it was there already.
    func insert(user: Int, high: UInt64, low: UInt64) -> Bool {
        // At most three quarters full, so probe runs stay short.
        if (keys.count + 1) * 4 > capacity * 3 { grow() }
        let key = Key(user: UInt64(truncatingIfNeeded: user), high: high, low: low)
        let hash = hash(of: key)
        let hashBits = hash << 32
        let mask = capacity - 1
        var index = Int(truncatingIfNeeded: hash >> 32) & mask
        while true {
            let slot = slots[index]
            if slot == 0 {
                keys.append(key)
                slots[index] = hashBits | UInt64(keys.count)
                return true
            }
            if slot & 0xFFFF_FFFF_0000_0000 == hashBits {
                let other = keys[Int(truncatingIfNeeded: slot & 0xFFFF_FFFF) - 1]
                if other.user == key.user, other.high == key.high, other.low == key.low { return false }
            }
            index = (index + 1) & mask
        }
    }

    /// The slot is picked by the hash's high 32 bits (the low bits of a product mix least); its
    /// low 32 bits are what the slot keeps.
    @inline(__always) private func hash(of key: Key) -> UInt64 {
        key.high &* seeds.0 &+ key.low &* seeds.1 &+ key.user &* seeds.2
    }

    /// Twice the slots, filled again from `keys` in order (read straight through, not slot by slot).
    private func grow() {
        slots.deallocate()
        capacity *= 2
        slots = Self.emptySlots(capacity)
        let mask = capacity - 1
        for (place, key) in keys.enumerated() {
            let hash = hash(of: key)
            var index = Int(truncatingIfNeeded: hash >> 32) & mask
            while slots[index] != 0 { index = (index + 1) & mask }
            slots[index] = hash << 32 | UInt64(place + 1)
        }
    }

    private static func emptySlots(_ capacity: Int) -> UnsafeMutablePointer<UInt64> {
        let slots = UnsafeMutablePointer<UInt64>.allocate(capacity: capacity)
        slots.initialize(repeating: 0, count: capacity)
        return slots
    }
}
