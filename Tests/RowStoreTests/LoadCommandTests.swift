import Foundation
import PayloadDecode
import PayloadTool
import RowStore
import TestSupport
import Testing

/// A temp directory removed when the value goes away.
final class ScratchDirectory {
    let url: URL
    init() throws {
        url = FileManager.default.temporaryDirectory.appendingPathComponent("yui-perf-load-" + UUID().uuidString)
        try FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
    }
    func file(_ name: String, _ contents: String) throws -> String {
        let path = url.appendingPathComponent(name).path
        try contents.write(toFile: path, atomically: true, encoding: .utf8)
        return path
    }
    deinit { try? FileManager.default.removeItem(at: url) }
}

/// Rows as a row file (JSON Lines, one row object a line).
func rowFile(_ rows: [Row]) throws -> String {
    let encoder = JSONEncoder()
    encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
    return try rows.map { String(decoding: try encoder.encode($0), as: UTF8.self) }.joined(separator: "\n") + "\n"
}

/// Every row of an input, as `RowSource` reads it.
func readRows(_ path: String, user: String? = nil) -> (rows: [Row], diagnostics: [InputDiagnostic]) {
    var rows: [Row] = []
    var diagnostics: [InputDiagnostic] = []
    RowSource.readRows(
        path: path, options: ConversionOptions(userID: user), report: { diagnostics.append($0) },
        emit: { rows.append($0) })
    return (rows, diagnostics)
}

@Suite struct LoadCommandUsageTests {
    @Test func helpFollowsTheLayoutAndGoesToStandardOutput() {
        let outcome = ToolRun.run(["load", "--help"])
        #expect(outcome.status == 0)
        #expect(outcome.stderr.isEmpty)
        for section in ["OVERVIEW:", "USAGE: payload-tool load --db URL", "ARGUMENTS:", "OPTIONS:", "--batch-size"] {
            #expect(outcome.stdout.contains(section))
        }
    }

    @Test(arguments: [
        (["load", "samples/x.json"], "Missing expected argument '--db URL'."),
        (["load", "--db", "postgresql:///x"], "Missing input: give files or folders, '-' for standard input, or '--from-list FILE'."),
        (["load", "--db", "postgresql:///x", "--user", "me", "a.json"], "Invalid value 'me' for '--user': not a UUID"),
        (["load", "--db", "postgresql:///x", "--batch-size", "0", "a.json"], "The value '0' is invalid for '--batch-size N'"),
        (["load", "--db", "postgresql:///x", "--timezone", "Mars/Olympus", "a.json"], "Invalid value 'Mars/Olympus' for '--timezone'"),
        (["load", "--db", "postgresql:///x", "--frobnicate", "a.json"], "Unknown option '--frobnicate'."),
    ])
    func aUsageErrorExits64AndSaysWhatIsWrong(arguments: [String], message: String) {
        let outcome = ToolRun.run(arguments)
        #expect(outcome.status == 64)
        #expect(outcome.stdout.isEmpty)
        #expect(outcome.stderr.hasPrefix("Error: \(message)"))
        #expect(outcome.stderr.contains("See 'payload-tool load --help'"))
    }

    @Test func aServerThatCannotBeReachedExits1NamingTheURLWithoutItsPassword() {
        let outcome = ToolRun.run(["load", "--db", "postgresql://loader:s3cret@127.0.0.1:1/postgres", "a.json"])
        #expect(outcome.status == 1)
        #expect(outcome.stdout.isEmpty)
        #expect(outcome.stderr.hasPrefix("error: cannot connect to postgresql://loader:***@127.0.0.1:1/postgres: "))
        #expect(!outcome.stderr.contains("s3cret"))
    }
}

@Suite(.enabled(if: !TestServer.isSkipped, "YUI_PERF_SKIP_DB=1"))
struct LoadCommandTests {
    static let user = "3f0c8a52-9d4e-4b1a-8c6f-1e2d3c4b5a69"

