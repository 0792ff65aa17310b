import Foundation
import PayloadTool
import TestSupport
import Testing

/// The `top` test set (`scripts/make-top-testset`) over the fixture app's real debug files
/// (`dsyms-fixtures/builds`). Every expected line below is computed by hand from the durations
/// the script chose; the script's header shows the sums.
enum TopFixtures {
    static let folder = Repository.testFixtures.appendingPathComponent("top")
    static let dsyms = Repository.checkedInDsymsFixtures.appendingPathComponent("builds").path

    static func path(_ name: String) throws -> String {
        let url = folder.appendingPathComponent(name)
        guard FileManager.default.fileExists(atPath: url.path) else {
            throw FixtureMissing(description: "fixture \(name) not found at \(url.path); run scripts/make-top-testset")
        }
        return url.path
    }

    static func all() throws -> [String] {
        try ["build131-diagnostics.json", "build131-later.json", "build130-diagnostics.jsonl"].map(path)
    }

    struct FixtureMissing: Error, CustomStringConvertible { let description: String }

    static let parseSignature =
        "YuiLines.parse <- ChatStore.apply <- closure in ThreadView.body <- ThreadView.body <- ThreadView.refresh"
}

@Suite struct TopOnTheTestSet {
    @Test func givesTheHandComputedLinesPerBuildNewestFirst() throws {
        let result = ToolRun.run(["top", "--dsyms", TopFixtures.dsyms] + (try TopFixtures.all()))
        #expect(result.status == 0, "stderr: \(result.stderr)")
        #expect(
            result.stdout == """
                build 131
                  1. hang 3.6 s x3 on 1 phone (max 1.5 s)   \(TopFixtures.parseSignature)
                  2. crash 2.0 s x2 on 1 phone, EXC_BREAKPOINT (SIGTRAP)   crash <- YuiLines.fail <- main
                  3. hang 2.0 s x1 (max 2.0 s)   plus <- mix <- YuiLines.scanWord <- YuiLines.parse <- ChatStore.apply

                build 130
                  1. hang 2.5 s x1 (max 2.5 s)   yui.area <- Ledger.reserve <- Ledger.reserveAll <- YuiKitMeasure <- ChatStore.reload
                  2. hang 1.0 s x2 on 1 phone (max 0.6 s)   \(TopFixtures.parseSignature)
                  3. crash 1.0 s x1, EXC_BREAKPOINT (SIGTRAP)   yui.abortWith <- Ledger.close <- YuiKitMeasure <- ChatStore.reload <- ThreadView.refresh

                """)
    }

    /// YuiKit has no debug file in build 131, yet it is the app's code (not one of Apple's
    /// images): its frames lead line 4 as `YuiKit+0x...`. Line 5 is all system frames.
    @Test func theRestOfBuild131SystemFallbackAndFramesWithoutDebugFile() throws {
        let result = ToolRun.run(["top", "--dsyms", TopFixtures.dsyms, "--build", "131", "--count", "9"] + (try TopFixtures.all()))
        #expect(result.status == 0, "stderr: \(result.stderr)")
        #expect(
            result.stdout == """
                build 131
                  1. hang 3.6 s x3 on 1 phone (max 1.5 s)   \(TopFixtures.parseSignature)
                  2. crash 2.0 s x2 on 1 phone, EXC_BREAKPOINT (SIGTRAP)   crash <- YuiLines.fail <- main
                  3. hang 2.0 s x1 (max 2.0 s)   plus <- mix <- YuiLines.scanWord <- YuiLines.parse <- ChatStore.apply
                  4. hang 1.5 s x2 on 1 phone (max 0.8 s)   YuiKit+0x4144 <- YuiKit+0x40fc <- YuiKit+0x40ac <- ChatStore.reload <- ThreadView.refresh
                  5. hang 0.5 s x1 (max 0.5 s)   (system) libsystem_kernel.dylib+0x1a2c <- libsystem_kernel.dylib+0x5e0c <- libdispatch.dylib+0x3a40 <- UIKitCore+0x9f00 <- UIKitCore+0xa1c8

                """)
        // YuiKit has no debug file in build 131: the run says which UUID it missed.
        #expect(result.stderr.contains("4C4C4C4C-5555-3144-A1B2-0000000B0131"))
    }

    @Test func anAppImageWithoutDebugFileCountsWhenNamed() throws {
        let result = ToolRun.run(
            ["top", "--dsyms", TopFixtures.dsyms, "--build", "131", "--count", "9", "--app-image", "YuiKit"]
                + (try TopFixtures.all()))
        #expect(result.status == 0, "stderr: \(result.stderr)")
        #expect(
            result.stdout.contains(
                "  4. hang 1.5 s x2 on 1 phone (max 0.8 s)   YuiKit+0x4144 <- YuiKit+0x40fc <- YuiKit+0x40ac <- ChatStore.reload <- ThreadView.refresh\n"
            ))
    }

    @Test func crashWeightChangesTheRanking() throws {
        let result = ToolRun.run(
            ["top", "--dsyms", TopFixtures.dsyms, "--build", "131", "--count", "4", "--crash-weight", "0.5"]
                + (try TopFixtures.all()))
        #expect(result.status == 0, "stderr: \(result.stderr)")
        #expect(
            result.stdout == """
                build 131
                  1. hang 3.6 s x3 on 1 phone (max 1.5 s)   \(TopFixtures.parseSignature)
                  2. hang 2.0 s x1 (max 2.0 s)   plus <- mix <- YuiLines.scanWord <- YuiLines.parse <- ChatStore.apply
                  3. hang 1.5 s x2 on 1 phone (max 0.8 s)   YuiKit+0x4144 <- YuiKit+0x40fc <- YuiKit+0x40ac <- ChatStore.reload <- ThreadView.refresh
                  4. crash 1.0 s x2 on 1 phone, EXC_BREAKPOINT (SIGTRAP)   crash <- YuiLines.fail <- main

                """)
    }

    @Test func aBuildWithoutRowsSaysSo() throws {
        let result = ToolRun.run(["top", "--dsyms", TopFixtures.dsyms, "--build", "129"] + (try TopFixtures.all()))
        #expect(result.status == 0)
        #expect(result.stdout == "build 129\n  no hangs or crashes\n")
        #expect(result.stderr.contains("no rows of build 129"))
    }

    @Test func oneBadInputFailsTheRunButTheOthersAreStillRanked() throws {
        let bad = FileManager.default.temporaryDirectory.appendingPathComponent("top-bad-\(getpid()).json")
        try Data("{\"crashDiagnostics\": [".utf8).write(to: bad)
        defer { try? FileManager.default.removeItem(at: bad) }
        let result = ToolRun.run(["top", "--dsyms", TopFixtures.dsyms, bad.path] + (try TopFixtures.all()))
        #expect(result.status == 1)
        #expect(result.stderr.contains(bad.path))
        #expect(result.stdout.hasPrefix("build 131\n  1. hang 3.6 s x3 on 1 phone (max 1.5 s)"))
    }

    @Test func rowFilesRankTheSameAsThePayloads() throws {
        let rows = ToolRun.run(["rows"] + (try TopFixtures.all()))
        #expect(rows.status == 0, "stderr: \(rows.stderr)")
        let rowFile = FileManager.default.temporaryDirectory.appendingPathComponent("top-rows-\(getpid()).json")
        try Data(rows.stdout.utf8).write(to: rowFile)
        defer { try? FileManager.default.removeItem(at: rowFile) }
        let fromRows = ToolRun.run(["top", "--dsyms", TopFixtures.dsyms, "--json", rowFile.path])
        let fromPayloads = ToolRun.run(["top", "--dsyms", TopFixtures.dsyms, "--json"] + (try TopFixtures.all()))
        #expect(fromRows.status == 0, "stderr: \(fromRows.stderr)")
        #expect(fromRows.stdout == fromPayloads.stdout)
    }
}

