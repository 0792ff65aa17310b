/// What identifies a stack across occurrences (docs/design.md, "Signatures"): the simplified names of its top
/// five app frames after inline expansion, innermost first. Lines and offsets are left out, so
/// the same function reached at different lines groups together.
public struct StackSignature: Sendable, Hashable, Comparable {
    /// How many frames a signature names.
    public static let frameLimit = 5
    /// Put before the names of a stack that has no app frame at all.
    public static let systemMarker = "(system)"
    /// The text of a diagnostic row that carries no stack.
    public static let noStackText = "(no stack)"

    /// The named frames, innermost first: at most `frameLimit`, all of them app frames unless
    /// `isSystem`.
    public let frames: [ExpandedFrame]
    /// True when the stack had no app frame and the signature names its top frames of any image.
    public let isSystem: Bool
    /// `YuiLines.parse <- ChatStore.apply <- ThreadView.body`, or
    /// `(system) libsystem_kernel.dylib+0x1a2c <- ...`, or `(no stack)`.
    public let text: String

    public init(frames: [ExpandedFrame], isSystem: Bool) {
        self.frames = frames
        self.isSystem = isSystem
        if frames.isEmpty {
            text = Self.noStackText
        } else {
            let names = frames.map(\.name).joined(separator: " <- ")
            text = isSystem ? "\(Self.systemMarker) \(names)" : names
        }
    }

    /// Picks the frames of `stack` that make its signature.
    public init(of stack: ExpandedStack) {
        let appFrames = stack.frames.filter(\.isApp)
        if appFrames.isEmpty {
            self.init(frames: Array(stack.frames.prefix(Self.frameLimit)), isSystem: !stack.frames.isEmpty)
        } else {
            self.init(frames: Array(appFrames.prefix(Self.frameLimit)), isSystem: false)
        }
    }

    /// Signatures are equal when their text is: two occurrences at different lines are one signature.
    public static func == (lhs: StackSignature, rhs: StackSignature) -> Bool { lhs.text == rhs.text }
    public func hash(into hasher: inout Hasher) { hasher.combine(text) }
    public static func < (lhs: StackSignature, rhs: StackSignature) -> Bool { lhs.text < rhs.text }
}
