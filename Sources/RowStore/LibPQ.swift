internal import CLazyLibraries
internal import CLibpq
// The one file that talks to libpq. Everything above it sees `PostgresConnection`, `QueryResult`
// and `ServerError`, never a `PGconn` or a `PGresult`.
import Foundation
import SystemIO

/// A server's answer to one statement, copied out of the `PGresult` so no C memory outlives the call.
struct QueryResult {
    /// Every value as PostgreSQL's text form; `nil` for SQL null.
    var rows: [[String?]]
    /// The command tag's row count (`INSERT 0 5` gives 5); 0 when the command has none.
    /// The corresponding libpq function is `PQcmdTuples`.
    var affectedRows: Int
}

/// An error the server (or libpq) reported for a statement, with the fields a person needs.
struct ServerError: Error {
    /// The five-character SQLSTATE, e.g. `23514` for a check violation; empty when libpq failed locally.
    var sqlState: String
    /// The primary message, e.g. `new row for relation "yui_perf" violates check constraint "yui_perf_buckets_18"`.
    var message: String
    var detail: String?
    var hint: String?
    var constraint: String?

    /// Data errors (class 22) and integrity violations (class 23) are about the row that was sent;
    /// anything else (no table, no permission, connection lost) would fail every row the same way.
    var isAboutTheRow: Bool { sqlState.hasPrefix("22") || sqlState.hasPrefix("23") }
}

/// An open libpq connection. The connection closes when the last reference goes.
final class PostgresConnection {
    private let connection: OpaquePointer
    /// How long one statement may take, server silence included (seconds).
    let timeout: Int

    /// Connects with a libpq connection string or URL. The password may come from the URL, from
    /// `PGPASSWORD` or from `~/.pgpass`: libpq looks in all three.
    ///
    /// - Throws: `ServerError` with libpq's message. The message may name the host and the user,
    ///   never the password (libpq does not echo it), but callers still redact it.
    /// The corresponding libpq function is `PQconnectdbParams`.
    ///
    /// - Parameter timeout: seconds for connecting, for each statement (the server's
    ///   `statement_timeout`), for each lock wait (`lock_timeout`), and for the server's silence
    ///   while a statement runs (a network that stops answering after connecting): past it the
    ///   statement fails with a message saying so, never waits forever.
    init(url: String, timeout: Int = 60) throws(ServerError) {
        self.timeout = timeout
        if let failure = yui_load_libpq() {
            throw ServerError(sqlState: "", message: "cannot load libpq (apt install libpq5): \(String(cString: failure))")
        }
        // expand_dbname = 1 makes libpq read `dbname` as a full URL or key=value string; what it holds
        // overrides the keywords before it, so these are defaults the URL can change. Without a
        // connect_timeout libpq waits as long as TCP does (minutes) for a host that never answers.
        var keywords = ["application_name"]
        var values = ["payload-tool"]
        if ProcessInfo.processInfo.environment["PGCONNECT_TIMEOUT"] == nil {
            keywords.append("connect_timeout")
            values.append(String(timeout))
        }
        // Keepalives notice a peer that vanished while the connection is idle.
        keywords += ["keepalives", "keepalives_idle", "keepalives_interval", "keepalives_count"]
        values += ["1", String(max(1, timeout / 2)), String(max(1, timeout / 6)), "3"]
        keywords.append("dbname")
        values.append(url)
        let handle = withCStringArray(keywords) { keywordPointers in
            withCStringArray(values) { valuePointers in
                PQconnectdbParams(keywordPointers, valuePointers, 1)
            }
        }
        guard let handle else {
            throw ServerError(sqlState: "", message: "out of memory while connecting")
        }
        guard PQstatus(handle) == CONNECTION_OK else {
            let message = Self.trimmed(PQerrorMessage(handle))
            PQfinish(handle)
            throw ServerError(sqlState: "", message: message.isEmpty ? "could not connect" : message)
        }
        // The default notice processor prints to stderr on its own; a loader's notices
        // (e.g. "relation already exists, skipping") are not the user's business.
        PQsetNoticeProcessor(handle, { _, _ in }, nil)
        connection = handle
        // The server gives up on a statement or a lock wait by itself; `waitForResults` covers a
        // server that cannot even say so.
        // The lock wait gives up a little sooner, so a statement stuck behind another session's
        // lock says "lock timeout" rather than "statement timeout".
        _ = try execute(
            "SELECT set_config('statement_timeout', $1, false), set_config('lock_timeout', $2, false)",
            parameters: [String(timeout * 1000), String(max(1, timeout * 1000 - 200))])
    }

