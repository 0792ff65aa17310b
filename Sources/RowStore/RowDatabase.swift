import Foundation
import PayloadDecode

/// A PostgreSQL database that holds the `yui_perf` table (migration `db/yui_perf.sql`): rows go in
/// batch by batch and come back as the same `Row` values.
///
/// One connection per instance; not for sharing between threads.
public final class RowDatabase {
    /// Where it is connected, password redacted in every message.
    public let url: DatabaseURL
    let connection: PostgresConnection

    /// Connects. The password may come from the URL, `PGPASSWORD` or `~/.pgpass`.
    ///
    /// - Throws: `RowStoreError` saying it cannot connect, with the URL redacted and libpq's reason.
    /// - Parameter timeout: seconds for connecting, each statement, each lock wait and the
    ///   server's silence (`PostgresConnection.init(url:timeout:)`).
    public init(url: DatabaseURL, timeout: Int = 60) throws(RowStoreError) {
        self.url = url
        do {
            connection = try PostgresConnection(url: url.connectionString, timeout: timeout)
        } catch {
            throw RowStoreError(message: "cannot connect to \(url.redacted): \(url.scrub(error.message))")
        }
    }

    public convenience init(url: String) throws(RowStoreError) {
        try self.init(url: DatabaseURL(url))
    }

    // MARK: Writing

    /// Whether batches may go straight into `yui_perf` with COPY (`insertStraight`): decided at the
    /// first batch, and given up for the session when the server will not have it.
    private var copiesStraight: Bool?
    /// Whether the last batch held rows the table had: then the next one looks its keys up before
    /// its COPY; otherwise it is sent at once, and a key the table holds fails the COPY (23505),
    /// which costs the rows sent until then and turns the look-up back on.
    private var expectsDuplicates = false

    /// Inserts `rows` in one transaction, each row stored unless the table holds its (user_id, row_key).
    /// The same as `insert(RowDatabase.prepare(rows))`.
    public func insert(_ rows: [Row]) throws(RowStoreError) -> BatchOutcome {
        try insert(Self.prepare(rows))
    }

    /// The rows of a batch as COPY's text (`prepare`), made on the thread that reads the input so the
    /// thread that talks to the server only sends.
    public struct PreparedRows: Sendable {
        public let rows: [Row]
        /// Every row as one line of COPY's text format; `nil` when a row cannot be sent at all
        /// (a NUL in a value, a stack that is not JSON).
        let copyText: [UInt8]?
        /// Where each row's line ends in `copyText`.
        let lineEnds: [Int]
        /// Each row's user_id and row_key, lower case; `nil` when one of them is not a UUID.
        let userIDs: [String]?
        let rowKeys: [String]?
        /// Each row's period_start, as the row holds it: with the key, it finds the row's one
        /// partition (the unique key is `(user_id, row_key, period_start)`).
        let periodStarts: [String]?
    }

    /// Writes `rows` as COPY text (see `PreparedRows`). Costs no server time.
    public static func prepare(_ rows: [Row]) -> PreparedRows {
        var text: [UInt8] = []
        text.reserveCapacity(rows.count * 1024)
        var scratch: [UInt8] = []
        var lineEnds: [Int] = []
        lineEnds.reserveCapacity(rows.count)
        var userIDs: [String]? = []
        var rowKeys: [String]? = []
        var periodStarts: [String]? = []
        userIDs?.reserveCapacity(rows.count)
        rowKeys?.reserveCapacity(rows.count)
        periodStarts?.reserveCapacity(rows.count)
        for row in rows {
            guard RowColumns.appendCopyLine(row, to: &text, scratch: &scratch) else {
                return PreparedRows(rows: rows, copyText: nil, lineEnds: [], userIDs: nil, rowKeys: nil, periodStarts: nil)
            }
            lineEnds.append(text.count)
            if userIDs != nil, let user = row.user_id, isUUID(user), isUUID(row.row_key) {
                userIDs?.append(user.lowercased())
                rowKeys?.append(row.row_key.lowercased())
                periodStarts?.append(row.period_start)
            } else {
                userIDs = nil
                rowKeys = nil
                periodStarts = nil
            }
        }
        return PreparedRows(
            rows: rows, copyText: text, lineEnds: lineEnds, userIDs: userIDs, rowKeys: rowKeys, periodStarts: periodStarts)
    }

