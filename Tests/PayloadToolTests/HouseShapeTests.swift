import Foundation
import TestSupport
import Testing

/// `scripts/check-house`, which `scripts/test` runs: no Sources file over 400 lines, no folder over
/// 20 Swift files. It passes on this checkout and fails, naming each, when a tree breaks either.
@Suite struct HouseShape {
    static func check(_ root: URL) throws -> (status: Int32, stderr: String) {
        let process = Process()
        process.executableURL = Repository.root.appendingPathComponent("scripts/check-house")
        process.arguments = [root.path]
        let errors = Pipe()
        process.standardError = errors
        process.standardOutput = FileHandle.nullDevice
        try process.run()
        let text = String(decoding: errors.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        process.waitUntilExit()
        return (process.terminationStatus, text)
    }

    @Test func thisCheckoutKeepsItsShape() throws {
        #expect(try Self.check(Repository.root).status == 0)
    }

    @Test func aLongFileOrAFullFolderFailsTheCheck() throws {
        let root = FileManager.default.temporaryDirectory.appendingPathComponent("yui-perf-house-" + UUID().uuidString)
        defer { try? FileManager.default.removeItem(at: root) }
        let folder = root.appendingPathComponent("Sources/Many")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        for index in 0..<20 { try Data("let x\(index) = 0\n".utf8).write(to: folder.appendingPathComponent("F\(index).swift")) }
        try Data(String(repeating: "// line\n", count: 400).utf8).write(to: root.appendingPathComponent("Sources/Long.swift"))
        #expect(try Self.check(root).status == 0)  // 400 lines and 20 files are allowed
        try Data(String(repeating: "// line\n", count: 401).utf8).write(to: root.appendingPathComponent("Sources/Long.swift"))
        try Data("let extra = 0\n".utf8).write(to: folder.appendingPathComponent("F20.swift"))
        let failed = try Self.check(root)
        #expect(failed.status == 1)
        #expect(failed.stderr.contains("Sources/Long.swift has 401 lines"), "\(failed.stderr)")
        #expect(failed.stderr.contains("Sources/Many holds 21 Swift files"), "\(failed.stderr)")
    }
}
