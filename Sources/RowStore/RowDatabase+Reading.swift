import PayloadDecode

/// A stored row that is not handed over: it cannot be read as a `Row`, or it breaks the table's
/// rules (a table made before a check, or a row planted past one). Named by its `id` and `row_key`,
/// as a row file names a line; the other rows go on.
public struct SkippedRow: Error, Sendable, CustomStringConvertible {
    /// The row's `id` column.
    public var id: String
    /// Its `row_key`, when it has one.
    public var rowKey: String?
    /// Which column or rule, with the offending value quoted and escaped.
    public var reason: String

    public var description: String {
        "row id \(id)\(rowKey.map { " (row_key \(InputText.escaped($0)))" } ?? ""): \(reason)"
    }
}

/// Reading rows back: what `top --db` ranks and `report --db` reports, as the same `Row` values
/// that were loaded.
extension RowDatabase {
    /// The diagnostic rows of one build (every build when `nil`), in the order they were stored, as the
    /// same `Row` values that were loaded: what `top --db` ranks.
    public func diagnosticRows(build: Int?) throws(RowStoreError) -> [Row] {
        try rows(kind: .diagnostic, build: build)
    }

    /// Rows in the order they were stored, narrowed by any of kind, build and user.
    /// - Throws: `RowStoreError`, also for the first row that cannot be read or breaks the table's rules.
    public func rows(kind: RowKind? = nil, build: Int? = nil, userID: String? = nil) throws(RowStoreError) -> [Row] {
        var rows: [Row] = []
        try forEachRow(kind: kind, build: build, userID: userID, skipped: Self.refuse) { rows.append($0) }
        return rows
    }

    /// What the collecting reads do with a row they cannot hand over: fail, naming it.
    private static func refuse(_ row: SkippedRow) throws(RowStoreError) {
        throw RowStoreError(message: row.description)
    }

    /// The same rows as `rows(kind:build:userID:)`, in the same order, handed over through a
    /// cursor `batchSize` at a time, so `top --db` never holds a user's whole history at once.
    /// A row that cannot be read or breaks the table's rules goes to `skipped` instead of `body`
    /// (which may throw to stop the read), and the read goes on.
    public func forEachRow(
        kind: RowKind? = nil, build: Int? = nil, userID: String? = nil, batchSize: Int = 10_000,
        skipped: (SkippedRow) throws(RowStoreError) -> Void, _ body: (Row) throws(RowStoreError) -> Void
    ) throws(RowStoreError) {
        let (conditions, parameters) = Self.conditions(kind: kind, build: build, userID: userID)
        try readThroughCursor(
            setUp: [], query: "select id, \(RowColumns.selectList) from public.yui_perf\(conditions) order by id",
            parameters: parameters, batchSize: batchSize, what: "cannot read rows", skipped: skipped, body)
    }

    /// Every row the owner's connector may read (docs/postgres.md), as `report --db` reads them: the
    /// transaction takes the role `yui_connector` and sets `yui.uid` to `userID`, so the table's
    /// row level security, not this query, decides which rows come back.
    ///
    /// - Throws: `RowStoreError`; a login that may not take the role gets the server's refusal.
    public func rowsAsConnector(userID: String) throws(RowStoreError) -> [Row] {
        var rows: [Row] = []
        try forEachRowAsConnector(userID: userID, skipped: Self.refuse) { rows.append($0) }
        return rows
    }

    /// The same rows as `rowsAsConnector`, in the same order, handed over `batchSize` at a time
    /// through a cursor, so a user's whole history never sits in memory at once (`report --db`
    /// on a million rows of one user held 1.5 GB when it was read in one result).
    /// A row that cannot be read or breaks the table's rules goes to `skipped`, as in `forEachRow`.
    ///
    /// With `range`, only its rows: a build's, and those whose period ends in a span, which the
    /// indexes on `(user_id, period_end)` and `(user_id, app_build, period_end)` find in each
    /// partition without reading the others (`report --db` reads its window, then the rest of the
    /// builds it compares; docs/scale.md).
    public func forEachRowAsConnector(
        userID: String, range: RowRange = RowRange(), batchSize: Int = 10_000,
        skipped: (SkippedRow) throws(RowStoreError) -> Void, _ body: (Row) throws(RowStoreError) -> Void
    ) throws(RowStoreError) {
        let (conditions, parameters) = range.conditions
        try readThroughCursor(
            setUp: Self.asConnector(userID),
            query: "select id, \(RowColumns.selectList) from public.yui_perf\(conditions) order by id", parameters: parameters,
            batchSize: batchSize, what: "cannot read rows as yui_connector", skipped: skipped, body)
    }