    /// Inserts the rows of `batch` in one transaction; rows whose (user_id, row_key) the table already
    /// holds, or that an earlier row of the batch has, are duplicates and left alone (the first one is
    /// kept, as `INSERT ... ON CONFLICT DO NOTHING` keeps it).
    ///
    /// When the table refuses any row, the whole batch rolls back, and each row is then tried alone
    /// (inside a savepoint of a transaction that is rolled back too) so the outcome names every row
    /// the table refuses and why. Nothing of a refused batch is stored.
    ///
    /// - Returns: `.stored` with the inserted and duplicate counts, or `.refused` with the rows.
    /// - Throws: `RowStoreError` when the failure is not about a row (no table, no permission,
    ///   connection lost): every later batch would fail the same way.
    public func insert(_ batch: PreparedRows) throws(RowStoreError) -> BatchOutcome {
        let rows = batch.rows
        if rows.isEmpty { return .stored(inserted: 0, duplicates: 0) }
        guard let text = batch.copyText else {
            // A row that cannot even be sent: the diagnosis names it (and any other).
            return .refused(try diagnose(rows))
        }
        if let users = batch.userIDs, let keys = batch.rowKeys, decideCopiesStraight() {
            var lookUp = expectsDuplicates
            while true {
                do {
                    let outcome = try insertStraight(batch, text: text, users: users, keys: keys, lookUp: lookUp)
                    if case .stored(_, let duplicates) = outcome { expectsDuplicates = duplicates > 0 }
                    return outcome
                } catch {
                    try? run("rollback")
                    guard connection.isOpen else { throw failure("cannot insert rows", error) }
                    if error.sqlState == "23505", !lookUp {
                        // A row the table (or the batch, earlier) already has: again, with the look-up.
                        lookUp = true
                        expectsDuplicates = true
                        continue
                    }
                    switch error.sqlState {
                    case let state where state.hasPrefix("22") || state.hasPrefix("23"):
                        // A refused row, or a row another session stored after the look-up (23505):
                        // the batch goes the careful way below, which stores what it can and names the rest.
                        break
                    case "0A000", "42501":
                        // COPY refused as such (row level security applies to this login, or no right
                        // to COPY): the careful way for this batch and every later one.
                        copiesStraight = false
                    default:
                        throw failure("cannot insert rows", error)
                    }
                }
                break
            }
        }

        let batchError: ServerError
        do {
            return try insertThroughSessionTable(text, rowCount: rows.count)
        } catch {
            batchError = error
        }
        // A failed rollback after a lost connection must not hide why the batch failed.
        try? run("rollback")
        guard batchError.isAboutTheRow, connection.isOpen else { throw failure("cannot insert rows", batchError) }
        return .refused(try diagnose(rows))
    }

    /// Straight COPY is for sessions the table's row level security leaves alone (the table's owner,
    /// a superuser, a BYPASSRLS login): under it the server refuses `COPY FROM`, and a check made
    /// through its policies could miss rows the login cannot see.
    private func decideCopiesStraight() -> Bool {
        if let copiesStraight { return copiesStraight }
        let answer = try? connection.execute("select row_security_active('public.yui_perf')")
        let straight = answer?.rows.first?.first == "f"
        copiesStraight = straight
        return straight
    }