    /// The shipped samples, every dump in `samples/` (`.json` and `.jsonl`; the folder also holds their generator).
    static func samples() throws -> [String] {
        let folder = Repository.samples
        let names = try FileManager.default.contentsOfDirectory(atPath: folder.path)
            .filter { $0.hasSuffix(".json") || $0.hasSuffix(".jsonl") }.sorted()
        try #require(!names.isEmpty, "no samples in \(folder.path)")
        return names.map { folder.appendingPathComponent($0).path }
    }

    @Test func everySampleLoadsOnceAndReadsBackAsItsRowsFile() throws {
        let test = try TestDatabase()
        let scratch = try ScratchDirectory()
        let samples = try Self.samples()

        // What `rows` makes of the samples is what the table must end up holding.
        let converted = ToolRun.run(["rows", "--user", Self.user] + samples)
        try #require(converted.status == 0, "rows failed: \(converted.stderr)")
        let rowsFile = try scratch.file("rows.json", converted.stdout)
        let expected = readRows(rowsFile)
        try #require(expected.diagnostics.isEmpty, "the rows file does not read back: \(expected.diagnostics)")
        try #require(!expected.rows.isEmpty)

        // A dump may repeat a payload another one holds (sent at least once): the table keeps the first.
        var seen: Set<String> = []
        let unique = expected.rows.filter { seen.insert("\($0.user_id ?? "") \($0.row_key)").inserted }
        let total = expected.rows.count

        let first = ToolRun.run(["load", "--db", test.url, "--user", Self.user, "--create-users"] + samples)
        #expect(first.status == 0, "\(first.stderr)")
        #expect(first.stderr.isEmpty)
        #expect(
            first.stdout.hasSuffix(
                "total: \(total) rows: \(unique.count) inserted, \(total - unique.count) duplicate, 0 not stored\n"))

        // The same dumps again, and the rows file made from them: nothing new.
        let again = ToolRun.run(["load", "--db", test.url, "--user", Self.user] + samples + [rowsFile])
        #expect(again.status == 0, "\(again.stderr)")
        #expect(again.stdout.hasSuffix("total: \(total * 2) rows: 0 inserted, \(total * 2) duplicate, 0 not stored\n"))

