/// Retention: the week partitions of `yui_perf` (db/yui_perf.sql) dropped and made by
/// `public.yui_perf_maintain`, what pg_cron runs daily and `payload-tool retention` runs where
/// pg_cron is not.
extension RowDatabase {
    /// One thing `yui_perf_maintain` did.
    public struct RetentionStep: Sendable, Equatable {
        public enum Action: String, Sendable {
            /// A week partition entirely older than the kept days, dropped with its rows.
            case dropped
            /// The default partition's rows of those weeks, deleted.
            case deleted
            /// A week partition made (ahead, or for rows the default partition held, moved into it).
            case made
        }
        public var action: Action
        /// `yui_perf_YYYYMMDD` (the week's Monday), or `yui_perf_default`.
        public var partition: String
        /// Rows dropped, deleted, or moved into the partition made.
        public var rows: Int
    }

    /// Runs `public.yui_perf_maintain(keep_days, weeks_ahead)` in one transaction: drops the weeks
    /// entirely older than `keepDays` days, deletes the default partition's rows of those weeks,
    /// and makes the partitions up to `weeksAhead` weeks from now.
    /// - Throws: `RowStoreError`; on a table the migration has not partitioned, one that says to run it.
    public func maintain(keepDays: Int, weeksAhead: Int) throws(RowStoreError) -> [RetentionStep] {
        let result: QueryResult
        do {
            try run("begin")
            result = try connection.execute(
                "select action, partition_name, row_count from public.yui_perf_maintain($1::int, $2::int)",
                parameters: [String(keepDays), String(weeksAhead)])
            try run("commit")
        } catch {
            try? run("rollback")
            if error.sqlState == "42883" {
                throw RowStoreError(
                    message: "cannot run the retention in \(url.redacted): it has no public.yui_perf_maintain; "
                        + "run db/yui_perf.sql (it partitions the table and makes the function)",
                    sqlState: error.sqlState)
            }
            throw failure("cannot run the retention", error)
        }
        return result.rows.compactMap { values in
            guard values.count == 3, let action = values[0].flatMap(RetentionStep.Action.init(rawValue:)), let name = values[1] else {
                return nil
            }
            return RetentionStep(action: action, partition: name, rows: values[2].flatMap { Int($0) } ?? 0)
        }
    }

    /// The week partitions, oldest first, with their bounds as the server prints them in UTC.
    public func weekPartitions() throws(RowStoreError) -> [(name: String, starts: String, ends: String)] {
        let result: QueryResult
        do {
            result = try connection.execute(
                """
                select partition_name, to_char(starts at time zone 'UTC', 'YYYY-MM-DD'), to_char(ends at time zone 'UTC', 'YYYY-MM-DD')
                from public.yui_perf_weeks() order by starts
                """)
        } catch {
            throw failure("cannot list the partitions", error)
        }
        return result.rows.map { ($0[0] ?? "", $0[1] ?? "", $0[2] ?? "") }
    }
}