    /// The newest `period_end` of the rows the connector may read for `userID`, in seconds since
    /// 1970, or `nil` when there is none: where `report --db`'s window ends.
    public func newestPeriodEndAsConnector(userID: String) throws(RowStoreError) -> Int64? {
        try valueAsConnector(userID: userID, "select floor(extract(epoch from max(period_end)))::bigint from public.yui_perf", [])
            .flatMap { Int64($0) }
    }

    /// The highest build below `build` that has rows the connector may read for `userID`: the next
    /// build `report --db` may compare with, without listing every build.
    public func newestBuildAsConnector(userID: String, below build: Int) throws(RowStoreError) -> Int? {
        try valueAsConnector(
            userID: userID, "select max(app_build) from public.yui_perf where app_build < $1::int", [String(build)]
        ).flatMap { Int($0) }
    }

    /// One value of `query`, read as `yui_connector` with `yui.uid` set to `userID`.
    private func valueAsConnector(userID: String, _ query: String, _ parameters: [String?]) throws(RowStoreError) -> String? {
        do {
            try run("begin read only")
            for (statement, values) in Self.asConnector(userID) { _ = try connection.execute(statement, parameters: values) }
            let result = try connection.execute(query, parameters: parameters)
            try run("commit")
            return result.rows.first?.first.flatMap { $0 }
        } catch {
            try? run("rollback")
            throw failure("cannot read rows as yui_connector", error)
        }
    }

    /// The statements that make a transaction read as the owner's connector.
    private static func asConnector(_ userID: String) -> [(String, [String?])] {
        [("set local role yui_connector", []), ("select set_config('yui.uid', $1, true)", [userID])]
    }

    /// Runs `query` (the row's `id`, then `RowColumns.selectList`) as a cursor in a read-only
    /// transaction (after the `setUp` statements) and hands every row to `body`, `batchSize` rows
    /// a fetch; a row that fails `RowColumns.checkedRow` goes to `skipped`.
    private func readThroughCursor(
        setUp: [(String, [String?])], query: String, parameters: [String?], batchSize: Int, what: String,
        skipped: (SkippedRow) throws(RowStoreError) -> Void, _ body: (Row) throws(RowStoreError) -> Void
    ) throws(RowStoreError) {
        do {
            try run("begin read only")
            for (statement, values) in setUp { _ = try connection.execute(statement, parameters: values) }
            // extra_float_digits > 0 makes every server since 12 print doubles in their shortest exact
            // form, and older ones with 17 digits: either reads back to the same bits. Set per
            // transaction so it also holds behind a transaction-mode pooler (Supabase's).
            try run("set local extra_float_digits = 3")
            // A cursor is planned for its first 10% by default, which on a large table prefers
            // walking the whole primary key in `id` order to the user's index and a sort: plan
            // for every row, as a plain select is.
            try run("set local cursor_tuple_fraction = 1")
            _ = try connection.execute("declare yui_rows no scroll cursor for \(query)", parameters: parameters)
        } catch {
            try? run("rollback")
            throw failure(what, error)
        }
        while true {
            let batch: QueryResult
            do {
                batch = try connection.execute("fetch forward \(max(1, batchSize)) from yui_rows")
            } catch {
                try? run("rollback")
                throw failure(what, error)
            }
            if batch.rows.isEmpty { break }
            do throws(RowStoreError) {
                for values in batch.rows {
                    let columns = Array(values.dropFirst())
                    let row: Row
                    do {
                        row = try RowColumns.checkedRow(from: columns)
                    } catch {
                        let rowKey = RowColumns.names.firstIndex(of: "row_key").flatMap { $0 < columns.count ? columns[$0] : nil }
                        try skipped(SkippedRow(id: values.first.flatMap { $0 } ?? "?", rowKey: rowKey, reason: error.message))
                        continue
                    }
                    try body(row)
                }
            } catch {
                try? run("rollback")
                throw error
            }
        }
        do {
            try run("commit")
        } catch {
            throw failure(what, error)
        }
    }

