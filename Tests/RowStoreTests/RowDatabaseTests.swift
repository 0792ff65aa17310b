import Foundation
import PayloadDecode
import RowStore
import Testing

@Suite(.enabled(if: !TestServer.isSkipped, "YUI_PERF_SKIP_DB=1"))
struct RowDatabaseTests {
    @Test func rowsReadBackEqualTheRowsStoredColumnByColumn() throws {
        let test = try TestDatabase()
        try test.database.createUsers([SampleRows.user])
        let rows = [
            SampleRows.metric("hang_rate", buckets: SampleRows.eighteenBuckets, value: 0.1),
            SampleRows.metric("mem_peak", value: 195.3125),
            SampleRows.metric("hitch_ratio", value: 1e-7),
            SampleRows.metric("fg_time", value: 86_399.999_999_9),
            SampleRows.metric("launch_mk", buckets: [2_147_483_647] + [Int](repeating: 0, count: 17)),
            SampleRows.diagnostic("hang", seconds: 2.0 / 3.0),
            SampleRows.diagnostic("crash", seconds: nil),
            SampleRows.diagnostic("disk_write", seconds: 1024.000_001, stack: nil),
        ]
        #expect(try test.database.insert(rows) == .stored(inserted: rows.count, duplicates: 0))

        let readBack = try test.database.rows()
        try #require(readBack.count == rows.count)
        for (stored, read) in zip(rows, readBack) {
            #expect(read == stored, "row \(stored.name) changed on its way through the table")
        }
    }

    @Test func storingTheSameRowsAgainInsertsNothing() throws {
        let test = try TestDatabase()
        try test.database.createUsers([SampleRows.user])
        let rows = (0..<7).map { SampleRows.metric("cpu_time", value: Double($0)) }
        #expect(try test.database.insert(rows) == .stored(inserted: 7, duplicates: 0))
        #expect(try test.database.insert(rows) == .stored(inserted: 0, duplicates: 7))
        // A batch holding old and new rows stores only the new ones, and a row twice in one batch once.
        let more = [rows[0], SampleRows.metric("cpu_time", key: "00000000-0000-4000-8000-000000000001")]
        #expect(try test.database.insert(more + more) == .stored(inserted: 1, duplicates: 3))
        #expect(try test.database.rows().count == 8)
    }

    @Test func aRefusedBatchRollsBackAloneAndNamesTheConstraintAndTheRow() throws {
        let test = try TestDatabase()
        try test.database.createUsers([SampleRows.user])
        let first = [SampleRows.metric("fg_time", value: 1), SampleRows.metric("cpu_time", value: 2)]
        var forged = SampleRows.metric("hang_rate", buckets: Array(SampleRows.eighteenBuckets.dropLast()))
        forged.row_key = "00000000-0000-4000-8000-000000000017"
        let second = [SampleRows.metric("mem_peak", value: 3), forged, SampleRows.metric("mem_avg", value: 4)]
        let third = [SampleRows.diagnostic("hang")]

        #expect(try test.database.insert(first) == .stored(inserted: 2, duplicates: 0))
        let outcome = try test.database.insert(second)
        #expect(try test.database.insert(third) == .stored(inserted: 1, duplicates: 0))

        guard case let .refused(refusals) = outcome else {
            Issue.record("the batch with 17 buckets was stored: \(outcome)")
            return
        }
        #expect(refusals.count == 1)
        let refusal = try #require(refusals.first)
        #expect(refusal.index == 1)
        #expect(refusal.constraint == "yui_perf_buckets_18")
        #expect(refusal.message.contains("yui_perf_buckets_18"))
        #expect(refusal.sqlState == "23514")
        // Nothing of the refused batch is stored, not even its good rows.
        #expect(try test.database.rows().map(\.name) == ["fg_time", "cpu_time", "hang"])
    }

    /// Each check of the table, broken by one field of an otherwise good row.
    @Test(arguments: CheckBreaker.allCases)
    func eachCheckRefusesTheRowThatBreaksIt(breaker: CheckBreaker) throws {
        let test = try TestDatabase()
        try test.database.createUsers([SampleRows.user])
        let good = SampleRows.diagnostic("crash")
        var row = SampleRows.diagnostic("hang")
        breaker.apply(to: &row)

        guard case let .refused(refusals) = try test.database.insert([good, row]) else {
            Issue.record("a row breaking \(breaker.constraint) was stored")
            return
        }
        #expect(refusals.map(\.index) == [1])
        #expect(refusals.first?.constraint == breaker.constraint)
        #expect(refusals.first?.message.contains(breaker.constraint) == true)
        #expect(try test.database.rows().isEmpty)
        // The good row alone is stored.
        #expect(try test.database.insert([good]) == .stored(inserted: 1, duplicates: 0))
    }

    @Test func diagnosticRowsOfABuildAreTheStoredDiagnosticsInOrder() throws {
        let test = try TestDatabase()
        try test.database.createUsers([SampleRows.user])
        let rows = [
            SampleRows.diagnostic("hang", build: 130, seconds: 0.4),
            SampleRows.metric("hang_rate", build: 130, buckets: SampleRows.eighteenBuckets, value: 0.8),
            SampleRows.diagnostic("crash", build: 131, seconds: nil),
            SampleRows.diagnostic("hang", build: 130, seconds: 1.2),
            SampleRows.diagnostic("cpu_exception", build: 130, seconds: 30),
        ]
        #expect(try test.database.insert(rows) == .stored(inserted: 5, duplicates: 0))
        #expect(try test.database.diagnosticRows(build: 130) == [rows[0], rows[3], rows[4]])
        #expect(try test.database.diagnosticRows(build: nil) == [rows[0], rows[2], rows[3], rows[4]])
        #expect(try test.database.diagnosticRows(build: 129).isEmpty)
    }

