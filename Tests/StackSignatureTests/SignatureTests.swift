import Foundation
import PayloadDecode
import StackSignature
import StackSymbolize
import Testing

private let app = "4C4C4C4C-5555-3144-A1B2-000000000131"
private let kernel = "11111111-2222-3333-4444-555555555555"
private let uikit = "66666666-7777-8888-9999-AAAAAAAAAAAA"

private func appFrame(_ offset: UInt64) -> StackFrame { StackFrame(image: "YuiApp", uuid: app, offset: offset) }
private func kernelFrame(_ offset: UInt64) -> StackFrame {
    StackFrame(image: "libsystem_kernel.dylib", uuid: kernel, offset: offset)
}
private func uikitFrame(_ offset: UInt64) -> StackFrame { StackFrame(image: "UIKitCore", uuid: uikit, offset: offset) }

/// The app: offsets 0x100... named; 0x100 holds two inlined calls.
private let symbolizer = CannedSymbolizer(
    debugFileUUIDs: [app],
    answers: [
        CannedSymbolizer.key(app, 0x100): sourceFrames([("YuiLines.scan", 12), ("YuiLines.parse", 40), ("ChatStore.apply", 88)]),
        CannedSymbolizer.key(app, 0x104): sourceFrames([("YuiLines.parse", 51)]),
        CannedSymbolizer.key(app, 0x200): sourceFrames([("ThreadView.body", 20)]),
        CannedSymbolizer.key(app, 0x300): sourceFrames([("closure in ThreadView.body", 24)]),
        CannedSymbolizer.key(app, 0x400): sourceFrames([("AppDelegate.run", 5)]),
        CannedSymbolizer.key(app, 0x500): sourceFrames([("YuiApp.main", 1)]),
        CannedSymbolizer.key(app, 0x600): sourceFrames([("ChatStore.apply", 90)]),
    ])

@Suite struct SignatureRules {
    let expander = StackExpander(symbolizer: symbolizer)