    /// The builds that have any row (of any kind), narrowed by user: `top --db` lists a build with
    /// only metric rows as having no hangs or crashes, as it does for a file holding those rows.
    public func builds(userID: String? = nil) throws(RowStoreError) -> [Int] {
        let (conditions, parameters) = Self.conditions(kind: nil, build: nil, userID: userID)
        // A user's builds one index probe per build (and partition) up `yui_perf_user_idx`, where
        // `distinct` reads every one of the user's index entries: 90 days of rows are 600,000 of
        // them for some 30 builds.
        let sql =
            userID == nil
            ? "select distinct app_build from public.yui_perf\(conditions)"
            : """
            with recursive found(build) as (
              select min(app_build) from public.yui_perf where user_id = $1::uuid
              union all
              select (select min(app_build) from public.yui_perf where user_id = $1::uuid and app_build > found.build)
              from found where found.build is not null
            )
            select build from found where build is not null
            """
        let result: QueryResult
        do {
            result = try connection.execute(sql, parameters: parameters)
        } catch {
            throw failure("cannot read builds", error)
        }
        return result.rows.compactMap { $0.first.flatMap { $0 }.flatMap { Int($0) } }
    }

    /// ` where kind = $1 and ...` for the filters given (empty without any), and their parameters.
    /// Only the given ones are in the SQL: `($1::text is null or kind = $1)` reads the same rows, but a
    /// generic plan (a prepared statement reused, as drivers and poolers do) cannot use an index for a
    /// condition that may hold for every row, and reads the whole table to find one user's rows
    /// (docs/scale.md has both plans).
    static func conditions(kind: RowKind?, build: Int?, userID: String?) -> (sql: String, parameters: [String?]) {
        var conditions: [String] = []
        var parameters: [String?] = []
        func add(_ column: String, _ cast: String, _ value: String?) {
            guard let value else { return }
            parameters.append(value)
            conditions.append("\(column) = $\(parameters.count)::\(cast)")
        }
        add("user_id", "uuid", userID)
        add("app_build", "int", build.map(String.init))
        add("kind", "text", kind?.rawValue)
        return (conditions.isEmpty ? "" : " where " + conditions.joined(separator: " and "), parameters)
    }
}

/// Which rows of the table a read takes: one build's, and those whose `period_end` falls in a
/// span (seconds since 1970, `from` included, `before` not); every row when all are `nil`.
public struct RowRange: Sendable, Equatable {
    public var build: Int?
    public var periodEndFrom: Int64?
    public var periodEndBefore: Int64?

    public init(build: Int? = nil, periodEndFrom: Int64? = nil, periodEndBefore: Int64? = nil) {
        self.build = build
        self.periodEndFrom = periodEndFrom
        self.periodEndBefore = periodEndBefore
    }

    /// ` where ...` for the bounds given, only those (as `RowDatabase.conditions`, so a generic
    /// plan still uses the indexes), and their parameters.
    var conditions: (sql: String, parameters: [String?]) {
        var conditions: [String] = []
        var parameters: [String?] = []
        if let build {
            parameters.append(String(build))
            conditions.append("app_build = $\(parameters.count)::int")
        }
        if let periodEndFrom {
            parameters.append(String(periodEndFrom))
            conditions.append("period_end >= to_timestamp($\(parameters.count)::bigint)")
        }
        if let periodEndBefore {
            parameters.append(String(periodEndBefore))
            conditions.append("period_end < to_timestamp($\(parameters.count)::bigint)")
        }
        return (conditions.isEmpty ? "" : " where " + conditions.joined(separator: " and "), parameters)
    }
}