        // Column by column, in the order loaded.
        let stored = try test.database.rows()
        #expect(stored.count == unique.count)
        for (index, (read, written)) in zip(stored, unique).enumerated() {
            #expect(read == written, "row \(index + 1) of the rows file (without repeats) differs in the table")
        }
        // What `top --db` reads is what `top` reads from the file.
        #expect(try test.database.diagnosticRows(build: nil) == unique.filter { $0.kind == .diagnostic })
    }

    @Test func aBatchTheTableRefusesRollsBackAloneAndTheOtherBatchesLoad() throws {
        let test = try TestDatabase()
        try test.database.createUsers([SampleRows.user])
        let scratch = try ScratchDirectory()
        var stranger = SampleRows.diagnostic("crash", key: "00000000-0000-4000-8000-000000000004", seconds: nil)
        stranger.user_id = "99999999-9999-4999-8999-999999999999"  // not in yui_users
        let rows = [
            SampleRows.metric("fg_time", value: 1), SampleRows.metric("cpu_time", value: 2),
            SampleRows.metric("mem_peak", value: 3), stranger,
            SampleRows.diagnostic("hang"), SampleRows.diagnostic("hang", seconds: 0.5),
        ]
        let path = try scratch.file("rows.jsonl", try rowFile(rows))

        let outcome = ToolRun.run(["load", "--db", test.url, "--batch-size", "2", path])
        #expect(outcome.status == 1)
        #expect(outcome.stdout == "\(path): 6 rows: 4 inserted, 0 duplicate, 2 not stored\n")
        let refusal = """
            error: \(path): batch 2 (rows 3-4): insert or update on table "yui_perf" violates foreign key \
            constraint "yui_perf_user_fk" (row 4, row_key 00000000-0000-4000-8000-000000000004); \
            user 99999999-9999-4999-8999-999999999999 is not in yui_users \
            (on a test database, --create-users adds it)

            """
        #expect(outcome.stderr == refusal + "error: \(path): batch 2 (rows 3-4): rolled back, none of its 2 rows stored\n")
        #expect(try test.database.rows() == [rows[0], rows[1], rows[4], rows[5]])
    }

    @Test func aRowBreakingACheckIsReportedAndTheRestLoad() throws {
        let test = try TestDatabase()
        try test.database.createUsers([SampleRows.user])
        let scratch = try ScratchDirectory()
        var forged = SampleRows.metric("hang_rate", buckets: Array(SampleRows.eighteenBuckets.dropLast()))
        forged.row_key = "00000000-0000-4000-8000-000000000017"
        let rows = [SampleRows.metric("fg_time", value: 1), forged, SampleRows.diagnostic("hang")]
        let path = try scratch.file("rows.jsonl", try rowFile(rows))

        let outcome = ToolRun.run(["load", "--db", test.url, path])
        #expect(outcome.status == 1)
        // The reader or the table refuses it, whichever comes first; either way it names the rule and the row.
        #expect(outcome.stderr.contains("error: \(path): "))
        #expect(outcome.stderr.contains("18") || outcome.stderr.contains("yui_perf_buckets_18"))
        let stored = try test.database.rows()
        #expect(!stored.contains(forged))
        #expect(stored.contains(rows[0]) && stored.contains(rows[2]))
    }

    @Test func aRowWithoutAUserIsNotStoredAndTheOthersAre() throws {
        let test = try TestDatabase()
        let scratch = try ScratchDirectory()
        var anonymous = SampleRows.metric("cpu_time", key: "00000000-0000-4000-8000-0000000000aa", value: 9, user: nil)
        anonymous.user_id = nil
        let rows = [SampleRows.metric("fg_time", value: 1), anonymous]
        let path = try scratch.file("rows.jsonl", try rowFile(rows))

        let outcome = ToolRun.run(["load", "--db", test.url, "--create-users", path])
        #expect(outcome.status == 1)
        #expect(
            outcome.stderr == """
                error: \(path): row 2: no user_id (convert payload dumps with --user UUID) \
                (row_key 00000000-0000-4000-8000-0000000000aa)

                """)
        #expect(outcome.stdout == "\(path): 2 rows: 1 inserted, 0 duplicate, 1 not stored\n")
        #expect(try test.database.rows() == [rows[0]])
    }
}

@Suite(.enabled(if: !TestServer.isSkipped, "YUI_PERF_SKIP_DB=1"))
struct LoadBinaryTests {
    @Test func theExecutableLoadsWithThePasswordFromPGPASSWORDAndNeverPrintsIt() throws {
        let test = try TestDatabase()
        try test.database.createUsers([SampleRows.user])
        let (role, password) = try test.passwordRole()
        let scratch = try ScratchDirectory()
        var forged = SampleRows.diagnostic("hang", key: "00000000-0000-4000-8000-0000000000ff")
        forged.user_id = "99999999-9999-4999-8999-999999999999"
        let rows = [SampleRows.metric("fg_time", value: 3600), SampleRows.diagnostic("hang")]
        let path = try scratch.file("rows.jsonl", try rowFile(rows))
        let forgedPath = try scratch.file("forged.jsonl", try rowFile([forged]))

        let loaded = try ToolBinary.run(
            ["load", "--db", try test.url(role: role, password: nil), path], environment: ["PGPASSWORD": password])
        #expect(loaded.status == 0, "\(loaded.stderr)")
        #expect(loaded.stdout == "\(path): 2 rows: 2 inserted, 0 duplicate, 0 not stored\n")
        #expect(try test.database.rows() == rows)

        // A password in the URL, and a run with something to complain about: the password shows nowhere.
        let urlWithPassword = try test.url(role: role, password: password)
        let refused = try ToolBinary.run(["load", "--db", urlWithPassword, path, forgedPath])
        #expect(refused.status == 1)
        #expect(refused.stdout.hasSuffix("total: 3 rows: 0 inserted, 2 duplicate, 1 not stored\n"))
        #expect(refused.stderr.contains("yui_perf_user_fk"))
        let badPassword = try ToolBinary.run(["load", "--db", try test.url(role: role, password: "x" + password), path])
        #expect(badPassword.status == 1)
        #expect(badPassword.stderr.contains("\(role):***@"))
        for outcome in [loaded, refused, badPassword] {
            #expect(!outcome.stdout.contains(password) && !outcome.stderr.contains(password))
        }
    }
}

