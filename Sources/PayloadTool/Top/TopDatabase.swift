import PayloadDecode
import RowStore

/// `top --db URL`: the diagnostic rows stored in PostgreSQL.
enum TopDatabase {
    /// Hands `body` the diagnostic rows of the chosen build (every build without `--build`), and
    /// only the user's with `--user`, in the order they were stored, a cursor's fetch at a time.
    /// A row that breaks the table's rules (a table without the checks, a row planted past them)
    /// goes to `skipped` instead, as a row file's bad line is reported and passed over.
    ///
    /// - Throws: `RowStoreError` (its message names the server with the password redacted).
    /// - Returns: the builds that have any row (of any kind).
    static func forEachDiagnosticRow(
        url: String, options: TopOptions, skipped: (SkippedRow) -> Void, _ body: (Row) -> Void
    ) throws -> [Int] {
        let database = try RowDatabase(url: url)
        try database.forEachRow(kind: .diagnostic, build: options.build, userID: options.userID, skipped: { skipped($0) }) { body($0) }
        return try database.builds(userID: options.userID)
    }
}