    deinit { PQfinish(connection) }

    /// Runs one statement with text parameters (`$1`, `$2`, ...), `nil` for null. Each parameter's type
    /// is the one the statement gives it (its column, or a cast).
    ///
    /// The corresponding libpq function is `PQexecParams`.
    func execute(_ sql: String, parameters: [String?] = []) throws(ServerError) -> QueryResult {
        let sent = withOptionalCStringArray(parameters) { pointers in
            PQsendQueryParams(connection, sql, Int32(parameters.count), nil, pointers, nil, nil, 0)
        }
        guard sent == 1 else { return try consume(nil) }
        return try consume(try waitForResults())
    }

    /// Runs a script of several statements separated by semicolons (a migration), without parameters.
    /// The server runs them in one implicit transaction unless the script says otherwise.
    ///
    /// The corresponding libpq function is `PQexec`.
    func executeScript(_ sql: String) throws(ServerError) {
        guard PQsendQuery(connection, sql) == 1 else {
            _ = try consume(nil)
            return
        }
        _ = try consume(try waitForResults())
    }

    /// Waits for the results of the statement just sent, at most `timeout` seconds past the
    /// server's own limit, and returns the last one (as `PQexec` does; an error ends the batch).
    /// A server that stays silent (a network gone quiet after connecting) ends the wait with an
    /// error and a closed connection: nothing more can be sent on it.
    ///
    /// The corresponding libpq functions are `PQconsumeInput`, `PQisBusy` and `PQgetResult`.
    private func waitForResults() throws(ServerError) -> OpaquePointer? {
        let deadline = Date().addingTimeInterval(Double(timeout) + 5)
        var last: OpaquePointer?
        while true {
            while PQisBusy(connection) == 0 {
                guard let result = PQgetResult(connection) else { return last }
                if let last { PQclear(last) }
                last = result
            }
            let remaining = deadline.timeIntervalSinceNow
            guard remaining > 0 else {
                if let last { PQclear(last) }
                throw ServerError(sqlState: "", message: "no answer from the server within \(timeout) s (--timeout)")
            }
            // Not retried here on EINTR: the loop comes back with the deadline counted down.
            let ready: Bool
            switch FileIO.waitForInput(PQsocket(connection), milliseconds: Int32(min(remaining, 1) * 1000)) {
            case .success(let readable): ready = readable
            case .failure(let failure) where failure.code == EINTR: ready = false
            case .failure(let failure):
                if let last { PQclear(last) }
                throw ServerError(sqlState: "", message: "cannot wait for the server: \(failure.text)")
            }
            if ready, PQconsumeInput(connection) == 0 {
                if let last { PQclear(last) }
                let message = Self.trimmed(PQerrorMessage(connection))
                throw ServerError(sqlState: "", message: message.isEmpty ? "the connection was lost" : message)
            }
        }
    }

    /// Runs `copy ... from stdin` with `data` as its input (COPY's text format), and returns the
    /// command's result (its row count), or the server's error (a value it cannot read).
    ///
    /// The corresponding libpq functions are `PQputCopyData` and `PQputCopyEnd`.
    func copyIn(_ sql: String, data: [UInt8]) throws(ServerError) -> QueryResult {
        guard PQsendQuery(connection, sql) == 1 else { return try consume(nil) }
        // The first result says the server waits for the data (or why it will not).
        let start = try waitForFirstResult()
        guard let start, PQresultStatus(start) == PGRES_COPY_IN else {
            // Refused before any data (a column the table lacks, no right to COPY): the rest of the
            // statement's results must be read too, or the next statement finds the connection
            // busy ("another command is already in progress") and fails in its place.
            while let rest = PQgetResult(connection) { PQclear(rest) }
            return try consume(start)
        }
        PQclear(start)
        var sent = 0
        var failure: String?
        data.withUnsafeBytes { bytes in
            while sent < bytes.count {
                let piece = Swift.min(1 << 20, bytes.count - sent)
                let pointer = bytes.baseAddress!.advanced(by: sent).assumingMemoryBound(to: CChar.self)
                guard PQputCopyData(connection, pointer, Int32(piece)) == 1 else {
                    failure = Self.trimmed(PQerrorMessage(connection))
                    return
                }
                sent += piece
            }
        }
        guard PQputCopyEnd(connection, failure) == 1 else {
            throw ServerError(sqlState: "", message: Self.trimmed(PQerrorMessage(connection)))
        }
        return try consume(try waitForResults())
    }

