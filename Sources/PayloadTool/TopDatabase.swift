import PayloadDecode
import RowStore

/// `top --db URL`: the diagnostic rows stored in PostgreSQL.
enum TopDatabase {
    /// Hands `body` the diagnostic rows of the chosen build (every build without `--build`), and
    /// only the user's with `--user`, in the order they were stored, a cursor's fetch at a time.
    ///
    /// - Throws: `RowStoreError` (its message names the server with the password redacted).
    /// - Returns: the builds that have any row (of any kind).
    static func forEachDiagnosticRow(url: String, options: TopOptions, _ body: (Row) -> Void) throws -> [Int] {
        let database = try RowDatabase(url: url)
        try database.forEachRow(kind: .diagnostic, build: options.build, userID: options.userID) { body($0) }
        return try database.builds(userID: options.userID)
    }
}
