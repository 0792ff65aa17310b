import Foundation
import Testing

@testable import PayloadTool

/// Payload dumps whose frames point into the fixture app, end to end through `rows`' decoder.
@Suite struct SymbolicatePayloadTests {
    struct Function: Decodable {
        struct Call: Decodable {
            var return_offset: UInt64
            var callee: String
        }
        var linkage_name: String
        var start_offset: UInt64
        var calls: [Call]
    }

    struct Table: Decodable {
        struct Build: Decodable {
            var uuid: String
            var functions: [Function]
        }
        var builds: [String: Build]
    }

    static let systemUUID = "C2E7A915-4F3D-3B68-9A1C-8D5F0E2B6C74"

    /// A hang sample tree rooted at dyld: dyld → ThreadView.body → ChatStore.apply → YuiLines.parse.
    static func hangPayload() throws -> (payload: String, offsets: [UInt64]) {
        let data = try Data(contentsOf: URL(fileURLWithPath: try SymbolicateFixtures.path("yuiapp-functions.json")))
        let build = try #require(try JSONDecoder().decode(Table.self, from: data).builds["130"])
        func function(_ name: String) throws -> Function { try #require(build.functions.first { $0.linkage_name == name }) }
        let parse = try function("$s6YuiApp0A5LinesV5parseyAA3NumVAFF")
        let apply = try function("$s6YuiApp9ChatStoreV5applyyAA3NumVAA0C5EventVF")
        let body = try function("$s6YuiApp10ThreadViewV4bodyAA3NumVvg")
        let applyReturn = try #require(apply.calls.first { $0.callee == parse.linkage_name }).return_offset
        let bodyReturn = try #require(body.calls.first { $0.callee == apply.linkage_name }).return_offset
        let base: UInt64 = 0x1_0200_0000
        func frame(_ uuid: String, _ name: String, _ offset: UInt64, _ sub: String) -> String {
            """
            {"binaryUUID": "\(uuid)", "binaryName": "\(name)", "offsetIntoBinaryTextSegment": \(offset),
             "address": \(base + offset), "sampleCount": 5\(sub.isEmpty ? "" : ", \"subFrames\": [\(sub)]")}
            """
        }
        let uuid = build.uuid
        let tree = frame(
            systemUUID, "dyld", 24140,
            frame(
                uuid, "YuiApp", bodyReturn,
                frame(uuid, "YuiApp", applyReturn, frame(uuid, "YuiApp", parse.start_offset + 8, ""))))
        let payload = """
            {"version": "1.0.0", "timeStampBegin": "2025-03-02 18:15:40", "timeStampEnd": "2025-03-02 18:15:40",
             "callStackTree": {"callStackPerThread": true, "callStacks": [{"threadAttributed": true, "callStackRootFrames": [\(tree)]}]},
             "diagnosticMetaData": {"appBuildVersion": "130", "appVersion": "2.2", "osVersion": "iPhone OS 18.3.1 (22D72)",
               "deviceType": "iPhone16,1", "platformArchitecture": "arm64e", "hangDuration": "1 sec"}}
            """
        return (payload, [parse.start_offset + 8, applyReturn, bodyReturn])
    }

    func writePayload() throws -> String {
        let path = FileManager.default.temporaryDirectory.appendingPathComponent("yui-sym-hang-\(UUID().uuidString).json").path
        FileManager.default.createFile(atPath: path, contents: Data(try Self.hangPayload().payload.utf8))
        return path
    }

    @Test func hangStackPrintsTheSourceNames() throws {
        let payload = try writePayload()
        defer { try? FileManager.default.removeItem(atPath: payload) }
        let run = CommandRun(["symbolicate", "--dsyms", try SymbolicateFixtures.path("builds"), payload])
        #expect(run.status == 0, "\(run.stderr)")
        let lines = run.stdout.split(separator: "\n").map(String.init)
        // Innermost first; the real (not inlined) function of each frame is its last line.
        let outermost = ["0", "1", "2"].compactMap { index in lines.last { $0.hasPrefix(index + " ") } }
        #expect(outermost.count == 3)
        #expect(outermost[0].contains(" YuiLines.parse + 8 (YuiLines.swift:"))
        #expect(outermost[1].contains(" ChatStore.apply + "))
        #expect(outermost[2].contains(" ThreadView.body + "))
        let system = try #require(lines.first { $0.hasPrefix("3 ") })
        #expect(system.contains("dyld + 24140 [no debug file for UUID \(Self.systemUUID)]"))
        #expect(run.stderr.contains("no debug file for UUID \(Self.systemUUID) (image dyld)"))
    }

    @Test func foldedAndJSONCarryTheSameNames() throws {
        let payload = try writePayload()
        defer { try? FileManager.default.removeItem(atPath: payload) }
        let folded = CommandRun(["symbolicate", "--dsyms", try SymbolicateFixtures.path("builds"), "--folded", payload])
        // Outermost first, inlined calls included (body's call to apply sits in an inlined closure).
        #expect(folded.stdout.hasPrefix("dyld+0x5e4c;ThreadView.body;closure in ThreadView.body;ChatStore.apply;YuiLines.parse;"))
        #expect(folded.stdout.hasSuffix(" 1\n"))
        let json = CommandRun(["symbolicate", "--dsyms", try SymbolicateFixtures.path("builds"), "--json", payload])
        let stacks = try #require(try JSONSerialization.jsonObject(with: Data(json.stdout.utf8)) as? [[String: Any]])
        let frames = try #require(stacks.first?["frames"] as? [[String: Any]])
        #expect(frames.map { $0["status"] as? String } == ["symbolicated", "symbolicated", "symbolicated", "missing_debug_file"])
        let names = frames.prefix(3).map { (($0["symbols"] as? [[String: Any]])?.last?["simplified_name"] as? String) ?? "" }
        #expect(names == ["YuiLines.parse", "ChatStore.apply", "ThreadView.body"])
    }

    @Test func dsymsNamesTheMissingUUID() throws {
        let payload = try writePayload()
        defer { try? FileManager.default.removeItem(atPath: payload) }
        let run = CommandRun(["dsyms", "--dsyms", try SymbolicateFixtures.path("builds"), "130", payload])
        #expect(run.status == 0, "\(run.stderr)")
        #expect(run.stdout.contains("4C4C4C4C-5555-3144-A1B2-000000000130 arm64 mach-o"))
        #expect(run.stdout.contains("Frames checked: 4, with a usable debug file: 3"))
        #expect(run.stdout.contains("  \(Self.systemUUID) dyld (1 frames)"))
    }

    @Test func dsymsRefusesABuildOutsideTheRoot() throws {
        let run = CommandRun(["dsyms", "--dsyms", try SymbolicateFixtures.path("builds"), "../../etc"])
        #expect(run.status == 1)
        #expect(run.stderr.contains("../../etc"))
        #expect(run.stdout.isEmpty)
    }
}