/// `load --timeout`: a table locked by another session, or a server that never answers, ends the
/// load with exit 1 and a message, in about the time given, never a wait without end.
@Suite(.enabled(if: !TestServer.isSkipped, "YUI_PERF_SKIP_DB=1"))
struct LoadTimeoutTests {
    @Test func aTableLockedByAnotherSessionEndsTheLoadAfterTheTimeout() throws {
        let test = try TestDatabase()
        let holder = try RowDatabase(url: test.url)
        // Another session holds the table (its transaction stays open) until this test ends.
        try holder.runScript("BEGIN; LOCK TABLE yui_perf IN ACCESS EXCLUSIVE MODE;")
        defer { try? holder.runScript("ROLLBACK") }
        let sample = Repository.samples.appendingPathComponent("metrics-ios16.json").path
        let started = Date()
        let outcome = ToolRun.run(["load", "--db", test.url, "--user", LoadCommandTests.user, "--create-users", "--timeout", "2", sample])
        let took = Date().timeIntervalSince(started)
        #expect(outcome.status == 1)
        #expect(outcome.stderr.contains("lock timeout"), "\(outcome.stderr)")
        #expect(took < 15, "took \(took) s")
    }

    @Test func aServerThatNeverAnswersEndsTheLoadAfterTheTimeout() throws {
        // A socket that listens and never accepts: the connection is made by the kernel, then
        // nothing answers libpq's startup message.
        let listener = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        try #require(listener >= 0)
        defer { close(listener) }
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        address.sin_port = 0
        let bound = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(listener, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) }
        }
        try #require(bound == 0 && listen(listener, 4) == 0)
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        _ = withUnsafeMutablePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { getsockname(listener, $0, &length) }
        }
        let port = UInt16(bigEndian: address.sin_port)
        let sample = Repository.samples.appendingPathComponent("metrics-ios16.json").path
        let started = Date()
        let outcome = ToolRun.run([
            "load", "--db", "postgresql://nobody@127.0.0.1:\(port)/none?sslmode=disable", "--user", LoadCommandTests.user,
            "--timeout", "2", sample,
        ])
        let took = Date().timeIntervalSince(started)
        #expect(outcome.status == 1)
        #expect(outcome.stderr.contains("cannot connect to postgresql://nobody@127.0.0.1:\(port)/none"), "\(outcome.stderr)")
        #expect(took < 15, "took \(took) s")
    }
}

/// Batches stream with COPY into a session table, then move with one INSERT ... SELECT: a value the
/// table's types refuse in the middle of the stream rolls the batch back and is named alone.
@Suite(.enabled(if: !TestServer.isSkipped, "YUI_PERF_SKIP_DB=1"))
struct CopyStreamTests {
    @Test func aRowRefusedInTheMiddleOfTheCopyIsNamedAndNothingIsStored() throws {
        let test = try TestDatabase()
        try test.database.createUsers([SampleRows.user])
        var rows = (0..<60).map { SampleRows.metric("fg_time", key: String(format: "00000000-0000-4000-8000-%012d", $0), value: Double($0)) }
        // Year 0 passes the reader's ISO check; PostgreSQL's timestamptz input refuses it.
        rows[30].period_start = "0000-01-01T00:00:00Z"
        let outcome = try test.database.insert(rows)
        guard case .refused(let refused) = outcome else {
            Issue.record("expected the batch to be refused, got \(outcome)")
            return
        }
        #expect(refused.map(\.index) == [30])
        #expect(refused.first?.message.contains("out of range") == true, "\(refused)")
        #expect(try test.database.rows().isEmpty)
        // Without it the other 59 load, and again as duplicates; every character a frame's image may
        // hold travels through COPY's text format unchanged. (Tabs, backslashes and newlines, which
        // COPY escapes, fit no column the table's checks allow since its frame rules became strict;
        // the loader still escapes them.)
        rows.remove(at: 30)
        var awkward = SampleRows.diagnostic("hang", key: "00000000-0000-4000-8000-0000000000ff")
        awkward.stack = [StackFrame(image: "Yui_Kit-2.0+beta", uuid: nil, offset: 7)]
        rows.append(awkward)
        #expect(try test.database.insert(rows) == .stored(inserted: 60, duplicates: 0))
        #expect(try test.database.insert(rows) == .stored(inserted: 0, duplicates: 60))
        let stored = try test.database.rows()
        #expect(stored.count == 60)
        #expect(stored.contains(awkward))
    }