@Suite struct TopMachineForms {
    @Test func jsonCarriesTheHeaviestOccurrencesFramesAndEveryRowKey() throws {
        let result = ToolRun.run(["top", "--dsyms", TopFixtures.dsyms, "--json", "--build", "131"] + (try TopFixtures.all()))
        #expect(result.status == 0, "stderr: \(result.stderr)")
        let document = try #require(try JSONSerialization.jsonObject(with: Data(result.stdout.utf8)) as? [String: Any])
        let build = try #require((document["builds"] as? [[String: Any]])?.first)
        #expect(build["build"] as? Int == 131)
        let signatures = try #require(build["signatures"] as? [[String: Any]])
        #expect(signatures.count == 3)
        let first = signatures[0]
        #expect(first["kind"] as? String == "hang")
        #expect(first["build"] as? Int == 131)
        #expect(first["weight"] as? Double == 3.6)
        #expect(first["count"] as? Int == 3)
        #expect(first["max"] as? Double == 1.5)
        #expect(first["signature"] as? String == TopFixtures.parseSignature)
        let rowKeys = try #require(first["row_keys"] as? [String])
        #expect(rowKeys.count == 3)
        #expect(Set(rowKeys).count == 3)
        #expect(rowKeys.contains(try #require(first["heaviest_row_key"] as? String)))
        // The heaviest (1.5 s) stack stopped in parse at line 32; the others at 25 and 27.
        let frames = try #require(first["frames"] as? [[String: Any]])
        #expect(
            frames.map { $0["name"] as? String } == [
                "YuiLines.parse", "ChatStore.apply", "closure in ThreadView.body", "ThreadView.body", "ThreadView.refresh",
            ])
        #expect(frames.map { $0["line"] as? Int } == [32, 29, 14, 17, 23])
        #expect(
            frames.map { ($0["file"] as? String)?.split(separator: "/").last.map(String.init) } == [
                "YuiLines.swift", "ChatStore.swift", "ThreadView.swift", "ThreadView.swift", "ThreadView.swift",
            ])
        #expect(frames.map { $0["inlined"] as? Bool } == [false, false, true, false, false])
        let crash = signatures[1]
        #expect(crash["kind"] as? String == "crash")
        #expect(crash["weight"] as? Double == 2)
        #expect(crash["count"] as? Int == 2)
    }

    @Test func foldedStacksAreWholeRootFirstAndWeightedInMilliseconds() throws {
        let result = ToolRun.run(["top", "--dsyms", TopFixtures.dsyms, "--folded", "--build", "130"] + (try TopFixtures.all()))
        #expect(result.status == 0, "stderr: \(result.stderr)")
        let parse = "build 130;hang;dyld+0x1d54;main;ThreadView.refresh;ThreadView.body;closure in ThreadView.body;ChatStore.apply;YuiLines.parse"
        let tail = "dyld+0x1d54;main;ThreadView.refresh;ChatStore.reload;YuiKitMeasure"
        #expect(
            result.stdout == """
                build 130;crash;\(tail);Ledger.close;yui.abortWith 1000
                build 130;hang;\(tail);Ledger.reserveAll;Ledger.reserve;yui.area 2500
                \(parse) 400
                \(parse);libsystem_kernel.dylib+0xa1c4 600

                """)
    }
}

