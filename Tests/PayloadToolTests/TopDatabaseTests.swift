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

    /// Rows a table without the current checks holds, or that its owner planted past them: `top
    /// --db` passes them over with an error naming the row (as a bad line of a row file), ranks the
    /// rest, and prints no control character; an image of `ESC ] 0 ; … BEL` used to retitle the
    /// terminal, and its `\r\n` forge a line of its own.
    @Test func rowsPlantedPastTheChecksAreNamedAndPrintNothingButText() throws {
        let (url, drop) = try Self.migratedDatabase()
        defer { drop() }
        let owner = try RowDatabase(url: url)
        try owner.runScript("insert into public.yui_users values ('\(Self.user.lowercased())')")
        // The frame check as the migration made it before it checked image names and UUIDs strictly (any string once passed).
        try owner.runScript(OlderMigrations.restoreFrameShapeCheck)
        let escape = "00000000-0000-4000-8000-0000000000e5"
        let lowerUUID = "00000000-0000-4000-8000-0000000000a1"
        let good = "00000000-0000-4000-8000-000000000001"
        try owner.runScript(Self.plant(key: good, stack: #"[{"image":"YuiApp","uuid":"4C4C4C4C-5555-3144-A1B2-000000000130","offset":16560}]"#))
        try owner.runScript(
            Self.plant(key: escape, stack: #"[{"image":"YuiApp\u001b]0;PWNED\u0007\r\nbuild 999\r\n  1. hang 99.0 s","offset":16560}]"#, seconds: 99))
        try owner.runScript(Self.plant(key: lowerUUID, stack: #"[{"image":"YuiApp","uuid":"4c4c4c4c-5555-3144-a1b2-000000000130","offset":16560}]"#))
        // And past every check: a table without them.
        try owner.runScript(
            """
            alter table public.yui_perf drop constraint yui_perf_stack_frame_shape;
            alter table public.yui_perf drop constraint yui_perf_device;
            """)
        let negative = "00000000-0000-4000-8000-0000000000ff"
        let device = "00000000-0000-4000-8000-0000000000de"
        try owner.runScript(Self.plant(key: negative, stack: #"[{"image":"YuiApp","offset":-1}]"#))
        try owner.runScript(Self.plant(key: device, stack: #"[{"image":"YuiApp","offset":16560}]"#, device: #"E'iPhone17,2\x1b[2J'"#))

        for mode in [[], ["--folded"], ["--json"]] {
            let run = try ToolBinary.run(["top", "--dsyms", TopFixtures.dsyms, "--db", url] + mode)
            #expect(run.status == 1, "\(mode): \(run.stderr)")
            let bytes = Array(run.stdout.utf8)
            #expect(!bytes.contains { ($0 < 0x20 && $0 != 0x0A) || $0 == 0x7F }, "\(mode): \(run.stdout.debugDescription)")
            #expect(!run.stdout.unicodeScalars.contains { (0x80...0x9F).contains($0.value) })
            #expect(!run.stdout.contains("999") && !run.stdout.contains("PWNED"), "\(mode): \(run.stdout)")
            // The good row and the one whose UUID only needed its case made canonical.
            if mode.isEmpty { #expect(run.stdout.hasPrefix("build 130\n  1. hang 3.0 s x2 on 1 phone (max 1.5 s)"), "\(run.stdout)") }
            for (key, reason) in [
                (escape, "image 'YuiApp\\u{1B}]0;PWNED\\u{7}\\u{D}\\u{A}build 999"), (negative, "column stack holds"),
                (device, "device 'iPhone17,2\\u{1B}[2J'"),
            ] {
                let line = run.stderr.split(separator: "\n").first { $0.contains("(row_key \(key))") }
                #expect(line?.hasPrefix("error: --db: row id ") == true, "\(mode) \(key): \(run.stderr)")
                #expect(line?.contains(reason) == true, "\(mode) \(key): \(line ?? "")")
            }
            #expect(!run.stderr.contains("\u{1B}"), "\(mode): \(run.stderr.debugDescription)")
            #expect(!run.stderr.contains(lowerUUID) && !run.stderr.contains(good))
        }
    }

    /// One hang row of build 130 for `user`, its stack given as JSON and its device as SQL.
    static func plant(key: String, stack: String, seconds: Double = 1.5, device: String = "'iPhone17,2'") -> String {
        """
        insert into public.yui_perf (user_id, row_key, kind, name, app_build, app_version, os, device,
                                     period_start, period_end, n, value, stack)
        values ('\(user.lowercased())', '\(key)', 'diagnostic', 'hang', 130, '2.1.0', '18.3.1', \(device),
                '2025-03-02T18:15:40Z', '2025-03-02T18:15:40Z', 1, \(seconds), '\(stack)'::jsonb)
        """
    }

    @Test func anUnreachableDatabaseFailsTheRunAndSaysSo() {
        let result = ToolRun.run(["top", "--db", "postgresql:///nonexistent?host=/nonexistent-socket-dir"])
        #expect(result.status == 1)
        #expect(result.stderr.contains("--db"))
    }
}