    @Test func aRowRefusedInTheMiddleOfACopyStreamOfTheLoadCommandIsNamedAndItsBatchRollsBackAlone() throws {
        let test = try TestDatabase()
        try test.database.createUsers([SampleRows.user])
        let scratch = try ScratchDirectory()
        var rows = (0..<1200).map { index in
            SampleRows.diagnostic("hang", key: String(format: "00000000-0000-4000-8000-%012d", index), seconds: Double(index))
        }
        let good = rows[599]
        // Row 600, in the middle of batch 2 (rows 401-800): year 0 passes the reader's checks, and
        // PostgreSQL's timestamptz input refuses it.
        rows[599].period_start = "0000-01-01T00:00:00Z"
        let path = try scratch.file("rows.jsonl", try rowFile(rows))

        let outcome = ToolRun.run(["load", "--db", test.url, "--batch-size", "400", path])
        #expect(outcome.status == 1)
        #expect(outcome.stdout == "\(path): 1200 rows: 800 inserted, 0 duplicate, 400 not stored\n")
        let lines = outcome.stderr.split(separator: "\n").map(String.init)
        #expect(lines.count == 2, "\(outcome.stderr)")
        #expect(lines.first?.hasPrefix("error: \(path): batch 2 (rows 401-800): ") == true, "\(outcome.stderr)")
        #expect(lines.first?.hasSuffix("(row 600, row_key 00000000-0000-4000-8000-000000000599)") == true, "\(outcome.stderr)")
        #expect(lines.first?.contains("out of range") == true, "\(outcome.stderr)")
        #expect(lines.last == "error: \(path): batch 2 (rows 401-800): rolled back, none of its 400 rows stored")
        #expect(try test.database.rows() == Array(rows[0..<400]) + Array(rows[800...]))

        // Mended, the same file stores the batch that was refused and counts the rest as duplicates.
        rows[599] = good
        let mended = try scratch.file("mended.jsonl", try rowFile(rows))
        let again = ToolRun.run(["load", "--db", test.url, "--batch-size", "400", mended])
        #expect(again.status == 0, "\(again.stderr)")
        #expect(again.stdout == "\(mended): 1200 rows: 400 inserted, 800 duplicate, 0 not stored\n")
        #expect(Set(try test.database.rows()) == Set(rows))
    }

    @Test func theFirstOfTwoRowsWithOneKeyIsKeptWhateverTheCaseOfTheKey() throws {
        let test = try TestDatabase()
        try test.database.createUsers([SampleRows.user])
        let first = SampleRows.metric("fg_time", key: "0000000a-0000-4000-8000-00000000000b", value: 1)
        var second = SampleRows.metric("fg_time", key: "0000000A-0000-4000-8000-00000000000B", value: 2)
        second.user_id = SampleRows.user.uppercased()
        let other = SampleRows.metric("cpu_time", value: 3)
        #expect(try test.database.insert([first, other, second]) == .stored(inserted: 2, duplicates: 1))
        #expect(try test.database.rows() == [first, other])
        // Already stored: a batch of new and old rows sends only the new one.
        let new = SampleRows.metric("mem_peak", value: 4)
        #expect(try test.database.insert([second, new, other]) == .stored(inserted: 1, duplicates: 2))
        #expect(try test.database.rows() == [first, other, new])
    }

