import Foundation
import Testing

/// When the bytes reader declines a file's DWARF, libdw reads it: the answers stay the same, and
/// `symbolicate --verbose` and `dsyms` say what libdw read and why. The files here are copies of
/// real ones with their debug sections stored as GNU `.zdebug_*` sections (`llvm-objcopy
/// --compress-debug-sections=zlib-gnu`, as older GNU toolchains wrote them), which only libdw reads.
@Suite struct DecoderFallbackTests {
    /// `original` copied into a fresh folder with its debug sections GNU-compressed.
    static func gnuCompressedCopy(of original: String) throws -> (folder: String, copy: String) {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("yui-zdebug-\(UUID().uuidString)").path
        try FileManager.default.createDirectory(atPath: folder + "/7", withIntermediateDirectories: true)
        let copy = folder + "/7/" + (original as NSString).lastPathComponent
        let objcopy = Process()
        objcopy.executableURL = URL(fileURLWithPath: "/usr/bin/llvm-objcopy-14")
        objcopy.arguments = ["--compress-debug-sections=zlib-gnu", original, copy]
        try objcopy.run()
        objcopy.waitUntilExit()
        try #require(objcopy.terminationStatus == 0, "llvm-objcopy-14 failed on \(original)")
        return (folder, copy)
    }

    /// Addresses spread over the file's functions (each symbol's start plus 4), from llvm-nm.
    static func functionAddresses(in path: String, count: Int) throws -> [String] {
        let nm = Process()
        nm.executableURL = URL(fileURLWithPath: "/usr/bin/llvm-nm-14")
        nm.arguments = ["--defined-only", path]
        let pipe = Pipe()
        nm.standardOutput = pipe
        try nm.run()
        let output = String(decoding: pipe.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        nm.waitUntilExit()
        let starts = output.split(separator: "\n").compactMap { line -> UInt64? in
            let fields = line.split(separator: " ")
            guard fields.count == 3, fields[1] == "t" || fields[1] == "T" else { return nil }
            return UInt64(fields[0], radix: 16)
        }.sorted()
        let step = max(starts.count / count, 1)
        return stride(from: 0, to: starts.count, by: step).map { "0x" + String(starts[$0] + 4, radix: 16) }
    }

    @Test(arguments: ["other/yui-linux", "/opt/swift/usr/bin/swift-help"])
    func libdwAnswersWhatTheBytesDeclineAndVerboseSaysSo(_ name: String) throws {
        let original = name.hasPrefix("/") ? name : try SymbolicateFixtures.path(name)
        guard FileManager.default.fileExists(atPath: original) else { return }
        let (folder, copy) = try Self.gnuCompressedCopy(of: original)
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let addresses = try Self.functionAddresses(in: original, count: 2_000)
        try #require(addresses.count >= 3)

        let read = CommandRun(["symbolicate", "--object", original, "--verbose"], stdin: addresses.joined(separator: "\n"))
        let declined = CommandRun(["symbolicate", "--object", copy, "--verbose"], stdin: addresses.joined(separator: "\n"))
        #expect(read.status == 0 && declined.status == 0, "\(read.stderr)\(declined.stderr)")
        // The same answers, but for the image name each line starts with (the file's own name).
        #expect(read.stdout.contains(/\ \+ \d+ \(\S+:\d+\)/), "no file and line: \(read.stdout.prefix(300))")
        #expect(read.stdout == declined.stdout)

        // The original: every step read over the bytes; the copy: every step by libdw, with the reason.
        #expect(read.stderr.contains("read over the section bytes") && read.stderr.contains("libdw read none of them"), "\(read.stderr)")
        let note = try #require(declined.stderr.split(separator: "\n").first { $0.hasPrefix("note: \(copy)") }, "\(declined.stderr)")
        let units = try #require(note.firstMatch(of: /libdw read (\d+) of (\d+) unit ranges, (\d+) of (\d+) function trees/), "\(note)")
        #expect(Int(units.1)! > 0 && units.1 == units.2, "\(note)")
        #expect(Int(units.3)! > 0 && units.3 == units.4, "\(note)")
        #expect(note.contains("line tables") && note.contains("GNU .zdebug sections"), "\(note)")

        // Without --verbose, nothing is said.
        let quiet = CommandRun(["symbolicate", "--object", copy], stdin: addresses.joined(separator: "\n"))
        #expect(quiet.stderr.isEmpty && quiet.stdout == read.stdout)

        // dsyms names the fallback beside the file, in text and in JSON; the original has none.
        let listed = CommandRun(["dsyms", "--dsyms", folder, "7"])
        #expect(listed.status == 0 && listed.stdout.contains("[libdw read "), "\(listed.stdout)\(listed.stderr)")
        let json = CommandRun(["dsyms", "--dsyms", folder, "7", "--json"])
        #expect(json.stdout.contains(#""decoder_fallbacks":"libdw read "#), "\(json.stdout)")
        let fixtures = CommandRun(["dsyms", "--dsyms", try SymbolicateFixtures.path("builds"), "130", "--json"])
        #expect(fixtures.status == 0 && !fixtures.stdout.contains("decoder_fallbacks"), "\(fixtures.stdout)")
    }
}
