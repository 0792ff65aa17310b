/// One frame as DWARF gives it, before demangling.
struct RawFrame: Sendable, Hashable {
    var linkageName: String?
    var plainName: String?
    var file: String?
    var line: Int?
    var isInlined: Bool
    /// The name's simplified form, when it is known already (a symbol index stores it).
    var simplifiedName: String? = nil
}

/// What one address resolved to in one debug image.
struct RawLookup: Sendable {
    enum Source: Sendable { case dwarf, symbolTable, none }
    var source: Source
    var frames: [RawFrame]
    var functionStart: UInt64? = nil
}

/// Where one frame's name and file come from, as numbers: `DebugImage` turns places into
/// `RawFrame`s, and a batch for text output (`BuildSymbolizer.lookupForText`) into bytes it keeps
/// once per name and per file, with no strings copied per frame.
struct FramePlace {
    enum Name {
        /// The symbol table's name of the symbol.
        case symbol(SymbolEntry)
        /// The names of the function or inlined call whose DIE is at this offset.
        case function(UInt64, isInlined: Bool)
        /// No name (`??`).
        case none
    }

    enum File {
        case none
        /// An index into the unit's `lineFileNames`.
        case line(Int)
        /// An index into the unit's `callFileNames`.
        case call(Int)
    }

    var name: Name
    var file: File
    var line: Int?
    var isInlined: Bool
}
