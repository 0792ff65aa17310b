import Foundation
import TestSupport
import Testing

/// `--symbols DIR`: system images' symbol files, found by UUID, name system frames. A real
/// Apple-built Mach-O with only a symbol table (`dsyms-fixtures/real/symbolic-macos/binary/crash`)
/// stands in for a system image here: the frames call it `UIKitCore` and carry its UUID.
@Suite struct SystemSymbolsTests {
    static let standInUUID = "67E9247C-814E-392B-A027-DBDE6748FCBF"

    /// A single crash diagnostic of build 130: `frames` innermost first, as (image, UUID, offset).
    func crash(_ frames: [(String, String, Int)]) throws -> String {
        var node: [String: Any]?
        for (image, uuid, offset) in frames.reversed() {
            var frame: [String: Any] = ["binaryName": image, "binaryUUID": uuid, "offsetIntoBinaryTextSegment": offset, "sampleCount": 1]
            if let node { frame["subFrames"] = [node] }
            node = frame
        }
        let diagnostic: [String: Any] = [
            "version": "1.0.0",
            "callStackTree": ["callStackPerThread": true, "callStacks": [["threadAttributed": true, "callStackRootFrames": [node!]]]],
            "diagnosticMetaData": [
                "appBuildVersion": "130", "appVersion": "2.1.0", "osVersion": "iPhone OS 26.0 (23A341)", "deviceType": "iPhone17,1",
                "platformArchitecture": "arm64e", "exceptionType": 10, "signal": 6, "terminationReason": "Namespace SIGNAL, Code 6 Abort trap: 6",
            ],
        ]
        let path = FileManager.default.temporaryDirectory.appendingPathComponent("yui-system-\(UUID().uuidString).json").path
        try JSONSerialization.data(withJSONObject: diagnostic).write(to: URL(fileURLWithPath: path))
        return path
    }

    var symbolsFolder: String { get throws { try SymbolicateFixtures.path("real/symbolic-macos/binary") } }

    @Test func systemFramesAreNamedInSymbolicate() throws {
        let app = "4C4C4C4C-5555-3144-A1B2-000000000130"
        let path = try crash([("UIKitCore", Self.standInUUID, 0x1b70 + 9), ("YuiApp", app, 0x4110)])
        defer { try? FileManager.default.removeItem(atPath: path) }
        let base = ["symbolicate", "--dsyms", TopFixtures.dsyms, path]
        let without = CommandRun(base)
        #expect(without.stdout.contains("UIKitCore + 7033"), "\(without.stdout)")
        let named = CommandRun(base + ["--symbols", try symbolsFolder])
        #expect(named.status == 0, "\(named.stderr)")
        #expect(named.stdout.contains("CrashGenerationClient.RequestDumpForException + 9"), "\(named.stdout)")
        #expect(named.stdout.contains("ChatStore.apply"))
        #expect(!named.stderr.contains(Self.standInUUID))
    }

    @Test func systemFramesAreNamedInTopAndListedByDsyms() throws {
        let path = try crash([("UIKitCore", Self.standInUUID, 0x1b70 + 9), ("UIKitCore", Self.standInUUID, 0x1d30 + 5)])
        defer { try? FileManager.default.removeItem(atPath: path) }
        let top = ToolRun.run(["top", "--dsyms", TopFixtures.dsyms, "--symbols", try symbolsFolder, path])
        #expect(top.status == 0, "\(top.stderr)")
        #expect(
            top.stdout.contains(
                "crash 1.0 s x1, EXC_CRASH (SIGABRT)   (system) CrashGenerationClient.RequestDumpForException <- google_breakpad.ReadTaskMemory"),
            "\(top.stdout)")
        let dsyms = CommandRun(["dsyms", "--dsyms", TopFixtures.dsyms, "--symbols", try symbolsFolder, "130", path])
        #expect(dsyms.status == 0, "\(dsyms.stderr)")
        #expect(dsyms.stdout.contains("System images named from the symbol files:\n  \(Self.standInUUID) UIKitCore (2 frames)"), "\(dsyms.stdout)")
        #expect(dsyms.stdout.contains("Every UUID has a usable debug file."))
    }
}
