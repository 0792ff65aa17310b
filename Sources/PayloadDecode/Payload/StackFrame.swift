/// One normalized frame of a diagnostic's stack (docs/design.md, "Stacks"): what the `stack` column holds.
///
/// `offset` is always the offset into the image's `__TEXT` segment, after the iOS 14/15
/// load-address quirk has been undone.
public struct StackFrame: Sendable, Hashable, Codable {
    /// Binary name reduced to letters, digits and `_.+-`; `nil` when the payload had none.
    public var image: String?
    /// Canonical upper-case 8-4-4-4-12 UUID of the image; `nil` when absent or unreadable.
    public var uuid: String?
    /// Offset of the frame's address into the image's text segment.
    public var offset: UInt64

    public init(image: String?, uuid: String?, offset: UInt64) {
        self.image = image
        self.uuid = uuid
        self.offset = offset
    }
}

/// A stack as a dictionary key: hashed by its frames' offsets alone, compared by every field.
/// Stacks that differ only in their images' names and UUIDs are rare, while hashing those two
/// strings for every frame of every row was 6% of `symbolicate` over rows.
public struct StackKey: Hashable, Sendable {
    public let frames: [StackFrame]

    public init(_ frames: [StackFrame]) {
        self.frames = frames
    }

    public func hash(into hasher: inout Hasher) {
        hasher.combine(frames.count)
        for frame in frames { hasher.combine(frame.offset) }
    }

    public static func == (lhs: StackKey, rhs: StackKey) -> Bool { lhs.frames == rhs.frames }
}
