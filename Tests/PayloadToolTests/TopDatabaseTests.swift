import Foundation
import PayloadTool
import RowStore
import TestSupport
import Testing

/// `top --db` against a live PostgreSQL server (`scripts/with-postgres` sets
/// `YUI_PERF_TEST_DATABASE_URL`; `YUI_PERF_SKIP_DB=1` is the one way to leave it out).
@Suite(.enabled(if: ProcessInfo.processInfo.environment["YUI_PERF_SKIP_DB"] != "1"))
struct TopFromTheDatabase {
    static let user = "7E0F5C1A-2B3D-4E5F-8A9B-0C1D2E3F4A5B"

    @Test func ranksStoredRowsAsItRanksTheFilesTheyCameFrom() throws {
        let (url, drop) = try Self.migratedDatabase()
        defer { drop() }
        let files = try TopFixtures.all()
        let load = ToolRun.run(["load", "--db", url, "--user", Self.user, "--create-users"] + files)
        #expect(load.status == 0, "stderr: \(load.stderr)")

        let fromFiles = ToolRun.run(["top", "--dsyms", TopFixtures.dsyms, "--json", "--user", Self.user] + files)
        let fromDatabase = ToolRun.run(["top", "--dsyms", TopFixtures.dsyms, "--json", "--db", url])
        #expect(fromDatabase.status == 0, "stderr: \(fromDatabase.stderr)")
        #expect(fromDatabase.stdout == fromFiles.stdout)
        let text = ToolRun.run(["top", "--dsyms", TopFixtures.dsyms, "--build", "130", "--db", url, "--user", Self.user])
        #expect(text.stdout.hasPrefix("build 130\n  1. hang 2.5 s x1 (max 2.5 s)   yui.area <- Ledger.reserve"))
        // Another user's rows are not this user's ranking.
        let other = ToolRun.run(["top", "--db", url, "--user", "00000000-0000-4000-8000-000000000000"])
        #expect(other.status == 0)
        #expect(other.stdout.isEmpty)
    }

    /// The shipped samples hold builds with metric rows only: `top --db` lists them as `top` over the
    /// files does ("no hangs or crashes"), line for line.
    @Test func printsTheSameTextAsTopOverTheSamples() throws {
        let (url, drop) = try Self.migratedDatabase()
        defer { drop() }
        let samplesFolder = Repository.samples.path
        let samples = try FileManager.default.contentsOfDirectory(atPath: samplesFolder)
            .filter { $0.hasSuffix(".json") || $0.hasSuffix(".jsonl") }.sorted().map { samplesFolder + "/" + $0 }
        let load = ToolRun.run(["load", "--db", url, "--user", Self.user, "--create-users"] + samples)
        #expect(load.status == 0, "stderr: \(load.stderr)")
        let fromFiles = ToolRun.run(["top", "--dsyms", TopFixtures.dsyms, "--user", Self.user] + samples)
        let fromDatabase = ToolRun.run(["top", "--dsyms", TopFixtures.dsyms, "--db", url, "--user", Self.user])
        #expect(fromDatabase.status == 0, "stderr: \(fromDatabase.stderr)")
        #expect(fromDatabase.stdout.contains("no hangs or crashes"))
        #expect(fromDatabase.stdout == fromFiles.stdout)
    }

    /// A new database on the test server with the migration applied, and how to drop it.
    static func migratedDatabase() throws -> (url: String, drop: () -> Void) {
        let server = try #require(
            ProcessInfo.processInfo.environment["YUI_PERF_TEST_DATABASE_URL"].flatMap { $0.isEmpty ? nil : $0 },
            "YUI_PERF_TEST_DATABASE_URL is not set: run under scripts/with-postgres, or set YUI_PERF_SKIP_DB=1")
        let name = "yui_perf_top_" + UUID().uuidString.lowercased().replacingOccurrences(of: "-", with: "")
        var components = try #require(URLComponents(string: server))
        components.path = "/" + name
        let url = try #require(components.string)
        let admin = try RowDatabase(url: server)
        try admin.runScript("create database \(name)")
        let drop = { _ = try? admin.runScript("drop database if exists \(name) with (force)") }
        do {
            let database = try RowDatabase(url: url)
            for migration in ["bare_database.sql", "yui_perf.sql"] {
                try database.runScript(
                    try String(contentsOf: Repository.root.appendingPathComponent("db/\(migration)"), encoding: .utf8))
            }
        } catch {
            drop()
            throw error
        }
        return (url, drop)
    }

    @Test func anUnreachableDatabaseFailsTheRunAndSaysSo() {
        let result = ToolRun.run(["top", "--db", "postgresql:///nonexistent?host=/nonexistent-socket-dir"])
        #expect(result.status == 1)
        #expect(result.stderr.contains("--db"))
    }
}
