/// A failure that stops work with the database as a whole: no connection, no table, no permission,
/// a connection lost mid-batch, or a stored value that is not what the table promises.
/// (A row the table refuses is not one of these: it comes back as a `RefusedRow`.)
public struct RowStoreError: Error, Sendable, CustomStringConvertible {
    /// A lowercase fragment for `error: ` to precede, the password already removed,
    /// e.g. `cannot connect to postgresql://loader:***@db.example.com/postgres: ...`.
    public var message: String
    /// The server's SQLSTATE when the server said it, e.g. `42P01` for a missing table.
    public var sqlState: String?

    public init(message: String, sqlState: String? = nil) {
        self.message = message
        self.sqlState = sqlState
    }

    public var description: String { message }
}

/// A row the table refused, and why, in the server's words.
public struct RefusedRow: Sendable, Hashable {
    /// Position of the row in the batch given to `insert`, from 0; `nil` when the batch failed as a
    /// whole but no single row fails alone.
    public var index: Int?
    /// The server's message, naming the constraint, e.g.
    /// `new row for relation "yui_perf" violates check constraint "yui_perf_buckets_18"`.
    public var message: String
    /// The constraint's name when the server gave one (`yui_perf_buckets_18`).
    public var constraint: String?
    /// The server's SQLSTATE (`23514` for a check), or empty when the row was refused before sending.
    public var sqlState: String

    public init(index: Int?, message: String, constraint: String?, sqlState: String) {
        self.index = index
        self.message = message
        self.constraint = constraint
        self.sqlState = sqlState
    }
}

/// What became of one batch: stored (each row inserted or already there), or rolled back.
public enum BatchOutcome: Sendable, Hashable {
    /// Committed. `duplicates` rows were already in the table (same user_id and row_key) and were left as they were.
    case stored(inserted: Int, duplicates: Int)
    /// Rolled back: nothing of the batch is in the table. Every row the table refuses on its own is listed.
    case refused([RefusedRow])
}