    @Test func inlinedAppFramesCountAmongTheFive() {
        let stack = expander.expand([appFrame(0x100), appFrame(0x200), appFrame(0x300), appFrame(0x400), appFrame(0x500)])
        let signature = StackSignature(of: stack)
        #expect(
            signature.text
                == "YuiLines.scan <- YuiLines.parse <- ChatStore.apply <- ThreadView.body <- closure in ThreadView.body")
        #expect(signature.frames.map(\.isInlined) == [true, true, false, false, false])
        #expect(!signature.isSystem)
    }

    @Test func systemFramesAreSkipped() {
        let stack = expander.expand([
            kernelFrame(0x1a2c), kernelFrame(0x2000), appFrame(0x104), uikitFrame(0x9000), appFrame(0x600),
            appFrame(0x200),
        ])
        #expect(StackSignature(of: stack).text == "YuiLines.parse <- ChatStore.apply <- ThreadView.body")
    }

    @Test func aStackOfSystemFramesOnlyFallsBackMarkedSystem() {
        let stack = expander.expand([
            kernelFrame(0x1a2c), kernelFrame(0x2000), uikitFrame(0x9000), uikitFrame(0x9100), uikitFrame(0x9200),
            uikitFrame(0x9300),
        ])
        let signature = StackSignature(of: stack)
        #expect(signature.isSystem)
        #expect(
            signature.text
                == "(system) libsystem_kernel.dylib+0x1a2c <- libsystem_kernel.dylib+0x2000 <- UIKitCore+0x9000 <- UIKitCore+0x9100 <- UIKitCore+0x9200"
        )
    }

    /// An image that is not one of Apple's is the app's code, debug file or not; `--app-image`
    /// makes an image named like a system one the app's too.
    @Test func anAppImageWithoutDebugFileCountsAndShowsItsOffset() {
        let framework = StackFrame(image: "YuiKit", uuid: "ABCDEFAB-0000-0000-0000-000000000001", offset: 0x4f0)
        let plain = expander.expand([kernelFrame(0x1a2c), framework, appFrame(0x200)])
        #expect(StackSignature(of: plain).text == "YuiKit+0x4f0 <- ThreadView.body")
        #expect(plain.missingDebugFiles.map(\.image) == ["YuiKit", "libsystem_kernel.dylib"])
        let shipped = StackFrame(image: "libYuiShared.dylib", uuid: "ABCDEFAB-0000-0000-0000-000000000002", offset: 0x10)
        #expect(StackSignature(of: expander.expand([shipped, appFrame(0x200)])).text == "ThreadView.body")
        let named = StackExpander(symbolizer: symbolizer, appImages: ["libYuiShared.dylib"]).expand([shipped, appFrame(0x200)])
        #expect(StackSignature(of: named).text == "libYuiShared.dylib+0x10 <- ThreadView.body")
    }

    @Test func anAppFrameTheDebugFileDoesNotKnowShowsItsOffset() {
        let stack = expander.expand([appFrame(0x7777), appFrame(0x200)])
        #expect(StackSignature(of: stack).text == "YuiApp+0x7777 <- ThreadView.body")
    }

    @Test func aFrameWithoutImageNameFallsBackToItsUUID() {
        let stack = StackExpander(symbolizer: NoDebugFiles()).expand([StackFrame(image: nil, uuid: kernel, offset: 0x10)])
        #expect(StackSignature(of: stack).text == "(system) \(kernel)+0x10")
    }

    @Test func aRowWithoutStackReadsNoStack() {
        #expect(StackSignature(of: expander.expand([])).text == "(no stack)")
    }

    @Test func theInnermostFrameIsNotAReturnAddressTheOthersAre() {
        final class Recorder: FrameSymbolizing, @unchecked Sendable {
            var seen: [FrameRequest] = []
            func symbolicate(_ stack: [FrameRequest]) -> [SymbolicatedFrame] {
                seen = stack
                return NoDebugFiles().symbolicate(stack)
            }
            func hasDebugFile(uuid: String) -> Bool { false }
        }
        let recorder = Recorder()
        _ = StackExpander(symbolizer: recorder).expand([appFrame(0x100), appFrame(0x200), appFrame(0x300)])
        #expect(recorder.seen.map(\.isReturnAddress) == [false, true, true])
    }
}

@Suite struct Ranking {
    let expander = StackExpander(symbolizer: symbolizer)

    func hang(_ build: Int, _ key: String, _ seconds: Double, _ stack: [StackFrame]) -> StackOccurrence {
        StackOccurrence(build: build, kind: .hang, rowKey: key, weight: seconds, stack: expander.expand(stack))
    }

    func crash(_ build: Int, _ key: String, _ stack: [StackFrame], weight: Double = 1) -> StackOccurrence {
        StackOccurrence(build: build, kind: .crash, rowKey: key, weight: weight, stack: expander.expand(stack))
    }

    @Test func theSameFunctionAtDifferentLinesGroupsTogether() throws {
        var tally = WorstStacksTally()
        // Two stacks through the same three functions; the third reaches them at other lines and offsets.
        tally.add(hang(131, "a", 0.4, [appFrame(0x104), appFrame(0x600), appFrame(0x200)]))
        tally.add(hang(131, "b", 1.2, [appFrame(0x104), appFrame(0x600), appFrame(0x200)]))
        let lineVariant = StackExpander(
            symbolizer: CannedSymbolizer(
                debugFileUUIDs: [app],
                answers: [
                    CannedSymbolizer.key(app, 0x108): sourceFrames([("YuiLines.parse", 77)]),
                    CannedSymbolizer.key(app, 0x600): sourceFrames([("ChatStore.apply", 91)]),
                    CannedSymbolizer.key(app, 0x200): sourceFrames([("ThreadView.body", 21)]),
                ])
        ).expand([appFrame(0x108), appFrame(0x600), appFrame(0x200)])
        tally.add(StackOccurrence(build: 131, kind: .hang, rowKey: "c", weight: 0.8, stack: lineVariant))
        let groups = tally.ranked(build: 131)
        #expect(groups.count == 1)
        let group = try #require(groups.first)
        #expect(group.count == 3)
        #expect(group.rowKeys == ["a", "b", "c"])
        #expect(WorstStacksReport.line(group) == "hang 2.4 s x3 (max 1.2 s)   YuiLines.parse <- ChatStore.apply <- ThreadView.body")
        // File and line come from the heaviest occurrence.
        #expect(group.heaviestRowKey == "b")
        #expect(group.heaviestFrames.map(\.line) == [51, 90, 20])
    }