@Suite struct TopDuplicates {
    @Test func aDumpGivenTwiceCountsOnce() throws {
        let once = ToolRun.run(["top", "--dsyms", TopFixtures.dsyms] + (try TopFixtures.all()))
        let twice = ToolRun.run(["top", "--dsyms", TopFixtures.dsyms] + (try TopFixtures.all()) + (try TopFixtures.all()))
        #expect(twice.status == 0)
        #expect(twice.stdout == once.stdout)
        #expect(twice.stderr.contains("note: 13 hang or crash rows read more than once"))
    }
}

/// The README's main job: build 104 has no folder; with an empty store its stacks are the app's own frames, with the fixture store they are named by UUID.
@Suite struct TopOnTheSamples {
    @Test func aBuildWithoutDebugFilesRanksItsAppFramesNotTheSystem() throws {
        let samplesFolder = Repository.samples
        let samples = try FileManager.default.contentsOfDirectory(atPath: samplesFolder.path)
            .filter { $0.hasSuffix(".json") || $0.hasSuffix(".jsonl") }.sorted().map { samplesFolder.appendingPathComponent($0).path }
        // An empty store: nothing known, so the shipped list of Apple's images decides, and YuiApp is the app's.
        let empty = FileManager.default.temporaryDirectory.appendingPathComponent("yui-empty-store-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: empty, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: empty) }
        let result = ToolRun.run(["top", "--dsyms", empty.path, "--build", "104"] + samples)
        #expect(result.status == 0, "\(result.stderr)")
        #expect(
            result.stdout == """
                build 104
                  1. hang 20.0 s x1 (max 20.0 s)   YuiApp+0x40b0 <- YuiApp+0x4110 <- YuiApp+0x41d0 <- YuiApp+0x4038
                  2. crash 1.0 s x1, EXC_CRASH (SIGABRT)   YuiApp+0x4110 <- YuiApp+0x41d0 <- YuiApp+0x4038

                """)
        // The fixture store: build 104 has no folder, but its frames carry the UUID of build 130's
        // YuiApp (the samples share one binary), so they are named from build 130's dSYM by UUID.
        let byUUID = ToolRun.run(["top", "--dsyms", TopFixtures.dsyms, "--build", "104"] + samples)
        #expect(byUUID.status == 0, "\(byUUID.stderr)")
        #expect(byUUID.stdout.contains("1. hang 20.0 s x1 (max 20.0 s)   mix <- YuiLines.scanWord"), "\(byUUID.stdout)")
        #expect(byUUID.stderr.contains("build 104: no folder"), "\(byUUID.stderr)")
    }
}
