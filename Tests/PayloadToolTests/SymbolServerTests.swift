import Foundation
import TestSupport
import Testing

/// Debug files fetched from symbol servers the tests start on 127.0.0.1: an empty store and
/// `--symbol-server` must print what the full store prints, keep what it fetched, and turn every
/// fault of a server into a warning naming it, never a wrong answer or a stored wrong file.
@Suite(.serialized) struct SymbolServerTests {
    static let sampleStore = Repository.samples.appendingPathComponent("dsyms")
    static let sampleRows = Repository.samples.appendingPathComponent("report/rows.jsonl")
    /// The UUID of the samples' one debug file (the app, build 131's YuiApp).
    static let sampleUUID = "4C4C4C4C-5555-3144-A1B2-000000000131"

    /// `top` with an empty store against `server` prints the full store's ranking; after the server
    /// stops, the same command answers the same from what it kept.
    func checkTopMatches(full store: URL, rows: URL, server kind: TestSymbolServer.Kind) throws {
        let expected = ToolRun.run(["top", "--json", "--dsyms", store.path, rows.path])
        #expect(expected.status == 0)
        let server = try TestSymbolServer(kind, serving: try SymbolServerInputs.export(store))
        let empty = try SymbolServerInputs.scratchFolder("empty-store")
        defer { try? FileManager.default.removeItem(at: empty) }
        let arguments = ["top", "--json", "--dsyms", empty.path, "--symbol-server", server.url, rows.path]
        let fetched = ToolRun.run(arguments)
        #expect(fetched.status == 0, "\(fetched.stderr)")
        #expect(fetched.stdout == expected.stdout)
        #expect(!fetched.stderr.contains("symbol server"), "\(fetched.stderr)")
        let served = server.requests.filter { $0.hasSuffix(" 200") }
        #expect(!served.isEmpty)
        server.stop()
        let offline = ToolRun.run(arguments)
        #expect(offline.status == 0)
        #expect(offline.stdout == expected.stdout)
        // Nothing asked of the stopped server: every UUID it had is in the store now.
        #expect(server.requests.filter { $0.hasSuffix(" 200") } == served)
    }

    @Test func pythonServerOfTheSamples() throws {
        try checkTopMatches(full: Self.sampleStore, rows: Self.sampleRows, server: .python(mode: "serve"))
    }

    @Test func nginxOfTheSamples() throws {
        try checkTopMatches(full: Self.sampleStore, rows: Self.sampleRows, server: .nginx)
    }

    @Test func pythonServerOfRealAppleDSYMs() throws {
        let (store, rows) = try SymbolServerInputs.realStoreAndRows()
        try checkTopMatches(full: store, rows: rows, server: .python(mode: "serve"))
    }

    @Test func nginxOfRealAppleDSYMs() throws {
        let (store, rows) = try SymbolServerInputs.realStoreAndRows()
        let named = ToolRun.run(["top", "--dsyms", store.path, rows.path])
        #expect(!named.stdout.contains("+0x"), "the rows' frames are all named with the full store")
        try checkTopMatches(full: store, rows: rows, server: .nginx)
    }

    /// One fault: a warning naming the server and the UUID, exit 0, the frames left unnamed, no
    /// file kept in the store.
    func checkFault(_ mode: String, extra: [String] = [], expecting text: String) throws -> (seconds: Double, server: TestSymbolServer) {
        let server = try TestSymbolServer(.python(mode: mode), serving: try SymbolServerInputs.export(Self.sampleStore))
        let empty = try SymbolServerInputs.scratchFolder("fault-store")
        defer { try? FileManager.default.removeItem(at: empty) }
        let start = Date()
        let run = ToolRun.run(["top", "--dsyms", empty.path, "--symbol-server", server.url] + extra + [Self.sampleRows.path])
        let seconds = Date().timeIntervalSince(start)
        #expect(run.status == 0, "\(mode): \(run.stderr)")
        #expect(run.stderr.contains("warning: symbol server \(server.url): \(Self.sampleUUID): "), "\(mode): \(run.stderr)")
        #expect(run.stderr.contains(text), "\(mode): \(run.stderr)")
        #expect(run.stdout.contains("YuiApp+0x"), "\(mode): the app's frames stay unnamed")
        // The build folders hold no file of it, and no download is left behind.
        let kept = ((try? FileManager.default.subpathsOfDirectory(atPath: empty.path)) ?? []).filter {
            !$0.hasPrefix(".locks") && !$0.hasPrefix(".symbol-server-misses") && $0 != ".uuid-index.json"
        }
        #expect(kept.allSatisfy { !$0.contains(Self.sampleUUID) && !$0.hasPrefix(".fetch-") }, "\(mode): \(kept)")
        return (seconds, server)
    }