    /// Another session stores one of the batch's rows after the batch looked its keys up and before
    /// its COPY commits: the COPY fails on the unique index, and the batch goes through the session
    /// table with ON CONFLICT, so the row is stored once (the other session's) and counted as a duplicate.
    @Test func aRowAnotherSessionStoresDuringTheCopyIsStoredOnceAndCountedAsADuplicate() throws {
        let test = try TestDatabase()
        try test.database.createUsers([SampleRows.user])
        let rows = (0..<50).map { SampleRows.metric("fg_time", key: String(format: "00000000-0000-4000-8000-%012d", $0), value: Double($0)) }
        // The other session's insert of row 20's key waits, uncommitted, so the lookup cannot see it
        // and the COPY must wait for it on the unique index.
        let other = try RowDatabase(url: test.url)
        try other.runScript(
            """
            begin;
            insert into public.yui_perf (user_id, row_key, kind, name, app_build, app_version, os, device,
                                         period_start, period_end, value)
            values ('\(SampleRows.user)', '\(rows[20].row_key)', 'metrics', 'fg_time', 130, '1.4.2', '17.2.1',
                    'iPhone17,2', '2024-03-01T04:00:00Z', '2024-03-02T03:59:59Z', 999);
            """)
        let loader = ConcurrentInsert(url: test.url, rows: rows)
        loader.start()
        // Until the loader's COPY waits for the other session's row (at most 30 s).
        let watcher = try RowDatabase(url: test.url)
        try watcher.runScript(
            """
            do $$
            begin
              for attempt in 1 .. 600 loop
                perform pg_stat_clear_snapshot();  -- else the first look is kept for the transaction
                if exists (select 1 from pg_stat_activity
                           where datname = current_database() and wait_event_type = 'Lock'
                             and query like 'copy public.yui_perf%') then
                  return;
                end if;
                perform pg_sleep(0.05);
              end loop;
              raise exception 'the loader never waited for the other session''s row';
            end
            $$;
            """)
        try other.runScript("commit")
        let outcome = try loader.wait()
        #expect(outcome == .stored(inserted: 49, duplicates: 1))
        let stored = try test.database.rows()
        #expect(stored.count == 50)
        #expect(stored.filter { $0.row_key == rows[20].row_key }.map(\.value) == [999])
        #expect(Set(stored.filter { $0.row_key != rows[20].row_key }) == Set(rows.filter { $0.row_key != rows[20].row_key }))
    }

    /// A login under the table's row level security may not COPY into it: its rows go through the
    /// session table with INSERT, as before, and the policies decide.
    @Test func aLoginUnderRowLevelSecurityLoadsThroughTheSessionTable() throws {
        let test = try TestDatabase()
        try test.database.createUsers([SampleRows.user])
        let role = try test.rowLevelSecurityRole(user: SampleRows.user)
        let scratch = try ScratchDirectory()
        let rows = (0..<30).map { SampleRows.metric("fg_time", key: String(format: "00000000-0000-4000-8000-%012d", $0), value: Double($0)) }
        let path = try scratch.file("rows.jsonl", try rowFile(rows))
        let url = try test.url(role: role, password: nil)

        let first = ToolRun.run(["load", "--db", url, "--batch-size", "7", path])
        #expect(first.status == 0, "\(first.stderr)")
        #expect(first.stdout == "\(path): 30 rows: 30 inserted, 0 duplicate, 0 not stored\n")
        let again = ToolRun.run(["load", "--db", url, "--batch-size", "7", path])
        #expect(again.stdout == "\(path): 30 rows: 0 inserted, 30 duplicate, 0 not stored\n")
        #expect(try test.database.rows() == rows)
    }
}

/// `RowDatabase.insert` on a thread of its own and a connection of its own.
private final class ConcurrentInsert: @unchecked Sendable {
    private let url: String
    private let rows: [Row]
    private let done = DispatchSemaphore(value: 0)
    // Written by the thread before it signals `done`, read after `wait` has it.
    private var result: Result<BatchOutcome, any Error>?

    init(url: String, rows: [Row]) {
        self.url = url
        self.rows = rows
    }

    func start() {
        Thread {
            do {
                let database = try RowDatabase(url: self.url)
                self.result = .success(try database.insert(self.rows))
            } catch {
                self.result = .failure(error)
            }
            self.done.signal()
        }.start()
    }

    func wait() throws -> BatchOutcome {
        done.wait()
        return try result!.get()
    }
}
