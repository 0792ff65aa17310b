import PayloadDecode

/// `top --db URL`: the diagnostic rows stored in PostgreSQL.
enum TopDatabase {
    struct Unavailable: Error, CustomStringConvertible {
        var description: String { "reading rows from PostgreSQL is not built yet (RowStore has not landed)" }
    }

    /// The diagnostic rows of the chosen build (every build without `--build`), and only the
    /// user's with `--user`, in the order they were stored.
    static func diagnosticRows(url: String, options: TopOptions) throws -> [Row] {
        // Wired to RowStore's `RowDatabase.rows(kind:build:userID:)` when it lands.
        throw Unavailable()
    }
}
