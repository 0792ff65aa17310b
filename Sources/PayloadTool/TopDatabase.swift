import PayloadDecode
import RowStore

/// `top --db URL`: the diagnostic rows stored in PostgreSQL.
enum TopDatabase {
    /// The diagnostic rows of the chosen build (every build without `--build`), and only the
    /// user's with `--user`, in the order they were stored.
    ///
    /// - Throws: `RowStoreError` (its message names the server with the password redacted).
    static func diagnosticRows(url: String, options: TopOptions) throws -> (rows: [Row], builds: [Int]) {
        let database = try RowDatabase(url: url)
        let rows = try database.rows(kind: "diagnostic", build: options.build, userID: options.userID)
        return (rows, try database.builds(userID: options.userID))
    }
}
