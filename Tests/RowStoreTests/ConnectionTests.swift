import Foundation
import RowStore
import Testing

@Suite struct ConnectionTests {
    @Test(.enabled(if: !TestServer.isSkipped, "YUI_PERF_SKIP_DB=1"))
    func aPasswordComesFromTheURLOrPGPASSWORDOrAPasswordFileAndAWrongOneIsReportedWithoutIt() throws {
        let test = try TestDatabase()
        let (role, password) = try test.passwordRole()

        let wrong = "wrong-" + password
        let error = try #require(throws: RowStoreError.self, "the server let \(role) in with a wrong password") {
            try RowDatabase(url: try test.url(role: role, password: wrong))
        }
        #expect(error.message.contains("password authentication failed"))
        #expect(error.message.contains("\(role):***@"))
        #expect(!error.message.contains(wrong))

        #expect(try RowDatabase(url: try test.url(role: role, password: password)).rows().isEmpty)

        // Without a password in the URL, libpq takes it from PGPASSWORD, else from the password file.
        // (The other tests log in by trust, where libpq sends no password, so these settings are
        // harmless to them while they run in parallel.)
        let bareURL = try test.url(role: role, password: nil)
        setenv("PGPASSWORD", password, 1)
        #expect(try RowDatabase(url: bareURL).rows().isEmpty)
        unsetenv("PGPASSWORD")
        let scratch = try ScratchDirectory()
        let passFile = try scratch.file("pgpass", "*:*:*:\(role):\(password)\n")
        chmod(passFile, 0o600)
        setenv("PGPASSFILE", passFile, 1)
        #expect(try RowDatabase(url: bareURL).rows().isEmpty)
        unsetenv("PGPASSFILE")
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
