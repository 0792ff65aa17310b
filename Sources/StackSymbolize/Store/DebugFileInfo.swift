/// A debug file (one ELF file or one Mach-O slice) found for a build.
public struct DebugFileInfo: Sendable, Hashable, Codable {
    public enum Kind: String, Sendable, Codable {
        /// A thin Mach-O file (a dSYM's DWARF file or a binary).
        case machO = "mach-o"
        /// One slice of a fat (universal) Mach-O file.
        case fatSlice = "mach-o-fat-slice"
        case elf
    }

    public var path: String
    /// Canonical UUIDs the file answers to: one for Mach-O; for ELF the build-id form and the
    /// byte-swapped Breakpad/Sentry form.
    public var uuids: [String]
    /// `arm64`, `x86_64`, ... (Mach-O CPU type, or the ELF machine).
    public var arch: String
    public var kind: Kind
    /// Where the slice starts in the file (0 unless `kind` is `fatSlice`).
    public var sliceOffset: Int
    /// Whether the slice has DWARF (file and line, inlined frames): a dSYM's DWARF file does, a
    /// stripped app binary or a system library does not (it answers from its symbol table only).
    /// Of two files with one UUID, the one with DWARF always answers (docs/symbolication.md, "The store").
    public var hasDebugInfo: Bool

    public init(path: String, uuids: [String], arch: String, kind: Kind, sliceOffset: Int, hasDebugInfo: Bool) {
        self.path = path
        self.uuids = uuids
        self.arch = arch
        self.kind = kind
        self.sliceOffset = sliceOffset
        self.hasDebugInfo = hasDebugInfo
    }
}
