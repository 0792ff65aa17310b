import SystemIO

/// An error while reading a debug file, a symbol index or a folder of them. Descriptions are
/// lowercase fragments naming the file (`<path>: <message>`), so a command can put `error: ` in
/// front; their texts are part of the tool's output and stay as they are.
public enum SymbolizeError: Error, CustomStringConvertible, Sendable, Hashable {
    /// A system call on the file failed: `action` says what was tried (`cannot open`), `errno` why.
    case systemCall(path: String, action: String, errno: SystemErrno)
    /// The file or folder cannot be used as asked: missing, not a regular file, too deep to
    /// search, or a symbol index that cannot be written there.
    case fileSystem(path: String, String)
    /// Not a file this package reads: neither Mach-O nor ELF, a big-endian slice, no UUID to match
    /// it by, a symbol index of another version.
    case unsupported(path: String, String)
    /// A file of a known kind whose bytes contradict themselves: a table past the end of the file,
    /// DWARF libdw cannot walk, a symbol index with a bad checksum.
    case corrupt(path: String, String)
    /// libelf or libdw refused the file; the text ends with elfutils' own message.
    case elfutilsRefused(path: String, String)
    /// The file changed while it was read (truncated or replaced), or since it was catalogued:
    /// `missingSlice` is then the byte offset of the slice that is no longer there.
    case changedWhileRead(path: String, missingSlice: Int? = nil)
    /// A value the caller gave cannot be used: a build name that is a path, a text that is not a
    /// UUID, a UUID or slice the file does not have.
    case badArgument(path: String, String)
    /// A symbol index could not be written (a full disk, a folder that turned read-only): the debug
    /// file is fine and answers directly.
    case indexNotWritten(path: String, String)

    /// The file, folder or value the error is about.
    public var path: String {
        switch self {
        case .systemCall(let path, _, _), .fileSystem(let path, _), .unsupported(let path, _), .corrupt(let path, _),
            .elfutilsRefused(let path, _), .changedWhileRead(let path, _), .badArgument(let path, _), .indexNotWritten(let path, _):
            return path
        }
    }

    /// What went wrong, without the path.
    public var message: String {
        switch self {
        case .systemCall(_, let action, let errno):
            return "\(action): \(errno.text)"
        case .fileSystem(_, let text), .unsupported(_, let text), .corrupt(_, let text), .elfutilsRefused(_, let text),
            .badArgument(_, let text), .indexNotWritten(_, let text):
            return text
        case .changedWhileRead(_, let missingSlice?):
            return "the slice at byte \(missingSlice) is gone; the file changed"
        case .changedWhileRead(_, nil):
            return "the file changed while it was read (truncated or replaced); its answers are not used"
        }
    }

    public var description: String { "\(path): \(message)" }
}
