import PayloadDecode

/// One string per image UUID for the frames kept in a batch: the reader makes a new 36-character
/// string for every frame, and five of them per row were most of a kept stack's memory.
struct UUIDStrings {
    private var known: Set<String> = []

    /// `stack` with each frame's UUID replaced by the one string kept for it.
    mutating func sharing(_ stack: [StackFrame]) -> [StackFrame] {
        var shared = stack
        // The frames of a row mostly name the UUID of the frame before, in the same string (the
        // reader shares it): that one is compared at once, not hashed again.
        var last: (given: String, kept: String)?
        for index in shared.indices {
            guard let uuid = shared[index].uuid else { continue }
            if let last, last.given == uuid {
                shared[index].uuid = last.kept
                continue
            }
            if let kept = known.firstIndex(of: uuid) {
                shared[index].uuid = known[kept]
            } else if known.count < 65_536 {
                known.insert(uuid)
            }
            last = (uuid, shared[index].uuid!)
        }
        return shared
    }
}
