import Foundation
import Testing

@testable import PayloadDecode

@Suite struct DiagnosticRowTests {
    let kernelUUID = "D5B1E8A3-7C92-3F46-A0D8-3E9C6B1F4A27"
    let swiftCoreUUID = "7B2F9E4D-6A1C-3D85-9E37-2C8B5F0A1D96"

    @Test func twoCrashesAndOneHangGiveThreeRows() throws {
        let result = try convertFile(Samples.path("diagnostics-ios18-crashes-hang.json"))
        #expect(result.succeeded)
        #expect(result.rows.map(\.name) == ["crash", "crash", "hang"])
        #expect(result.rows.allSatisfy { $0.kind == .diagnostic && $0.n == 1 && $0.buckets == nil })
        #expect(result.rows[0].app_build == 130)  // "130.1", a test build
        #expect(result.rows[0].value == nil)
        #expect(result.rows[2].value == 2)  // "2 sec"

        // Crash: the attributed thread, root innermost, so the crashing frame comes first.
        let crash = try #require(result.rows[0].stack)
        #expect(crash.count == 15)
        #expect(crash[0] == StackFrame(image: "libswiftCore.dylib", uuid: swiftCoreUUID, offset: 0x3F8A4))
        #expect(crash[1] == StackFrame(image: "YuiApp", uuid: appUUID, offset: 0x4110))
        #expect(crash.last?.image == "dyld")
        // The second crash is on another thread (the third call stack).
        let second = try #require(result.rows[1].stack)
        #expect(second.first?.image == "libobjc.A.dylib")
        #expect(second[1] == StackFrame(image: "YuiApp", uuid: appUUID, offset: 0x40B0))

        // Hang: a sample tree rooted at dyld's start; the heaviest path, innermost first.
        let hang = try #require(result.rows[2].stack)
        #expect(
            hang.map(\.offset) == [
                0x3A1B4, 0x40B0, 0x4110, 0x41D0, 0x1A2B40, 0x2D4C18, 0x2F1D44, 0x36A0C, 0x36C10, 0x37B70, 0x1354, 0x3E5B2C,
                0x3E5728, 0x4038, 0x5E4C,
            ])
        #expect(hang.first?.image == "libswiftCore.dylib")
        #expect(hang.last?.image == "dyld")
    }

    @Test func exceptionsAndLaunchValues() throws {
        let result = try convertFile(Samples.path("diagnostics-ios18-exceptions.json"))
        #expect(result.succeeded)
        #expect(result.rows.map(\.name) == ["cpu_exception", "disk_write", "launch_diag"])
        #expect(try result.row("cpu_exception").value == 91)
        #expect(try result.row("disk_write").value == 1074)  // "1074 MB"
        #expect(try result.row("launch_diag").value == 3.12)  // "3120 ms" in seconds
        // CPU: aggregated tree (no threadAttributed), heaviest path: pthread → Foundation → app → app → libc.
        let cpu = try #require(try result.row("cpu_exception").stack)
        #expect(cpu.map(\.offset) == [0x2A5C, 0x4154, 0x406C, 0x8D2C4, 0x1488])
    }

    /// iOS 14/15 wrote the image's load address in offsetIntoBinaryTextSegment; the offsets must
    /// come out as address − load address, the same as the iOS 18 dump of the same code.
    @Test func loadAddressQuirkPerBinary() throws {
        let old = try convertFile(Samples.path("diagnostics-ios14-quirk.json"))
        #expect(old.succeeded)
        #expect(old.rows.map(\.name) == ["crash", "hang", "cpu_exception", "disk_write"])
        let hang = try #require(try old.row("hang").stack)
        let current = try #require(try convertFile(Samples.path("diagnostics-ios18-crashes-hang.json")).row("hang").stack)
        #expect(hang == current)
        let crash = try #require(try old.row("crash").stack)
        #expect(crash[0] == StackFrame(image: "libsystem_kernel.dylib", uuid: kernelUUID, offset: 0x7E3C))
        #expect(crash.contains(StackFrame(image: "YuiApp", uuid: appUUID, offset: 0x4110)))
        #expect(try old.row("hang").value == 20)  // "20 secs."
        #expect(try old.row("disk_write").value == 2000.0 / 1_048_576)  // "2,000 byte"
    }

    @Test func quirkDecidedPerBinaryNotPerPayload() throws {
        // One binary with the load address in the field, one with real offsets, in one stack.
        let systemLoad: UInt64 = 0x1_D8A3_C000
        let chain = frameJSON(
            "libsystem_kernel.dylib", uuid: kernelUUID, address: systemLoad + 0x1A44, offset: systemLoad,
            subFrames: [frameJSON("YuiApp", uuid: appUUID, address: appLoad + 0x8A1C, offset: 0x8A1C)])
        let text = diagnosticPayload(
            "\"crashDiagnostics\" : [ { \"callStackTree\" : \(callStackTree([chain])), \"diagnosticMetaData\" : \(diagnosticMeta("\"signal\" : 11")) } ]"
        )
        let stack = try #require(try convert(text).row("crash").stack)
        #expect(stack.map(\.offset) == [0x1A44, 0x8A1C])
    }

    @Test func atMost32FramesTheInnermost() throws {
        // A crash chain of 40 frames, innermost (offset 0) at the root.
        var crashChain = ""
        for depth in (0..<40).reversed() {
            let offset = UInt64(0x1000 + depth * 4)
            crashChain = frameJSON(
                "YuiApp", uuid: appUUID, address: appLoad + offset, offset: offset, subFrames: crashChain.isEmpty ? [] : [crashChain])
        }
        // A sample tree 40 deep, outermost at the root: the innermost is the deepest.
        var tree = ""
        for depth in (0..<40).reversed() {
            let offset = UInt64(0x2000 + depth * 4)
            tree = frameJSON("YuiApp", uuid: appUUID, address: appLoad + offset, offset: offset, samples: 5, subFrames: tree.isEmpty ? [] : [tree])
        }
        let text = diagnosticPayload(
            """
            "crashDiagnostics" : [ { "callStackTree" : \(callStackTree([crashChain])), "diagnosticMetaData" : \(diagnosticMeta("\"signal\" : 11")) } ],
            "hangDiagnostics" : [ { "callStackTree" : \(callStackTree([tree])), "diagnosticMetaData" : \(diagnosticMeta("\"hangDuration\" : \"1 sec\"")) } ]
            """)
        let result = convert(text)
        let crash = try #require(try result.row("crash").stack)
        #expect(crash.count == 32)
        #expect(crash.first?.offset == 0x1000)
        #expect(crash.last?.offset == 0x1000 + 31 * 4)
        let hang = try #require(try result.row("hang").stack)
        #expect(hang.count == 32)
        #expect(hang.first?.offset == 0x2000 + 39 * 4)
        #expect(hang.last?.offset == 0x2000 + 8 * 4)
    }

    /// The normalizer makes each distinct image and UUID text once per stack and looks the rest up
    /// by a hash of their bytes: a hang's path through more images than its 64 slots, each image
    /// twice (its UUID upper case, then lower case: one binary), reads as the frames say.
    @Test func stackOfManyImagesReadsAsItsFrames() throws {
        func uuid(_ k: Int) -> String { String(format: "%08X-AAAA-3BBB-8CCC-%012X", 0xD000_0000 + k, k * 7) }
        func image(_ k: Int) -> String { k % 3 == 0 ? "Lib \(k)(x).dylib" : "Lib\(k)" }
        // Root to leaf: 65 images, then the same 65 again (130 frames, MetricKit's most); the leaf
        // is the innermost frame.
        let order = Array(0..<65) + Array(0..<65)
        var tree = ""
        for (depth, k) in order.enumerated().reversed() {
            let text = depth < 65 ? uuid(k) : uuid(k).lowercased()
            let address = 0x1_0000_0000 + UInt64(k) << 20 + UInt64(depth)
            tree = frameJSON(image(k), uuid: text, address: address, offset: UInt64(depth), subFrames: tree.isEmpty ? [] : [tree])
        }
        let text = diagnosticPayload(
            """
            "hangDiagnostics" : [ { "callStackTree" : \(callStackTree([tree])), "diagnosticMetaData" : \(diagnosticMeta("\"hangDuration\" : \"1 sec\"")) } ]
            """)
        let result = convert(text)
        #expect(result.errors.isEmpty, "\(result.errors)")
        let stack = try #require(try result.row("hang").stack)
        #expect(stack.count == 32)
        for (position, frame) in stack.enumerated() {
            let depth = order.count - 1 - position
            let k = order[depth]
            #expect(frame.image == image(k).filter { $0.isLetter || $0.isNumber || $0 == "." })
            #expect(frame.uuid == uuid(k))
            #expect(frame.offset == UInt64(depth))
        }
    }

    @Test func heaviestChildWithTiesOnTheFirst() throws {
        let leafA = frameJSON("YuiApp", uuid: appUUID, address: appLoad + 0xA0, offset: 0xA0, samples: 5)
        let leafB = frameJSON("YuiApp", uuid: appUUID, address: appLoad + 0xB0, offset: 0xB0, samples: 5)
        let light = frameJSON("YuiApp", uuid: appUUID, address: appLoad + 0xC0, offset: 0xC0, samples: 2)
        let root = frameJSON("YuiApp", uuid: appUUID, address: appLoad + 0x10, offset: 0x10, samples: 12, subFrames: [light, leafA, leafB])
        let otherRoot = frameJSON("YuiApp", uuid: appUUID, address: appLoad + 0x20, offset: 0x20, samples: 12)
        let text = diagnosticPayload(
            "\"hangDiagnostics\" : [ { \"callStackTree\" : \(callStackTree([root, otherRoot])), \"diagnosticMetaData\" : \(diagnosticMeta("\"hangDuration\" : \"1 sec\"")) } ]"
        )
        let stack = try #require(try convert(text).row("hang").stack)
        #expect(stack.map(\.offset) == [0xA0, 0x10])
    }

    @Test func singleDiagnosticAndFramesWithMissingFields() throws {
        let single = try convertFile(Samples.path("diagnostic-single-hang.json"))
        #expect(single.succeeded)
        #expect(single.rows.map(\.name) == ["hang"])
        #expect(single.rows[0].low_power == true)
        #expect(single.rows[0].app_build == 130)

        // A frame without binaryName and with a garbage UUID still gives image/uuid null, offset kept.
        let bare = "{ \"address\" : \(appLoad + 0x44), \"offsetIntoBinaryTextSegment\" : 68, \"binaryUUID\" : \"not-a-uuid\" }"
        let text = """
            { "timeStampBegin" : "2025-01-01 10:00:00", "timeStampEnd" : "2025-01-01 10:00:00",
              "callStackTree" : \(callStackTree([bare])), "diagnosticMetaData" : \(diagnosticMeta("\"exceptionType\" : 1")) }
            """
        let result = convert(text)
        #expect(result.rows.first?.name == "crash")
        #expect(result.rows.first?.stack == [StackFrame(image: nil, uuid: nil, offset: 68)])
        #expect(result.warnings.contains { $0.place.contains("binaryUUID") })
    }

    @Test func diagnosticWithoutUsableFramesHasANullStackAndAWarning() throws {
        let frame = "{ \"binaryName\" : \"YuiApp\" }"
        let text = diagnosticPayload(
            "\"hangDiagnostics\" : [ { \"callStackTree\" : \(callStackTree([frame])), \"diagnosticMetaData\" : \(diagnosticMeta("\"hangDuration\" : \"1 sec\"")) } ]"
        )
        let result = convert(text)
        #expect(result.succeeded)
        #expect(try result.row("hang").stack == nil)
        #expect(result.warnings.contains { $0.message.contains("no usable frame") })
    }

    @Test func imageNamesKeepOnlyTheAllowedCharacters() throws {
        let frame = "{ \"binaryName\" : \"Yui App (beta)/x\\\\y.dylib\", \"address\" : 100, \"offsetIntoBinaryTextSegment\" : 4 }"
        let text = diagnosticPayload(
            "\"hangDiagnostics\" : [ { \"callStackTree\" : \(callStackTree([frame])), \"diagnosticMetaData\" : \(diagnosticMeta("\"hangDuration\" : \"1 sec\"")) } ]"
        )
        #expect(try convert(text).row("hang").stack?.first?.image == "YuiAppbetaxy.dylib")
    }
}
