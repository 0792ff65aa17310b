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
}
