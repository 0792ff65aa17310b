import PayloadDecode

/// One string per image UUID for the frames kept in a batch: the reader makes a new 36-character
/// string for every frame, and five of them per row were most of a kept stack's memory.
struct UUIDStrings {
    private var known: Set<String> = []
    /// The string kept for the UUID met last: the reader gives the frames of a block of rows one
    /// string per UUID, so most frames hold this very string already.
    private var lastKept: String?

    /// `stack` with each frame's UUID replaced by the one string kept for it.
    mutating func sharing(_ stack: [StackFrame]) -> [StackFrame] {
        var shared = stack
        for index in stack.indices {
            guard let uuid = stack[index].uuid else { continue }
            // The same storage is the kept string itself: nothing to compare, hash or replace, and
            // the stack is not copied (comparing, hashing and copying were a twelfth of reading the
            // rows of `symbolicate`).
            if let lastKept, Self.sameStorage(uuid, lastKept) { continue }
            let kept: String
            if let lastKept, lastKept == uuid {
                kept = lastKept
            } else if let found = known.firstIndex(of: uuid) {
                kept = known[found]
            } else {
                if known.count < 65_536 { known.insert(uuid) }
                kept = uuid
            }
            if !Self.sameStorage(uuid, kept) { shared[index].uuid = kept }
            lastKept = kept
        }
        return shared
    }

    /// Whether two strings are one buffer (so equal without reading them); false when either has
    /// no contiguous storage of its own (a small string held inline).
    private static func sameStorage(_ left: String, _ right: String) -> Bool {
        guard let leftStart = left.utf8.withContiguousStorageIfAvailable({ $0.baseAddress }) ?? nil,
            let rightStart = right.utf8.withContiguousStorageIfAvailable({ $0.baseAddress }) ?? nil
        else { return false }
        return leftStart == rightStart && left.utf8.count == right.utf8.count
    }
}
