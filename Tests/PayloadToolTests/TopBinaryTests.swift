import Foundation
import TestSupport
import Testing

/// `payload-tool top` as a user runs it: the built executable, its exit status and its two streams.
@Suite struct TopBinary {
    @Test func printsTheRankingOnStandardOutputAndNotesOnStandardError() throws {
        let arguments = ["top", "--dsyms", TopFixtures.dsyms] + (try TopFixtures.all())
        let binary = try ToolBinary.run(arguments)
        let inProcess = ToolRun.run(arguments)
        #expect(binary.status == 0)
        #expect(binary.stdout == inProcess.stdout)
        #expect(binary.stdout.hasPrefix("build 131\n  1. hang 3.6 s x3 on 1 phone (max 1.5 s)   YuiLines.parse <- ChatStore.apply"))
        #expect(binary.stderr.contains("note: build 131: no debug file"))
        #expect(!binary.stdout.contains("note:"))
    }

    @Test func aUsageErrorExits64() throws {
        let binary = try ToolBinary.run(["top", "--count", "0", "x.json"])
        #expect(binary.status == 64)
        #expect(binary.stdout.isEmpty)
        #expect(binary.stderr.contains("'--count'"))
    }
}

@Suite struct TopTestSetScript {
    /// The committed test set is exactly what `scripts/make-top-testset` writes from the fixtures.
    @Test func theCommittedTestSetIsWhatTheScriptWrites() throws {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        process.arguments = ["python3", Repository.root.appendingPathComponent("scripts/make-top-testset").path, "--check"]
        let err = Pipe()
        process.standardError = err
        try process.run()
        let message = String(decoding: err.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        process.waitUntilExit()
        #expect(process.terminationStatus == 0, "\(message)")
    }
}