    /// The first result of the statement just sent (a COPY's `PGRES_COPY_IN`), within the timeout.
    private func waitForFirstResult() throws(ServerError) -> OpaquePointer? {
        let deadline = Date().addingTimeInterval(Double(timeout) + 5)
        while PQisBusy(connection) != 0 {
            let remaining = deadline.timeIntervalSinceNow
            guard remaining > 0 else {
                throw ServerError(sqlState: "", message: "no answer from the server within \(timeout) s (--timeout)")
            }
            if case .success(true) = FileIO.waitForInput(PQsocket(connection), milliseconds: Int32(Swift.min(remaining, 1) * 1000)),
                PQconsumeInput(connection) == 0
            {
                let message = Self.trimmed(PQerrorMessage(connection))
                throw ServerError(sqlState: "", message: message.isEmpty ? "the connection was lost" : message)
            }
        }
        return PQgetResult(connection)
    }

    /// Whether the connection is still usable (it may have dropped during a statement).
    var isOpen: Bool { PQstatus(connection) == CONNECTION_OK }

    private func consume(_ result: OpaquePointer?) throws(ServerError) -> QueryResult {
        guard let result else {
            let message = Self.trimmed(PQerrorMessage(connection))
            throw ServerError(sqlState: "", message: message.isEmpty ? "no answer from the server" : message)
        }
        defer { PQclear(result) }
        switch PQresultStatus(result) {
        case PGRES_COMMAND_OK, PGRES_TUPLES_OK, PGRES_EMPTY_QUERY:
            break
        default:
            func field(_ code: UInt8) -> String? {
                guard let value = PQresultErrorField(result, Int32(code)) else { return nil }
                return String(cString: value)
            }
            // The field codes are the protocol's one-letter names (PG_DIAG_SQLSTATE is 'C', ...).
            var message = field(UInt8(ascii: "M")) ?? ""
            if message.isEmpty { message = Self.trimmed(PQresultErrorMessage(result)) }
            if message.isEmpty { message = Self.trimmed(PQerrorMessage(connection)) }
            throw ServerError(
                sqlState: field(UInt8(ascii: "C")) ?? "",
                message: message.isEmpty ? "the statement failed" : message,
                detail: field(UInt8(ascii: "D")),
                hint: field(UInt8(ascii: "H")),
                constraint: field(UInt8(ascii: "n"))
            )
        }
        let rowCount = Int(PQntuples(result))
        let columnCount = Int(PQnfields(result))
        var rows: [[String?]] = []
        rows.reserveCapacity(rowCount)
        for row in 0..<Int32(rowCount) {
            var values: [String?] = []
            values.reserveCapacity(columnCount)
            for column in 0..<Int32(columnCount) {
                if PQgetisnull(result, row, column) != 0 {
                    values.append(nil)
                } else {
                    values.append(String(cString: PQgetvalue(result, row, column)))
                }
            }
            rows.append(values)
        }
        let affected = PQcmdTuples(result).map { Int(String(cString: $0)) ?? 0 } ?? 0
        return QueryResult(rows: rows, affectedRows: affected)
    }

    private static func trimmed(_ message: UnsafePointer<CChar>?) -> String {
        guard let message else { return "" }
        return String(cString: message).trimmingCharacters(in: .whitespacesAndNewlines)
    }
}

@available(*, unavailable)
extension PostgresConnection: Sendable {}

/// Hands C a NULL-terminated `const char * const *` (the keyword and value lists of
/// `PQconnectdbParams`), valid for the duration of `body`.
private func withCStringArray<Result>(
    _ strings: [String], _ body: (UnsafePointer<UnsafePointer<CChar>?>) -> Result
) -> Result {
    withOptionalCStringArray(strings.map { Optional($0) } + [nil], body)
}

/// Hands C a `const char * const *` of NUL-terminated copies, null entries kept (SQL null parameters).
private func withOptionalCStringArray<Result>(
    _ strings: [String?], _ body: (UnsafePointer<UnsafePointer<CChar>?>) -> Result
) -> Result {
    let copies: [UnsafeMutablePointer<CChar>?] = strings.map { $0.flatMap { strdup($0) } }
    defer { copies.forEach { free($0) } }
    let constCopies = copies.map { UnsafePointer($0) }
    return constCopies.withUnsafeBufferPointer { buffer in
        // An empty array still needs a valid pointer for libpq to ignore.
        if buffer.isEmpty {
            let none: UnsafePointer<CChar>? = nil
            return withUnsafePointer(to: none) { body($0) }
        }
        return body(buffer.baseAddress!)
    }
}