    @Test func buildsNeverMix() {
        var tally = WorstStacksTally()
        tally.add(hang(130, "a", 1.0, [appFrame(0x200)]))
        tally.add(hang(131, "b", 2.0, [appFrame(0x200)]))
        tally.add(hang(131, "c", 0.5, [appFrame(0x200)]))
        tally.noteBuild(129)
        #expect(tally.builds == [131, 130, 129])
        #expect(tally.ranked(build: 130).map(\.count) == [1])
        #expect(tally.ranked(build: 131).map(\.count) == [2])
        #expect(
            WorstStacksReport.text(tally, builds: tally.builds, count: 3) == """
                build 131
                  1. hang 2.5 s x2 (max 2.0 s)   ThreadView.body

                build 130
                  1. hang 1.0 s x1 (max 1.0 s)   ThreadView.body

                build 129
                  no hangs or crashes

                """)
    }

    @Test func hangsAndCrashesWithTheSameSignatureAreSeparateGroups() {
        var tally = WorstStacksTally()
        tally.add(hang(131, "h", 0.3, [appFrame(0x200)]))
        tally.add(crash(131, "c1", [appFrame(0x200)]))
        tally.add(crash(131, "c2", [appFrame(0x200)]))
        #expect(
            tally.ranked(build: 131).map(WorstStacksReport.line) == [
                "crash 2.0 s x2   ThreadView.body",
                "hang 0.3 s x1 (max 0.3 s)   ThreadView.body",
            ])
    }

    @Test func rankByWeightThenCountThenSignature() {
        var tally = WorstStacksTally()
        // Equal weight 1.2 s: two occurrences beat one; equal weight and count: text order.
        tally.add(hang(131, "1", 1.2, [appFrame(0x200)]))  // ThreadView.body x1
        tally.add(hang(131, "2", 0.6, [appFrame(0x400)]))  // AppDelegate.run x2
        tally.add(hang(131, "3", 0.6, [appFrame(0x400)]))
        tally.add(hang(131, "4", 1.2, [appFrame(0x500)]))  // YuiApp.main x1
        tally.add(hang(131, "5", 0.1, [appFrame(0x600)]))  // ChatStore.apply: heaviest by nothing
        tally.add(crash(131, "6", [appFrame(0x600)], weight: 3))
        let lines = tally.ranked(build: 131).map(WorstStacksReport.line)
        #expect(
            lines == [
                "crash 3.0 s x1   ChatStore.apply",
                "hang 1.2 s x2 (max 0.6 s)   AppDelegate.run",
                "hang 1.2 s x1 (max 1.2 s)   ThreadView.body",
                "hang 1.2 s x1 (max 1.2 s)   YuiApp.main",
                "hang 0.1 s x1 (max 0.1 s)   ChatStore.apply",
            ])
        #expect(
            WorstStacksReport.text(tally, builds: [131], count: 2) == """
                build 131
                  1. crash 3.0 s x1   ChatStore.apply
                  2. hang 1.2 s x2 (max 0.6 s)   AppDelegate.run

                """)
    }

    /// `top` and the report pick their first N without sorting every signature; the pick must be
    /// the sorted order's first N, ties (equal milliseconds, equal counts) included.
    @Test func theFirstFewAreTheSortedOrdersFirstFew() {
        var tally = WorstStacksTally()
        var generator = SystemRandomNumberGenerator()
        for index in 0..<600 {
            let frame = ExpandedFrame(
                name: "F\(index % 211)", function: nil, image: "YuiApp", offset: UInt64(index), file: nil, line: nil, isInlined: false,
                isApp: true)
            // Weights from a few values, so many sums tie to the millisecond and are told apart by
            // count, then text, then kind.
            let weight = [0.1, 0.2, 0.3, 0.25][Int.random(in: 0..<4, using: &generator)]
            let kind: WorstStackKind = index % 5 == 0 ? .crash : .hang
            tally.add(StackOccurrence(build: 131 + index % 2, kind: kind, rowKey: "\(index)", weight: weight, stack: ExpandedStack(frames: [frame])))
        }
        for build in [131, 132, 999] {
            let sorted = tally.ranked(build: build)
            for limit in [0, 1, 3, 10, 32, 33, 150, 1_000] {
                let picked = tally.ranked(build: build, limit: limit)
                #expect(picked.map(WorstStacksReport.line) == sorted.prefix(limit).map(WorstStacksReport.line), "build \(build), first \(limit)")
                #expect(picked.map(\.kind) == sorted.prefix(limit).map(\.kind))
            }
        }
    }

    @Test func sumsThatDifferByFloatingPointNoiseTie() {
        var tally = WorstStacksTally()
        for key in ["a", "b", "c"] { tally.add(hang(131, key, 0.1, [appFrame(0x200)])) }  // 0.30000000000000004
        tally.add(hang(131, "d", 0.3, [appFrame(0x400)]))
        // Equal to the millisecond: the larger count wins, not the noise.
        #expect(tally.ranked(build: 131).map(\.signature.text) == ["ThreadView.body", "AppDelegate.run"])
    }

    @Test(arguments: [
        (3.5999999999999996, "3.6"), (0.25, "0.3"), (0.24, "0.2"), (1, "1.0"), (0, "0.0"), (12.345, "12.3"),
        (0.05, "0.1"), (0.0004, "0.0"),
        // A forged row file's absurd hang reads in scientific form, not as a clamped 9223372036854776.0.
        (1e15, "1.0e+15"), (1e300, "1.0e+300"), (999_999_999, "999999999.0"),
    ])
    func secondsWithOneDecimal(value: Double, text: String) {
        #expect(WorstStacksReport.seconds(value) == text)
    }

    @Test func foldedStacksAreRootFirstWeightedInMilliseconds() {
        var tally = WorstStacksTally()
        tally.add(hang(131, "a", 0.4, [appFrame(0x100), kernelFrame(0x10), appFrame(0x200)]))
        tally.add(hang(131, "b", 0.35, [appFrame(0x100), kernelFrame(0x10), appFrame(0x200)]))
        tally.add(crash(131, "c", [appFrame(0x200)]))
        tally.add(hang(130, "d", 2, [appFrame(0x200)]))
        #expect(
            WorstStacksReport.folded(tally, builds: [131]) == """
                build 131;crash;ThreadView.body 1000
                build 131;hang;ThreadView.body;libsystem_kernel.dylib+0x10;ChatStore.apply;YuiLines.parse;YuiLines.scan 750

                """)
    }
}

