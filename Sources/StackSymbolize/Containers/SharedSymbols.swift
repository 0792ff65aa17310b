import Synchronization

/// A symbol table loaded once by whichever thread asks first.
final class SharedSymbols: Sendable {
    private let loaded = Mutex<[SymbolEntry]?>(nil)

    /// Whether some thread has loaded the table.
    var isLoaded: Bool { loaded.withLock { $0 != nil } }

    /// The table, loaded by `load` on first use; a second thread asking meanwhile waits for it.
    func table(_ load: () -> [SymbolEntry]) -> [SymbolEntry] {
        loaded.withLock { loaded in
            if let loaded { return loaded }
            let table = load()
            loaded = table
            return table
        }
    }
}
