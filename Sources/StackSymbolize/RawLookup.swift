/// One frame as DWARF gives it, before demangling.
struct RawFrame: Sendable, Hashable {
    var linkageName: String?
    var plainName: String?
    var file: String?
    var line: Int?
    var isInlined: Bool
    /// The name's simplified form, when the answer comes from a symbol index (which stores it).
    var simplifiedName: String? = nil
}

/// What one address resolved to in one debug image.
struct RawLookup: Sendable {
    enum Source: Sendable { case dwarf, symbolTable, none }
    var source: Source
    var frames: [RawFrame]
    var functionStart: UInt64? = nil
}
