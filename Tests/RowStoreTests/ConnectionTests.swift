import Foundation
import RowStore
import Testing

@Suite struct ConnectionTests {
    /// `scripts/with-postgres` makes this role log in with a password (scram-sha-256) and every other
    /// role with none, so the tests can check what a password does and that it never shows.
    static let probeRole = "yui_perf_password_probe"

    @Test(.enabled(if: !TestServer.isSkipped, "YUI_PERF_SKIP_DB=1"))
    func aPasswordInTheURLLogsInAndAWrongOneIsReportedWithoutIt() throws {
        let test = try TestDatabase()
        let password = "pr0be-" + UUID().uuidString.prefix(8)
        // Roles belong to the server, not the database: another run may have made it already.
        try test.database.runScript("""
            do $$ begin create role \(Self.probeRole) login;
            exception when duplicate_object or unique_violation then null; end $$;
            alter role \(Self.probeRole) password '\(password)';
            grant select on public.yui_perf to \(Self.probeRole);
            """)
        var components = try #require(URLComponents(string: test.url))
        components.user = Self.probeRole
        components.queryItems = components.queryItems?.filter { $0.name != "user" }

        components.password = String(password)
        let rightURL = try #require(components.string)
        #expect(try RowDatabase(url: rightURL).rows().isEmpty)

        // Without a password in the URL, libpq takes it from PGPASSWORD, else from the password file.
        // (The other tests log in by trust, where libpq sends no password, so these settings are harmless to them.)
        components.password = nil
        let bareURL = try #require(components.string)
        setenv("PGPASSWORD", String(password), 1)
        #expect(try RowDatabase(url: bareURL).rows().isEmpty)
        unsetenv("PGPASSWORD")
        let scratch = try ScratchDirectory()
        let passFile = try scratch.file("pgpass", "*:*:*:\(Self.probeRole):\(password)\n")
        chmod(passFile, 0o600)
        setenv("PGPASSFILE", passFile, 1)
        #expect(try RowDatabase(url: bareURL).rows().isEmpty)
        unsetenv("PGPASSFILE")

        components.password = "wrong-" + String(password)
        let wrongURL = try #require(components.string)
        let error = try #require(throws: RowStoreError.self) { try RowDatabase(url: wrongURL) }
        #expect(error.message.contains("password authentication failed"))
        #expect(error.message.contains(":***@"))
        #expect(!error.message.contains(String(password)))
    }

    @Test func aServerThatIsNotThereIsAnErrorNamingTheRedactedURL() {
        // Port 1 on the loopback: nothing listens there, so the connection is refused at once.
        let error = #expect(throws: RowStoreError.self) {
            try RowDatabase(url: "postgresql://loader:s3cret@127.0.0.1:1/postgres?connect_timeout=5")
        }
        #expect(error?.message.hasPrefix("cannot connect to postgresql://loader:***@127.0.0.1:1/postgres") == true)
        #expect(error?.message.contains("s3cret") == false)
    }
}
