import Synchronization

/// A batch's addresses grouped by the first unit that covers each (`DebugImage.unitGroups`): the
/// units in order, each with its addresses ascending, and the addresses no unit covers.
struct UnitGroups: Sendable {
    /// The unit number of each group.
    var units: [Int] = []
    /// Each group's addresses, as positions in the batch.
    var members: [[Int]] = []
    var uncovered: [Int] = []
}

/// Which of a batch's unit groups each of two threads looks up: one takes them from the front,
/// the other from the back, until they meet, so each decodes units the other does not and
/// neither waits for the other at the end. A split made beforehand (by address, at the median)
/// left one thread 30-50 ms behind the other on `symbolicate` over 20,000 rows: what a unit costs
/// is its DIEs, not its number of addresses.
final class UnitClaims: Sendable {
    private let ends: Mutex<(front: Int, back: Int)>

    init(count: Int) { ends = Mutex((front: 0, back: count)) }

    /// The next group from the front, or from the back; nil when none is left.
    func next(fromBack: Bool) -> Int? {
        ends.withLock { ends in
            guard ends.front < ends.back else { return nil }
            if fromBack {
                ends.back -= 1
                return ends.back
            }
            ends.front += 1
            return ends.front - 1
        }
    }
}

extension DebugImage {
    /// The lookups of the groups `claims` gives this handle (from the back with `fromBack`), then
    /// of `uncovered` and of the addresses no unit answered; with their positions in `addresses`.
    func lookupClaimed(
        _ groups: UnitGroups, of addresses: [UInt64], claims: UnitClaims, fromBack: Bool, uncovered: ArraySlice<Int>
    ) -> (positions: [Int], lookups: [RawLookup]) {
        var positions: [Int] = []
        var lookups: [RawLookup] = []
        walkGroups(groups, of: addresses, uncovered: uncovered, next: { claims.next(fromBack: fromBack) }) { index, _, unit in
            guard let found = frames(in: unit, at: addresses[index]) else { return false }
            positions.append(index)
            lookups.append(found)
            return true
        } elsewhere: { index in
            positions.append(index)
            lookups.append(lookup(addresses[index]))
        }
        return (positions, lookups)
    }
}