    @Test func theMigrationUpgradesTheAppsEarlierTableKeepingItsRows() throws {
        let test = try TestDatabase(migrated: false)
        try test.database.runScript(try TestServer.migrationSQL("bare_database.sql"))
        // The table as the app's first migrations made it: docs/postgres.md, then YUI-107's row_key.
        try test.database.runScript(
            """
            create table public.yui_perf (
              id bigint generated always as identity primary key,
              user_id uuid not null references public.yui_users(id) on delete cascade,
              kind text not null check (kind in ('interval', 'memory', 'metrics', 'diagnostic')),
              name text not null check (name ~ '^[a-z][a-z0-9_]{1,40}$'),
              app_build int not null, app_version text not null, os text not null, device text not null,
              promotion boolean not null default false, low_power boolean not null default false,
              thermal smallint not null default 0,
              period_start timestamptz not null, period_end timestamptz not null,
              n int not null default 0, buckets int[], p50 real, p95 real, max real, value real, stack jsonb,
              created_at timestamptz not null default now(),
              check (period_end >= period_start));
            alter table public.yui_perf add column row_key uuid;
            alter table public.yui_perf add unique (user_id, row_key);
            insert into public.yui_users values ('\(SampleRows.user)');
            insert into public.yui_perf (user_id, kind, name, app_build, app_version, os, device,
                                         period_start, period_end, value)
              values ('\(SampleRows.user)', 'memory', 'mem_footprint', 125, '1.2', '26.6.2', 'iPhone17,2',
                      '2025-09-26T00:00:00Z', '2025-09-26T00:00:30Z', 316.5);
            """)
        try test.database.runScript(try TestServer.migrationSQL("yui_perf.sql"))
        try test.database.runScript(try TestServer.migrationSQL("yui_perf.sql"))

        let phoneRow = try #require(try test.database.rows().first)
        #expect(phoneRow.name == "mem_footprint" && phoneRow.value == 316.5 && phoneRow.row_key == "")
        let rows = [SampleRows.metric("hang_rate", buckets: SampleRows.eighteenBuckets, value: 0.1)]
        #expect(try test.database.insert(rows) == .stored(inserted: 1, duplicates: 0))
        #expect(try test.database.insert(rows) == .stored(inserted: 0, duplicates: 1))
        #expect(try test.database.rows(kind: .metrics) == rows)
        var forged = SampleRows.metric("hang_rate", buckets: [1])
        forged.row_key = UUID().uuidString.lowercased()
        guard case let .refused(refusals) = try test.database.insert([forged]) else {
            Issue.record("the upgraded table stored a row with 1 bucket")
            return
        }
        #expect(refusals.map(\.constraint) == ["yui_perf_buckets_18"])
    }

    /// `Row.kind` is a `RowKind`, so `load` cannot send a kind the table refuses; other writers (the
    /// app, through PostgREST) can, and the table's check refuses it.
    @Test func theKindCheckRefusesAKindNoRowKindHas() throws {
        let test = try TestDatabase()
        try test.database.createUsers([SampleRows.user])
        let error = try #require(throws: RowStoreError.self) {
            try test.database.runScript(
                """
                insert into public.yui_perf (user_id, row_key, kind, name, app_build, app_version, os, device, \
                period_start, period_end, n) values ('\(SampleRows.user)', gen_random_uuid(), 'gauge', 'hang', 130, \
                '1.4', '26.0', 'arm64', now(), now(), 1)
                """)
        }
        #expect(error.sqlState == "23514")
        #expect(error.message.contains("yui_perf_kind"))
        #expect(try test.database.rows().isEmpty)
    }

    @Test func aMissingTableIsAnErrorForTheWholeLoadNotARefusedRow() throws {
        let test = try TestDatabase()
        try test.database.runScript("drop table public.yui_perf")
        let error = try #require(throws: RowStoreError.self) {
            try test.database.insert([SampleRows.diagnostic("hang")])
        }
        #expect(error.sqlState == "42P01")
        #expect(error.message.contains("yui_perf"))
    }
}

/// One way to break each named check of `db/yui_perf.sql`, applied to a good diagnostic row.
enum CheckBreaker: String, CaseIterable, Sendable, CustomTestStringConvertible {
    case name, appVersion, os, device, period, bucketsEmpty, buckets19, stackEmpty, stack101, stackOnMetrics
    case unknownUser

    var constraint: String {
        switch self {
        case .name: "yui_perf_name"
        case .appVersion: "yui_perf_app_version"
        case .os: "yui_perf_os"
        case .device: "yui_perf_device"
        case .period: "yui_perf_period"
        case .bucketsEmpty, .buckets19: "yui_perf_buckets_18"
        case .stackEmpty, .stack101, .stackOnMetrics: "yui_perf_stack_frames"
        case .unknownUser: "yui_perf_user_fk"
        }
    }

    var testDescription: String { "\(rawValue) breaks \(constraint)" }

    func apply(to row: inout Row) {
        switch self {
        case .name: row.name = "Hang Rate"
        case .appVersion: row.app_version = "1.4 beta"
        case .os: row.os = "iPhone OS 17.2.1"
        case .device: row.device = "iPhone 17,2"
        case .period: row.period_end = "2024-02-29T00:00:00Z"
        case .bucketsEmpty: row.buckets = []
        case .buckets19: row.buckets = Array(repeating: 1, count: 19)
        case .stackEmpty: row.stack = []
        case .stack101: row.stack = Array(repeating: StackFrame(image: "Yui", uuid: nil, offset: 4), count: 101)
        case .stackOnMetrics: row.kind = .metrics
        case .unknownUser: row.user_id = "99999999-9999-4999-8999-999999999999"
        }
    }
}
