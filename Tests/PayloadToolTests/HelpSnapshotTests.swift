import Foundation
import PayloadTool
import TestSupport
import Testing

/// `payload-tool --help` and each command's `--help`, compared byte for byte with the files in
/// `Tests/Fixtures/help/`. Help is made from the option declarations, so a change to an option's
/// name, placeholder or help text shows here as a diff to review.
///
/// To re-record after an intended change, run the tests with `YUI_RECORD_SNAPSHOTS=1`: each test
/// then writes its file (and passes); review the files with `git diff` before committing. See
/// docs/command-line.md, "Tests".
@Suite struct HelpSnapshots {
    static let folder = Repository.testFixtures.appendingPathComponent("help")

    /// The command line and the snapshot file it is compared with.
    @Test(arguments: [
        (["--help"], "payload-tool"),
        (["rows", "--help"], "rows"),
        (["symbolicate", "--help"], "symbolicate"),
        (["top", "--help"], "top"),
        (["dsyms", "--help"], "dsyms"),
        (["dsyms", "import", "--help"], "dsyms-import"),
        (["load", "--help"], "load"),
        (["retention", "--help"], "retention"),
        (["report", "--help"], "report"),
        (["help", "--help"], "help"),
        (["completions", "--help"], "completions"),
        (["man", "--help"], "man"),
    ])
    func helpMatchesItsSnapshot(arguments: [String], name: String) throws {
        let (status, stdout, stderr) = ToolRun.run(arguments)
        #expect(status == 0)
        #expect(stderr.isEmpty)
        let file = Self.folder.appendingPathComponent(name + ".txt")
        if ProcessInfo.processInfo.environment["YUI_RECORD_SNAPSHOTS"] == "1" {
            try FileManager.default.createDirectory(at: Self.folder, withIntermediateDirectories: true)
            try Data(stdout.utf8).write(to: file)
            return
        }
        let expected = try String(contentsOf: file, encoding: .utf8)
        #expect(
            stdout == expected,
            "'payload-tool \(arguments.joined(separator: " "))' differs from \(file.path); if the change is meant, re-record with YUI_RECORD_SNAPSHOTS=1"
        )
    }
}
