import Foundation
import Testing

/// `payload-tool top` as a user runs it: the built executable, its exit status and its two streams.
@Suite struct TopBinary {
    /// The executable sits beside the test bundle in the build folder.
    static func executable() throws -> URL {
        var folder = Bundle.main.bundleURL
        if folder.pathExtension == "xctest" { folder.deleteLastPathComponent() }
        let url = folder.appendingPathComponent("payload-tool")
        try #require(
            FileManager.default.isExecutableFile(atPath: url.path),
            "payload-tool not built at \(url.path): run swift build --build-tests")
        return url
    }

    static func run(_ arguments: [String]) throws -> (status: Int32, stdout: String, stderr: String) {
        let process = Process()
        process.executableURL = try executable()
        process.arguments = arguments
        let out = Pipe()
        let err = Pipe()
        process.standardOutput = out
        process.standardError = err
        process.standardInput = FileHandle.nullDevice
        try process.run()
        // Read both pipes before waiting, so a full pipe cannot stall the child.
        let outData = out.fileHandleForReading.readDataToEndOfFile()
        let errData = err.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        return (process.terminationStatus, String(decoding: outData, as: UTF8.self), String(decoding: errData, as: UTF8.self))
    }

    @Test func printsTheRankingOnStandardOutputAndNotesOnStandardError() throws {
        let arguments = ["top", "--dsyms", TopFixtures.dsyms] + (try TopFixtures.all())
        let binary = try Self.run(arguments)
        let inProcess = TopHarness.run(arguments)
        #expect(binary.status == 0)
        #expect(binary.stdout == inProcess.stdout)
        #expect(binary.stdout.hasPrefix("build 131\n  1. hang 3.6 s x3 (max 1.5 s)   YuiLines.parse <- ChatStore.apply"))
        #expect(binary.stderr.contains("note: build 131: no debug file"))
        #expect(!binary.stdout.contains("note:"))
    }

    @Test func aUsageErrorExits64() throws {
        let binary = try Self.run(["top", "--count", "0", "x.json"])
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
        process.arguments = ["python3", TopFixtures.repository.appendingPathComponent("scripts/make-top-testset").path, "--check"]
        let err = Pipe()
        process.standardError = err
        try process.run()
        let message = String(decoding: err.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        process.waitUntilExit()
        #expect(process.terminationStatus == 0, "\(message)")
    }
}