@Suite struct JSONForm {
    @Test func carriesBuildKindWeightCountMaxFramesAndRowKeys() throws {
        let expander = StackExpander(symbolizer: symbolizer)
        var tally = WorstStacksTally()
        tally.add(StackOccurrence(build: 131, kind: .hang, rowKey: "k1", weight: 0.4, stack: expander.expand([appFrame(0x104), appFrame(0x200)])))
        tally.add(StackOccurrence(build: 131, kind: .hang, rowKey: "k2", weight: 1.2, stack: expander.expand([appFrame(0x104), appFrame(0x200)])))
        tally.add(StackOccurrence(build: 131, kind: .crash, rowKey: "k3", weight: 1, stack: expander.expand([kernelFrame(0x10)])))
        let text = WorstStacksReport.json(tally, builds: [131], count: 3, crashWeight: 1)
        let document = try #require(try JSONSerialization.jsonObject(with: Data(text.utf8)) as? [String: Any])
        #expect(document["crash_weight"] as? Double == 1)
        let builds = try #require(document["builds"] as? [[String: Any]])
        #expect(builds.map { $0["build"] as? Int } == [131])
        let signatures = try #require(builds.first?["signatures"] as? [[String: Any]])
        #expect(signatures.count == 2)
        let hang = signatures[0]
        #expect(hang["rank"] as? Int == 1)
        #expect(hang["build"] as? Int == 131)
        #expect(hang["kind"] as? String == "hang")
        #expect(hang["signature"] as? String == "YuiLines.parse <- ThreadView.body")
        #expect(hang["system"] as? Bool == false)
        #expect(hang["weight"] as? Double == 1.6)
        #expect(hang["count"] as? Int == 2)
        #expect(hang["max"] as? Double == 1.2)
        #expect(hang["row_keys"] as? [String] == ["k1", "k2"])
        #expect(hang["heaviest_row_key"] as? String == "k2")
        let frames = try #require(hang["frames"] as? [[String: Any]])
        #expect(frames.map { $0["name"] as? String } == ["YuiLines.parse", "ThreadView.body"])
        #expect(frames.map { $0["line"] as? Int } == [51, 20])
        #expect(frames.map { $0["file"] as? String } == ["YuiApp/Sources.swift", "YuiApp/Sources.swift"])
        let crash = signatures[1]
        #expect(crash["signature"] as? String == "(system) libsystem_kernel.dylib+0x10")
        #expect(crash["system"] as? Bool == true)
        let crashFrame = try #require((crash["frames"] as? [[String: Any]])?.first)
        // Unknown values are written as null, never left out, so the shape is stable.
        #expect(crashFrame["line"] is NSNull)
        #expect(crashFrame["file"] is NSNull)
        #expect(crashFrame["offset"] as? Int == 0x10)
    }
}

