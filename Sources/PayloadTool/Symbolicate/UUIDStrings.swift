import PayloadDecode

/// One string per image UUID for the frames kept in a batch: the reader makes a new 36-character
/// string for every frame, and five of them per row were most of a kept stack's memory.
struct UUIDStrings {
    private var known: Set<String> = []
    /// The strings frames came with lately, by their storage, and the string kept for each. Each
    /// thread's reader gives a UUID as one string for many rows (`RowReader.FrameStrings`), so
    /// most frames come with one of a few storages, told apart here without reading them: hashing
    /// every frame's UUID into `known` was 7% of `top`'s CPU over a row file. Holding the string
    /// that came keeps its storage from being reused for another.
    private var recent: [(start: UnsafeRawPointer, count: Int, came: String, kept: String, keptStart: UnsafeRawPointer?)] = []
    private var nextReplaced = 0
    static let recentKept = 16

    /// `stack` with each frame's UUID replaced by the one string kept for it.
    mutating func sharing(_ stack: [StackFrame]) -> [StackFrame] {
        var shared = stack
        for index in stack.indices {
            guard let uuid = stack[index].uuid else { continue }
            guard let start = Self.storage(uuid) else {
                // A small string held inline: no storage to share.
                continue
            }
            let count = uuid.utf8.count
            if let seen = recent.firstIndex(where: { $0.start == start && $0.count == count }) {
                // The same storage as a string met before: its kept string, nothing hashed or read.
                if recent[seen].keptStart != start { shared[index].uuid = recent[seen].kept }
                continue
            }
            let kept: String
            if let found = known.firstIndex(of: uuid) {
                kept = known[found]
                if Self.storage(kept) != start { shared[index].uuid = kept }
            } else {
                if known.count < 65_536 { known.insert(uuid) }
                kept = uuid
            }
            remember(came: uuid, start: start, count: count, kept: kept)
        }
        return shared
    }

    private mutating func remember(came: String, start: UnsafeRawPointer, count: Int, kept: String) {
        let entry = (start: start, count: count, came: came, kept: kept, keptStart: Self.storage(kept))
        if recent.count < Self.recentKept {
            recent.append(entry)
        } else {
            recent[nextReplaced] = entry
            nextReplaced = (nextReplaced + 1) % Self.recentKept
        }
    }

    /// Where a string's bytes are stored; nil when it has no contiguous storage of its own (a
    /// small string held inline).
    private static func storage(_ string: String) -> UnsafeRawPointer? {
        string.utf8.withContiguousStorageIfAvailable { UnsafeRawPointer($0.baseAddress) } ?? nil
    }
}