    /// One transaction: the rows stream with `COPY ... FROM STDIN` straight into `yui_perf`, as
    /// `psql \copy` would send them; committed when the COPY succeeds. With `lookUp`, the keys of
    /// the batch are first looked up in the unique index (user_id, row_key), and only the rows not
    /// found (each key once) are sent. A row another session stores in between makes the COPY fail
    /// on the unique index; then the batch goes through the session table with `ON CONFLICT`, as
    /// does a batch the table refuses.
    private func insertStraight(
        _ batch: PreparedRows, text: [UInt8], users: [String], keys: [String], lookUp: Bool
    ) throws(ServerError) -> BatchOutcome {
        try run("begin")
        guard lookUp else {
            let copied = try connection.copyIn(
                "copy public.yui_perf (\(RowColumns.names.joined(separator: ", "))) from stdin", data: text)
            guard copied.affectedRows == keys.count else {
                throw ServerError(sqlState: "XX000", message: "COPY stored \(copied.affectedRows) rows of \(keys.count)")
            }
            try run("commit")
            return .stored(inserted: keys.count, duplicates: 0)
        }
        let found = try connection.execute(
            Self.storedKeysQuery,
            parameters: [
                "{" + users.joined(separator: ",") + "}", "{" + keys.joined(separator: ",") + "}",
                "{" + (batch.periodStarts ?? []).map { "\"\($0)\"" }.joined(separator: ",") + "}",
            ])
        // PostgreSQL prints a uuid in lower case, as `prepare` wrote the keys.
        var seen = Set(found.rows.map { "\($0[0] ?? "") \($0[1] ?? "")" })
        var chosen: [Int] = []
        chosen.reserveCapacity(keys.count)
        for index in keys.indices where seen.insert(users[index] + " " + keys[index]).inserted { chosen.append(index) }
        if !chosen.isEmpty {
            let data: [UInt8]
            if chosen.count == keys.count {
                data = text
            } else {
                var some: [UInt8] = []
                some.reserveCapacity(text.count)
                for index in chosen {
                    let start = index == 0 ? 0 : batch.lineEnds[index - 1]
                    some.append(contentsOf: text[start..<batch.lineEnds[index]])
                }
                data = some
            }
            let copied = try connection.copyIn(
                "copy public.yui_perf (\(RowColumns.names.joined(separator: ", "))) from stdin", data: data)
            guard copied.affectedRows == chosen.count else {
                throw ServerError(sqlState: "XX000", message: "COPY stored \(copied.affectedRows) rows of \(chosen.count)")
            }
        }
        try run("commit")
        return .stored(inserted: chosen.count, duplicates: keys.count - chosen.count)
    }

    /// The (user_id, row_key) pairs of `$1` and `$2` (uuid arrays, pairwise) that the table holds
    /// with the period_start of `$3`: one probe of the unique index per row, in the one partition
    /// its period_start picks (without it, every partition's index is probed for every key).
    static let storedKeysQuery = """
        select p.user_id::text, p.row_key::text
        from unnest($1::uuid[], $2::uuid[], $3::timestamptz[]) as k(user_id, row_key, period_start)
        join public.yui_perf p on p.user_id = k.user_id and p.row_key = k.row_key and p.period_start = k.period_start
        """

    /// A UUID in its usual spelling (8-4-4-4-12 hex digits, either case): the only keys the straight
    /// path looks up; anything else goes the careful way, where the server names what is wrong.
    static func isUUID(_ text: String) -> Bool {
        var text = text
        return text.withUTF8 { bytes in
            guard bytes.count == 36 else { return false }
            for position in 0..<36 {
                let byte = bytes[position]
                if position == 8 || position == 13 || position == 18 || position == 23 {
                    if byte != UInt8(ascii: "-") { return false }
                } else if !((byte >= UInt8(ascii: "0") && byte <= UInt8(ascii: "9"))
                    || (byte | 0x20 >= UInt8(ascii: "a") && byte | 0x20 <= UInt8(ascii: "f")))
                {
                    return false
                }
            }
            return true
        }
    }

