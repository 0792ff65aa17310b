import Foundation
import TestSupport
import Testing

/// Single diagnostics as crash-reporting SDKs store them (`MXDiagnostic.jsonRepresentation()`: no
/// payload timestamps), in the three shapes seen in real iOS 26 data: a crash with signpostData, a
/// watchdog kill with a long multi-line terminationReason, a plain SIGABRT (written here in those
/// shapes, `Tests/Fixtures/single-diagnostics/`). The period rule is docs/rows.md's.
@Suite struct SingleDiagnosticTests {
    static let folder = Repository.testFixtures.appendingPathComponent("single-diagnostics")

    struct Row: Decodable {
        var name: String
        var app_build: Int
        var period_start: String
        var period_end: String
        var stack: [Frame]?
        struct Frame: Decodable {
            var image: String?
            var offset: UInt64
        }
    }

    func rows(_ output: String) throws -> [Row] {
        try output.split(separator: "\n").map { try JSONDecoder().decode(Row.self, from: Data($0.utf8)) }
    }

    @Test func aCrashWithSignpostDataTakesItsPeriodFromThem() throws {
        let run = CommandRun(["rows", "--format", "jsonl", Self.folder.appendingPathComponent("crash-signpost.json").path])
        #expect(run.status == 0, "\(run.stderr)")
        let converted = try rows(run.stdout)
        #expect(converted.count == 1)
        #expect(converted.first?.name == "crash")
        #expect(converted.first?.period_start == "2026-11-28T10:14:58Z")
        #expect(converted.first?.period_end == "2026-11-28T10:15:03Z")
        #expect(converted.first?.stack?.map(\.offset) == [0x40b0, 0x4110, 0x41d0, 0x4038])
        #expect(run.stderr.contains("crash-signpost.json: payload 1, key timeStampBegin: missing; the period is the diagnostic's signpostData"))
    }

    @Test func aWatchdogKillTakesTheFilesModificationTime() throws {
        let copy = FileManager.default.temporaryDirectory.appendingPathComponent("watchdog-\(UUID().uuidString).json")
        defer { try? FileManager.default.removeItem(at: copy) }
        try FileManager.default.copyItem(at: Self.folder.appendingPathComponent("watchdog-kill.json"), to: copy)
        try FileManager.default.setAttributes([.modificationDate: Date(timeIntervalSince1970: 1_764_000_000)], ofItemAtPath: copy.path)
        let run = CommandRun(["rows", "--format", "jsonl", copy.path])
        #expect(run.status == 0, "\(run.stderr)")
        let converted = try rows(run.stdout)
        #expect(converted.map(\.period_start) == ["2025-11-24T16:00:00Z"])
        #expect(
            run.stderr.contains(
                copy.path + ": payload 1, key timeStampBegin: missing; the period is the file's modification time, 2025-11-24T16:00:00Z"))
    }

    @Test func aSigabrtTakesTheGivenPeriodWithoutAWarning() throws {
        let path = Self.folder.appendingPathComponent("sigabrt.json").path
        let run = CommandRun([
            "rows", "--format", "jsonl", "--timezone", "+01:00", "--period-start", "2026-11-29 08:00:00", "--period-end",
            "2026-11-29 08:00:05", path,
        ])
        #expect(run.status == 0, "\(run.stderr)")
        #expect(run.stderr.isEmpty)
        let converted = try rows(run.stdout)
        #expect(converted.map(\.period_start) == ["2026-11-29T07:00:00Z"])
        #expect(converted.map(\.period_end) == ["2026-11-29T07:00:05Z"])
        #expect(converted.first?.stack?.map(\.image) == ["libsystem_kernel.dylib", "libsystem_c.dylib", "libswiftCore.dylib", "YuiApp", "YuiApp"])
    }

    @Test func standardInputWithoutAPeriodIsAnErrorThatSaysWhatToGive() throws {
        let text = try String(contentsOf: Self.folder.appendingPathComponent("sigabrt.json"), encoding: .utf8)
        let run = CommandRun(["rows", "-"], stdin: text)
        #expect(run.status == 1)
        #expect(
            run.stderr.contains(
                "<stdin>: payload 1, key timeStampBegin: missing, and no signpostData or file time to stand for it; give the period with --period-start"
            ))
        let given = CommandRun(["rows", "--period-start", "2026-11-29T08:00:00Z", "-"], stdin: text)
        #expect(given.status == 0, "\(given.stderr)")
    }

    @Test func periodOptionsAreChecked() {
        #expect(CommandRun(["rows", "--period-end", "2026-11-29 08:00:00", "a.json"]).status == 64)
        #expect(CommandRun(["rows", "--period-start", "yesterday", "a.json"]).stderr.contains("Invalid value 'yesterday' for '--period-start'"))
        #expect(CommandRun(["rows", "--period-start", "2026-11-29 08:00:00", "--period-end", "2026-11-29 07:00:00", "a.json"]).status == 64)
    }

    @Test func topRanksTheSingleDiagnosticsWithNames() throws {
        let files = ["crash-signpost.json", "watchdog-kill.json", "sigabrt.json"].map { Self.folder.appendingPathComponent($0).path }
        let result = ToolRun.run(["top", "--dsyms", TopFixtures.dsyms] + files)
        #expect(result.status == 0, "\(result.stderr)")
        #expect(
            result.stdout == """
                build 130
                  1. crash 1.0 s x1, EXC_CRASH (SIGABRT)   ChatStore.apply <- closure in ThreadView.body <- ThreadView.body
                  2. crash 1.0 s x1, watchdog 0x8BADF00D, EXC_CRASH (SIGKILL)   mix <- YuiLines.scanWord <- YuiLines.wrap <- YuiLines.parse <- ChatStore.apply
                  3. crash 1.0 s x1, EXC_BAD_ACCESS (SIGSEGV)   plus <- YuiLines.wrap <- YuiLines.parse <- ChatStore.apply <- closure in ThreadView.body

                """)
    }
}
