/// A symbol-table entry of a function. The name stays in the file: `nameOffset` is where its
/// NUL-terminated bytes start in the file's bytes, so loading 400,000 symbols makes no strings.
struct SymbolEntry: Sendable {
    var address: UInt64
    var size: UInt64
    var nameOffset: Int
}