    @Test func serverFaultsAreWarnings() throws {
        _ = try checkFault("truncated", expecting: "nothing kept")
        _ = try checkFault("garbage", expecting: "not a debug file")
        _ = try checkFault("huge", extra: ["--symbol-server-max-size", "1"], expecting: "larger than the limit of 1048576 bytes")
        let retried = try checkFault("500", expecting: "HTTP 503 after 3 attempts")
        #expect(retried.server.requests.count == 3)
        let stalled = try checkFault("stall", extra: ["--symbol-server-timeout", "1"], expecting: "not asked again in this run")
        #expect(stalled.seconds < 5, "a stalled server costs about one timeout, not \(stalled.seconds) s")
    }

    @Test func aFileOfAnotherUUIDIsNotKept() throws {
        // The real store's export: its first file holds another UUID than the samples' app.
        let (store, _) = try SymbolServerInputs.realStoreAndRows()
        let server = try TestSymbolServer(.python(mode: "other"), serving: try SymbolServerInputs.export(store))
        let empty = try SymbolServerInputs.scratchFolder("other-store")
        let run = ToolRun.run(["top", "--dsyms", empty.path, "--symbol-server", server.url, Self.sampleRows.path])
        #expect(run.status == 0)
        #expect(run.stderr.contains("\(Self.sampleUUID): the answer is a debug file of another UUID"), "\(run.stderr)")
        #expect(((try? FileManager.default.subpathsOfDirectory(atPath: empty.path)) ?? []).allSatisfy { !$0.contains("-YuiApp") })
    }

    @Test func refusedConnectionAndMissesAreRemembered() throws {
        // A port nothing listens on: the stopped server's.
        let gone = try TestSymbolServer(.python(mode: "404"), serving: try SymbolServerInputs.scratchFolder("nothing"))
        gone.stop()
        let empty = try SymbolServerInputs.scratchFolder("refused-store")
        let refused = ToolRun.run(["top", "--dsyms", empty.path, "--symbol-server", gone.url, Self.sampleRows.path])
        #expect(refused.status == 0)
        #expect(refused.stderr.contains("warning: symbol server \(gone.url): \(Self.sampleUUID): "), "\(refused.stderr)")
        #expect(refused.stderr.contains("not asked again in this run"))

        // A 404 is no fault: no warning, and it is remembered, so the next run asks nothing.
        let missing = try TestSymbolServer(.python(mode: "404"), serving: try SymbolServerInputs.scratchFolder("nothing"))
        let first = ToolRun.run(["top", "--dsyms", empty.path, "--symbol-server", missing.url, Self.sampleRows.path])
        #expect(first.status == 0)
        #expect(!first.stderr.contains("symbol server"))
        let asked = missing.requests.count
        #expect(asked >= 1)
        _ = ToolRun.run(["top", "--dsyms", empty.path, "--symbol-server", missing.url, Self.sampleRows.path])
        #expect(missing.requests.count == asked)
        _ = ToolRun.run(["top", "--dsyms", empty.path, "--symbol-server", missing.url, "--refresh", Self.sampleRows.path])
        #expect(missing.requests.count == 2 * asked)
    }

    @Test func theAuthorizationHeaderIsSentAndNeverPrinted() throws {
        let export = try SymbolServerInputs.export(Self.sampleStore)
        let secret = "Bearer sEcReT-\(UUID().uuidString)"
        try secret.write(to: export.deletingLastPathComponent().appendingPathComponent("authorization"), atomically: true, encoding: .utf8)
        let server = try TestSymbolServer(.python(mode: "auth"), serving: export)
        let headerFile = try SymbolServerInputs.scratchFolder("header").appendingPathComponent("header")
        try "Authorization: \(secret)\n".write(to: headerFile, atomically: true, encoding: .utf8)
        let expected = ToolRun.run(["top", "--dsyms", Self.sampleStore.path, Self.sampleRows.path])
        let empty = try SymbolServerInputs.scratchFolder("auth-store")
        let withHeader = ToolRun.run([
            "top", "--dsyms", empty.path, "--symbol-server", server.url, "--symbol-server-header-file", headerFile.path, Self.sampleRows.path,
        ])
        #expect(withHeader.stdout == expected.stdout)
        let other = try SymbolServerInputs.scratchFolder("auth-store")
        let withoutHeader = ToolRun.run(["top", "--dsyms", other.path, "--symbol-server", server.url, Self.sampleRows.path])
        #expect(withoutHeader.stderr.contains("HTTP 401"))
        // A password in the URL is redacted too.
        let withPassword = "http://user:pAsSwOrD@127.0.0.1:\(server.port)"
        let redacted = ToolRun.run(["top", "--dsyms", other.path, "--symbol-server", withPassword, "--refresh", Self.sampleRows.path])
        for run in [withHeader, withoutHeader, redacted] {
            #expect(!(run.stdout + run.stderr).contains("sEcReT"))
            #expect(!(run.stdout + run.stderr).contains("pAsSwOrD"))
        }
        #expect(redacted.stderr.contains("http://user:***@127.0.0.1"), "\(redacted.stderr)")
    }