    /// One transaction: the batch streams with `COPY ... FROM STDIN` into a session-local table
    /// (`yui_perf_incoming`, emptied at every commit), then moves into `yui_perf` with one
    /// `INSERT ... SELECT ... ON CONFLICT DO NOTHING` (no conflict target: the unique key is
    /// `(user_id, row_key, period_start)` on a partitioned table, `(user_id, row_key)` on one before
    /// it); committed when both succeed.
    /// A value the table's types refuse fails the COPY, a rule it breaks fails the INSERT: either
    /// way the batch rolls back and `diagnose` names the rows, as before.
    private func insertThroughSessionTable(_ text: [UInt8], rowCount: Int) throws(ServerError) -> BatchOutcome {
        try run("begin")
        // The columns `yui_perf` stores, without its identity and defaults: CREATE TABLE AS copies
        // their types only. Created once per session (a rolled-back batch takes it along; then again).
        try run(
            """
            create temp table if not exists yui_perf_incoming on commit delete rows as
            select \(RowColumns.names.joined(separator: ", ")) from public.yui_perf with no data
            """)
        _ = try connection.copyIn(
            "copy yui_perf_incoming (\(RowColumns.names.joined(separator: ", "))) from stdin", data: text)
        let columns = RowColumns.names.joined(separator: ", ")
        let inserted = try connection.execute(
            """
            insert into public.yui_perf (\(columns)) select \(columns) from yui_perf_incoming
            on conflict do nothing
            """
        ).affectedRows
        try run("commit")
        return .stored(inserted: inserted, duplicates: rowCount - inserted)
    }

    /// Adds each user id to `yui_users` unless it is there: for test databases, where no app made them.
    /// (On Supabase yui_users belongs to the app and this is not needed.)
    public func createUsers(_ userIDs: some Sequence<String>) throws(RowStoreError) {
        for id in Set(userIDs).sorted() {
            do {
                _ = try connection.execute(
                    "insert into public.yui_users (id) values ($1::uuid) on conflict do nothing", parameters: [id])
            } catch {
                throw failure("cannot add user \(id) to yui_users", error)
            }
        }
    }

    /// Runs SQL statements as they are (a migration, or `create database`), in one implicit
    /// transaction when there are several.
    /// The rows of one statement, every value in PostgreSQL's text form (`nil` for null): for
    /// the checks a person makes with psql (which partition holds a row, what a catalog says).
    public func textRows(_ sql: String, parameters: [String?] = []) throws(RowStoreError) -> [[String?]] {
        do {
            return try connection.execute(sql, parameters: parameters).rows
        } catch {
            throw failure("the query failed", error)
        }
    }

    public func runScript(_ sql: String) throws(RowStoreError) {
        do {
            try connection.executeScript(sql)
        } catch {
            // A script with its own `begin` (db/yui_perf.sql) that fails stops inside its
            // transaction: end it, so the connection is usable again.
            try? run("rollback")
            throw failure("the script failed", error)
        }
    }

    /// The server names the partition a refused row was routed to (`on table "yui_perf_default"`,
    /// `"yui_perf_20261130"`); users know the table, `yui_perf`.
    static func namingTheTable(_ message: String) -> String {
        guard message.contains("\"yui_perf_") else { return message }
        return message.replacing(/"yui_perf_(?:default|[0-9]{8})"/, with: "\"yui_perf\"")
    }

    // MARK: Helpers

    func run(_ sql: String) throws(ServerError) {
        _ = try connection.execute(sql)
    }

    func failure(_ what: String, _ error: ServerError) -> RowStoreError {
        var message = "\(what) in \(url.redacted): \(url.scrub(error.message))"
        if let hint = error.hint { message += " (\(url.scrub(hint)))" }
        // 42703: a column this version reads or writes is missing, so the table is older than it.
        if error.sqlState == "42703" { message += " (the table predates this payload-tool: run db/yui_perf.sql on it again, docs/postgres.md)" }
        if !connection.isOpen { message += " (the connection was lost)" }
        return RowStoreError(message: message, sqlState: error.sqlState.isEmpty ? nil : error.sqlState)
    }

    /// `insert into public.yui_perf (...) values ($1::uuid, ...), (...) on conflict do nothing`
    static func insertStatement(rowCount: Int) -> String {
        let columnCount = RowColumns.names.count
        var sql = "insert into public.yui_perf (\(RowColumns.names.joined(separator: ", "))) values "
        for row in 0..<rowCount {
            if row > 0 { sql += ", " }
            sql += "("
            for column in 0..<columnCount {
                if column > 0 { sql += ", " }
                sql += "$\(row * columnCount + column + 1)::\(RowColumns.casts[column])"
            }
            sql += ")"
        }
        return sql + " on conflict do nothing"
    }
}

@available(*, unavailable)
extension RowDatabase: Sendable {}
