import Foundation
import PayloadDecode
import RowStore
import TestSupport
import Testing

/// The live server the tests use, from `YUI_PERF_TEST_DATABASE_URL` (set by `scripts/with-postgres`,
/// which `scripts/test` and `.ci/run` go through).
enum TestServer {
    static let urlVariable = "YUI_PERF_TEST_DATABASE_URL"

    /// `YUI_PERF_SKIP_DB=1` is the one way to leave the database tests out; otherwise a missing
    /// server fails them.
    static var isSkipped: Bool { ProcessInfo.processInfo.environment["YUI_PERF_SKIP_DB"] == "1" }

    static func url() throws -> String {
        try #require(
            ProcessInfo.processInfo.environment[urlVariable].flatMap { $0.isEmpty ? nil : $0 },
            """
            \(urlVariable) is not set: run the tests with a server, `scripts/with-postgres swift test` \
            (scripts/test does), or set YUI_PERF_SKIP_DB=1 to leave the database tests out
            """)
    }

    static func migrationSQL(_ name: String) throws -> String {
        try String(contentsOf: Repository.root.appendingPathComponent("db/\(name)"), encoding: .utf8)
    }
}

/// A fresh database on the test server with `db/bare_database.sql` and `db/yui_perf.sql` applied,
/// dropped again when the value goes away, so tests run in parallel and leave nothing behind.
final class TestDatabase {
    let name: String
    /// The URL of this database (the server's URL with the database name replaced).
    let url: String
    let database: RowDatabase
    private let serverURL: String

    /// - Parameter migrated: `false` leaves the database empty, for a test that builds an older table first.
    init(migrated: Bool = true) throws {
        serverURL = try TestServer.url()
        name = "yui_perf_test_" + UUID().uuidString.lowercased().replacingOccurrences(of: "-", with: "")
        var components = try #require(URLComponents(string: serverURL), "\(TestServer.urlVariable) is not a URL")
        components.path = "/" + name
        url = try #require(components.string)
        let server = try RowDatabase(url: serverURL)
        try server.runScript("create database \(name)")
        database = try RowDatabase(url: url)
        if migrated {
            try database.runScript(try TestServer.migrationSQL("bare_database.sql"))
            try database.runScript(try TestServer.migrationSQL("yui_perf.sql"))
        }
    }

    private var roles: [String] = []

    /// A role of its own that must log in with a password (scripts/with-postgres asks members of
    /// `yui_perf_password_login` for one), allowed to load rows into this database's table.
    /// - Returns: the role's name and password.
    func passwordRole() throws -> (name: String, password: String) {
        let role = "yui_perf_probe_" + UUID().uuidString.prefix(8).lowercased()
        let password = "pw-" + UUID().uuidString.lowercased()
        roles.append(role)
        try database.runScript(
            """
            create role \(role) login bypassrls password '\(password)' in role yui_perf_password_login;
            grant select, insert on public.yui_perf to \(role);
            """)
        return (role, password)
    }

    /// A role that logs in without a password (the socket trusts it) as a member of `yui_user`, with
    /// `yui.uid` set to `user`: the table's row level security applies to it, and lets it store and
    /// read `user`'s rows only, as the phone does.
    /// - Returns: the role's name.
    func rowLevelSecurityRole(user: String) throws -> String {
        let role = "yui_perf_rls_" + UUID().uuidString.prefix(8).lowercased()
        roles.append(role)
        try database.runScript(
            """
            create role \(role) login in role yui_user;
            alter role \(role) in database \(name) set yui.uid = '\(user)';
            """)
        return role
    }

    /// This database's URL for another role, with or without a password in it.
    func url(role: String, password: String?) throws -> String {
        var components = try #require(URLComponents(string: url))
        components.user = role
        components.password = password
        components.queryItems = components.queryItems?.filter { $0.name != "user" }
        return try #require(components.string)
    }

    deinit {
        if let server = try? RowDatabase(url: serverURL) {
            try? server.runScript("drop database if exists \(name) with (force)")
            for role in roles { try? server.runScript("drop role if exists \(role)") }
        }
    }
}

/// Rows built in the tests: one of each kind the converter makes, values chosen to catch lossy columns.
enum SampleRows {
    static let user = "5b1e3c1a-7a0e-4d8e-9a43-2f1c0d9b6e71"

    static func metric(
        _ name: String, key: String = UUID().uuidString.lowercased(), build: Int = 130,
        buckets: [Int]? = nil, value: Double? = nil, user: String? = SampleRows.user
    ) -> Row {
        Row(
            user_id: user, row_key: key, kind: .metrics, name: name, app_build: build, app_version: "1.4.2",
            os: "17.2.1", device: "iPhone17,2", promotion: true, low_power: false, thermal: 0,
            period_start: "2024-03-01T04:00:00Z", period_end: "2024-03-02T03:59:59Z",
            n: buckets?.reduce(0, +) ?? 1, buckets: buckets,
            p50: buckets == nil ? nil : 12.5, p95: buckets == nil ? nil : 0.1 + 0.2, max: buckets == nil ? nil : 250,
            value: value, stack: nil)
    }

    static func diagnostic(
        _ name: String, key: String = UUID().uuidString.lowercased(), build: Int = 130, seconds: Double? = 1.25,
        stack: [StackFrame]? = SampleRows.stack
    ) -> Row {
        Row(
            user_id: user, row_key: key, kind: .diagnostic, name: name, app_build: build, app_version: "1.4",
            os: "26.0", device: "arm64", promotion: false, low_power: true, thermal: 2,
            period_start: "2024-03-01T10:15:30.25Z", period_end: "2024-03-01T10:15:30.25Z",
            n: 1, buckets: nil, p50: nil, p95: nil, max: nil, value: seconds, stack: stack)
    }

    static let stack = [
        StackFrame(image: "Yui", uuid: "0C2E4F1A-8B3D-4E5F-9A1B-2C3D4E5F6A7B", offset: 0x1_2345),
        StackFrame(image: "libswift_Concurrency.dylib", uuid: nil, offset: 18_446_744_073_709_551_615),
        StackFrame(image: nil, uuid: nil, offset: 0),
    ]

    static let eighteenBuckets = [0, 3, 10, 7, 4, 2, 1, 0, 0, 5, 0, 0, 1, 0, 0, 0, 0, 1]
}