    @Test func eightRunsAtOnceFetchEachFileOnce() throws {
        let (store, rows) = try SymbolServerInputs.realStoreAndRows()
        let expected = ToolRun.run(["top", "--dsyms", store.path, rows.path])
        let server = try TestSymbolServer(.python(mode: "serve"), serving: try SymbolServerInputs.export(store))
        let empty = try SymbolServerInputs.scratchFolder("shared-store")
        let outputs = OutputsOfRuns()
        let arguments = ["top", "--dsyms", empty.path, "--symbol-server", server.url, rows.path]
        DispatchQueue.concurrentPerform(iterations: 8) { index in
            let run = try? ToolBinary.run(arguments)
            outputs.put(index, run.map { "\($0.status)\n\($0.stdout)" } ?? "did not run")
        }
        for output in outputs.all { #expect(output == "0\n" + expected.stdout) }
        let fetched = server.requests.filter { $0.hasSuffix(" 200") }
        #expect(!fetched.isEmpty)
        #expect(Set(fetched).count == fetched.count, "a file was downloaded twice: \(fetched.sorted())")
    }

    @Test func exportThenImportGivesTheSameUUIDsAndAnswers() throws {
        let (store, rows) = try SymbolServerInputs.realStoreAndRows()
        let export = try SymbolServerInputs.export(store)
        let again = ToolRun.run(["dsyms", "export", "--layout", "debuginfod", "--dsyms", store.path, export.path])
        #expect(again.stdout.hasPrefix("0 exported, "), "exporting again changes nothing: \(again.stdout)")
        let copy = try SymbolServerInputs.scratchFolder("reimported")
        let imported = ToolRun.run(["dsyms", "import", "--dsyms", copy.path, "--build", "7", export.path])
        #expect(imported.status == 0, "\(imported.stderr)")
        func uuids(_ root: URL) -> [String] {
            let listed = ToolRun.run(["dsyms", "--json", "--dsyms", root.path, "7"]).stdout
            let report = try? JSONSerialization.jsonObject(with: Data(listed.utf8)) as? [String: Any]
            let files = report?["debug_files"] as? [[String: Any]] ?? []
            return Set(files.flatMap { $0["uuids"] as? [String] ?? [] }).sorted()
        }
        #expect(!uuids(store).isEmpty)
        #expect(uuids(copy) == uuids(store))
        // Every frame's answer (function, file, line), wherever the debug file now lives.
        func answers(_ root: URL) -> [String] {
            let text = ToolRun.run(["symbolicate", "--json", "--dsyms", root.path, rows.path]).stdout
            let stacks = (try? JSONSerialization.jsonObject(with: Data(text.utf8)) as? [[String: Any]]) ?? []
            return stacks.flatMap { stack in
                (stack["frames"] as? [[String: Any]] ?? []).map { frame in
                    (frame["symbols"] as? [[String: Any]] ?? []).map { "\($0["function"] ?? "") \($0["file"] ?? "") \($0["line"] ?? "")" }
                        .joined(separator: " | ")
                }
            }
        }
        #expect(answers(store).count > 20)
        #expect(answers(copy) == answers(store))
    }
}

/// The eight runs' outputs, put from their threads.
final class OutputsOfRuns: @unchecked Sendable {
    private let lock = NSLock()
    private var outputs: [Int: String] = [:]

    func put(_ index: Int, _ output: String) {
        lock.lock()
        outputs[index] = output
        lock.unlock()
    }

    var all: [String] {
        lock.lock()
        defer { lock.unlock() }
        return outputs.keys.sorted().map { outputs[$0]! }
    }
}