@Suite struct AbsurdValues {
    @Test func hugeAndNonFiniteWeightsNeitherTrapNorMisorder() {
        let expander = StackExpander(symbolizer: symbolizer)
        var tally = WorstStacksTally()
        tally.add(StackOccurrence(build: 131, kind: .hang, rowKey: "a", weight: 1e300, stack: expander.expand([appFrame(0x200)])))
        tally.add(StackOccurrence(build: 131, kind: .hang, rowKey: "b", weight: 1e300, stack: expander.expand([appFrame(0x200)])))
        tally.add(StackOccurrence(build: 131, kind: .hang, rowKey: "c", weight: 1e16, stack: expander.expand([appFrame(0x400)])))
        tally.add(StackOccurrence(build: 131, kind: .hang, rowKey: "d", weight: .nan, stack: expander.expand([appFrame(0x500)])))
        tally.add(StackOccurrence(build: 131, kind: .hang, rowKey: "e", weight: 2, stack: expander.expand([appFrame(0x600)])))
        #expect(
            tally.ranked(build: 131).map(\.signature.text) == [
                "ThreadView.body", "AppDelegate.run", "ChatStore.apply", "YuiApp.main",
            ])
        let text = WorstStacksReport.text(tally, builds: [131], count: 5)
        #expect(text.contains("2.0 s x1 (max 2.0 s)   ChatStore.apply"))
        #expect(text.contains("0.0 s x1 (max 0.0 s)   YuiApp.main"))
        #expect(WorstStacksReport.json(tally, builds: [131], count: 5, crashWeight: 1).hasPrefix("{\n  \"builds\""))
        #expect(WorstStacksReport.folded(tally, builds: [131]).contains("ThreadView.body 9223372036854775807\n"))
    }
}
