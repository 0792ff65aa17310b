import Foundation
import Testing

@testable import TestSupport

/// The debug-file store as Xcode and App Store Connect fill it (docs/symbolication.md,
/// "The store"): real Apple-built files from dsyms-fixtures/real, imported as users import them,
/// then symbolicated and ranked as users do.
@Suite struct DebugFileStoreTests {
    let folder: URL
    var root: String { folder.appendingPathComponent("root").path }

    init() throws {
        folder = FileManager.default.temporaryDirectory.appendingPathComponent("yui-store-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
    }

    static func real(_ relative: String) throws -> String { try SymbolicateFixtures.path("real/" + relative) }

    // symbolic's macOS `crash`: its dSYM (DWARF) and its binary (symbol table only), one UUID.
    static let crashUUID = "67E9247C-814E-392B-A027-DBDE6748FCBF"
    /// 0x100000d38 in `MinidumpFileWriter::MinidumpFileWriter()` (minidump_file_writer.cc:96).
    static let crashOffset = 0xd38

    func path(_ relative: String) -> String { folder.appendingPathComponent(relative).path }

    func write(_ text: String, to relative: String) throws {
        let url = folder.appendingPathComponent(relative)
        try FileManager.default.createDirectory(at: url.deletingLastPathComponent(), withIntermediateDirectories: true)
        try text.write(to: url, atomically: true, encoding: .utf8)
    }

    func copy(_ source: String, to relative: String) throws {
        let url = folder.appendingPathComponent(relative)
        try FileManager.default.createDirectory(at: url.deletingLastPathComponent(), withIntermediateDirectories: true)
        try FileManager.default.copyItem(atPath: source, toPath: url.path)
    }

    static func plist(_ pairs: [String: String], archive: Bool = false) -> String {
        let body = pairs.sorted { $0.key < $1.key }.map { "<key>\($0.key)</key><string>\($0.value)</string>" }.joined()
        let dict = archive ? "<key>ApplicationProperties</key><dict>\(body)</dict>" : body
        return """
            <?xml version="1.0" encoding="UTF-8"?>
            <plist version="1.0"><dict>\(dict)</dict></plist>
            """
    }

    /// An `.xcarchive` as Xcode writes it: Info.plist, Products with the app binary and its
    /// resources, and (unless `withDSYMs` is false) dSYMs with the app's dSYM.
    func makeArchive(_ name: String, build: String, withDSYMs: Bool = true) throws -> String {
        let archive = "\(name).xcarchive"
        try write(Self.plist(["CFBundleVersion": build, "CFBundleShortVersionString": "1.0"], archive: true), to: "\(archive)/Info.plist")
        let app = "\(archive)/Products/Applications/crash.app"
        try copy(try Self.real("symbolic-macos/binary/crash"), to: "\(app)/crash")
        try write(Self.plist(["CFBundleVersion": build]), to: "\(app)/Info.plist")
        try write("APPL????", to: "\(app)/PkgInfo")
        try Data([0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A] + Array(repeating: 7, count: 300)).write(
            to: folder.appendingPathComponent("\(app)/AppIcon60x60@2x.png"))
        try Data((0..<4096).map { UInt8(truncatingIfNeeded: $0 * 31) }).write(to: folder.appendingPathComponent("\(app)/Assets.car"))
        try write("<?xml version=\"1.0\"?><plist version=\"1.0\"><dict/></plist>", to: "\(app)/_CodeSignature/CodeResources")
        try write("not a real profile", to: "\(app)/embedded.mobileprovision")
        if withDSYMs {
            try copy(try Self.real("symbolic-macos/crash.dSYM"), to: "\(archive)/dSYMs/crash.app.dSYM")
        }
        return path(archive)
    }

    /// A row file of one hang per (image, UUID, offset) stack, for `build`.
    func rows(_ name: String, build: Int, stacks: [[(image: String, uuid: String, offset: Int)]]) throws -> String {
        var lines = ""
        for (index, stack) in stacks.enumerated() {
            let frames = stack.map { "{\"image\":\"\($0.image)\",\"uuid\":\"\($0.uuid)\",\"offset\":\($0.offset)}" }.joined(separator: ",")
            let key = String(format: "%08x-0000-5000-8000-%012x", build, index)
            lines += """
                {"user_id":null,"row_key":"\(key)","kind":"diagnostic","name":"hang","app_build":\(build),"app_version":"1.0","os":"18.3.1","device":"iPhone16,1","promotion":true,"low_power":false,"thermal":0,"period_start":"2025-03-02T18:15:40Z","period_end":"2025-03-02T18:15:40Z","n":1,"buckets":null,"p50":null,"p95":null,"max":null,"value":1,"stack":[\(frames)]}

                """
        }
        try write(lines, to: name)
        return path(name)
    }

    func crashRows(build: Int) throws -> String {
        try rows("crash-\(build).jsonl", build: build, stacks: [[("crash", Self.crashUUID, Self.crashOffset)]])
    }

    /// `symbolicate` and `top` over the crash rows name the frame with file and line.
    func expectFileAndLine(build: Int, _ comment: Comment) throws {
        let symbolicated = CommandRun(["symbolicate", "--dsyms", root, try crashRows(build: build)])
        #expect(symbolicated.status == 0, "\(comment): \(symbolicated.stderr)")
        #expect(symbolicated.stdout.contains("(minidump_file_writer.cc:96)"), "\(comment): \(symbolicated.stdout)")
        #expect(!symbolicated.stdout.contains("[symbol table]"), "\(comment): \(symbolicated.stdout)")
        let top = CommandRun(["top", "--dsyms", root, "--json", try crashRows(build: build)])
        #expect(top.stdout.contains("minidump_file_writer.cc"), "\(comment): \(top.stdout)")
    }

    func storeFiles(_ build: String) -> [String] {
        ((try? FileManager.default.contentsOfDirectory(atPath: (root as NSString).appendingPathComponent(build))) ?? []).sorted()
    }

    func leftovers() -> [String] {
        let names = (try? FileManager.default.subpathsOfDirectory(atPath: root)) ?? []
        return names.filter { $0.contains(".import-") || $0.contains(".tmp-") }
    }

    @Test func anArchiveInBothOrdersThenTheBinaryAloneKeepsFileAndLine() throws {
        defer { try? FileManager.default.removeItem(at: folder) }
        let archive = try makeArchive("Crash", build: "77")
        // The whole archive: dSYM and Products in one run; resources skipped quietly, exit 0.
        let whole = CommandRun(["dsyms", "import", "--dsyms", root, archive])
        #expect(whole.status == 0, "\(whole.stderr)")
        #expect(whole.stderr.isEmpty, "\(whole.stderr)")
        #expect(whole.stdout.contains("1 imported"), "\(whole.stdout)")
        #expect(whole.stdout.contains("kept crash \(Self.crashUUID)"), "\(whole.stdout)")
        #expect(whole.stdout.contains("skipped (not Mach-O or ELF)"), "\(whole.stdout)")
        try expectFileAndLine(build: 77, "archive imported whole")
        // Again: nothing changes, still exit 0.
        let again = CommandRun(["dsyms", "import", "--dsyms", root, archive])
        #expect(again.status == 0, "\(again.stderr)")
        #expect(again.stdout.contains("0 imported, 1 unchanged"), "\(again.stdout)")
        // The binary alone, after its dSYM: kept out, the dSYM still answers.
        let binary = CommandRun(["dsyms", "import", "--dsyms", root, "--build", "77", archive + "/Products/Applications/crash.app/crash"])
        #expect(binary.status == 0, "\(binary.stderr)")
        #expect(binary.stdout.contains("kept crash"), "\(binary.stdout)")
        try expectFileAndLine(build: 77, "binary imported after the dSYM")
        #expect(storeFiles("77") == ["\(Self.crashUUID)-crash"])

        // The other order, in a fresh store: the Products first (symbol table only), then the dSYMs.
        try FileManager.default.removeItem(atPath: root)
        let products = CommandRun(["dsyms", "import", "--dsyms", root, archive + "/Products"])
        #expect(products.status == 0, "\(products.stderr)")
        #expect(products.stdout.contains("1 imported"), "\(products.stdout)")
        let dsyms = CommandRun(["dsyms", "import", "--dsyms", root, archive + "/dSYMs"])
        #expect(dsyms.status == 0, "\(dsyms.stderr)")
        #expect(dsyms.stdout.contains("1 imported"), "\(dsyms.stdout)")
        try expectFileAndLine(build: 77, "dSYM imported after the binary")
        let binaryAgain = CommandRun(["dsyms", "import", "--dsyms", root, "--build", "77", archive + "/Products/Applications/crash.app/crash"])
        #expect(binaryAgain.status == 0)
        try expectFileAndLine(build: 77, "binary imported again")
        #expect(storeFiles("77") == ["\(Self.crashUUID)-crash"])
        #expect(leftovers().isEmpty)
    }

    @Test func aBuildFolderHoldingTheBinaryAndItsDSYMAnswersFromTheDSYM() throws {
        defer { try? FileManager.default.removeItem(at: folder) }
        // A user's own layout: both copied into the build folder by hand, the binary's name first.
        try copy(try Self.real("symbolic-macos/binary/crash"), to: "root/5/a-crash")
        try copy(try Self.real("symbolic-macos/crash.dSYM"), to: "root/5/z-crash.dSYM")
        try expectFileAndLine(build: 5, "binary and dSYM side by side")
    }

    @Test func anArchiveWithoutDSYMsWarnsOnceAndStillExitsZero() throws {
        defer { try? FileManager.default.removeItem(at: folder) }
        let archive = try makeArchive("NoDSYMs", build: "12", withDSYMs: false)
        let run = CommandRun(["dsyms", "import", "--dsyms", root, archive])
        #expect(run.status == 0, "\(run.stderr)")
        let warnings = run.stderr.split(separator: "\n").filter { $0.hasPrefix("warning:") }
        #expect(warnings.count == 1, "\(run.stderr)")
        #expect(run.stderr.contains("without dSYMs") && run.stderr.contains("no file and line"), "\(run.stderr)")
        #expect(!run.stderr.contains("error:"), "\(run.stderr)")
    }

    /// App Store Connect's "Download dSYMs": many `UUID.dSYM`s, each framework's with the
    /// framework's own `CFBundleVersion`. Every frame of the app's build is named by UUID.
    @Test func anAppStoreConnectZipWithFrameworksOfOtherVersionsNamesEveryFrame() throws {
        defer { try? FileManager.default.removeItem(at: folder) }
        let sentry = "sentry-ios-1.4.1"
        let members: [(uuid: String, image: String, version: String, offset: Int)] = [
            ("54039061-A983-3323-A49D-837A894D667F", "CrashProbeiOS", "130", 0x7758),  // the app, arm64
            ("16A1E2FB-6E3F-3A85-A310-0B283C16D894", "PLCrashReporter_DynamicFramework", "1.4.1", 0x700e),  // a framework, armv7
            ("CECB236E-E4C7-3271-A597-55FBDBE488C6", "libswiftDispatch.dylib", "900.0.69", 0x56cc),
            ("C68C14BD-7CD2-33A5-BCEB-794964630DB5", "libswiftCoreGraphics.dylib", "900.0.69", 0x78b8),
        ]
        var entries: [(entry: String, source: String, isText: Bool)] = []
        for member in members {
            let bundle = "\(member.uuid).dSYM"
            entries.append(
                (
                    "\(bundle)/Contents/Resources/DWARF/\(member.image)",
                    try Self.real("\(sentry)/\(bundle)/Contents/Resources/DWARF/\(member.image)"), false
                ))
            entries.append(("\(bundle)/Contents/Info.plist", Self.plist(["CFBundleVersion": member.version]), true))
        }
        let zipPath = try Zips.make(path("appDsyms.zip"), entries)
        let run = CommandRun(["dsyms", "import", "--dsyms", root, zipPath])
        #expect(run.status == 0, "\(run.stderr)")
        #expect(storeFiles("1").count == 1 && storeFiles("900").count == 2 && storeFiles("130").count == 1, "\(run.stdout)")
        let rowFile = try rows("app-130.jsonl", build: 130, stacks: [members.map { ($0.image, $0.uuid, $0.offset) }])
        let symbolicated = CommandRun(["symbolicate", "--json", "--dsyms", root, rowFile])
        #expect(symbolicated.status == 0, "\(symbolicated.stderr)")
        let stacks = try JSONSerialization.jsonObject(with: Data(symbolicated.stdout.utf8)) as? [[String: Any]]
        let frames = try #require(stacks?.first?["frames"] as? [[String: Any]])
        #expect(frames.count == members.count)
        for (frame, member) in Swift.zip(frames, members) {
            #expect(frame["status"] as? String == "symbolicated", "\(member.image): \(frame)")
            #expect((frame["debug_file"] as? String)?.contains(member.uuid) == true, "\(member.image): \(frame)")
        }
        // `dsyms` says where the frames of other builds were found.
        let listed = CommandRun(["dsyms", "--dsyms", root, "130", rowFile])
        #expect(listed.stdout.contains("Found by UUID in other builds:"), "\(listed.stdout)")
        #expect(listed.stdout.contains("Every UUID has a usable debug file."), "\(listed.stdout)")
    }

    /// A frame before the text section of a framework whose text base is 0 (Sentry's
    /// PLCrashReporter, `__text` from 0x6fe0) is named by its offset, never as a negative one:
    /// the caller's frame is looked up at its offset minus one, which is no address below the image.
    @Test func aFrameBeforeTheTextOfAnImageBasedAtZeroShowsItsOffset() throws {
        defer { try? FileManager.default.removeItem(at: folder) }
        let uuid = "16A1E2FB-6E3F-3A85-A310-0B283C16D894"
        let image = "PLCrashReporter_DynamicFramework"
        try copy(try Self.real("sentry-ios-1.4.1/\(uuid).dSYM"), to: "root/130/\(uuid).dSYM")
        let rowFile = try rows("before-text.jsonl", build: 130, stacks: [[(image, uuid, 0x700e), (image, uuid, 0x4000)]])
        let run = CommandRun(["symbolicate", "--dsyms", root, rowFile])
        #expect(run.status == 0, "\(run.stderr)")
        let lines = run.stdout.split(separator: "\n").map(String.init)
        #expect(lines.contains { $0.hasSuffix(" \(image) + 16384 [no symbol at 0x3fff]") }, "\(run.stdout)")
        #expect(!run.stdout.contains(" - "), "\(run.stdout)")
        #expect(lines.contains { $0.contains("0x000000000000700e") && $0.contains("(") }, "the frame in the text is named: \(run.stdout)")
    }

    @Test func aDottedVersionLandsInItsBuildNumbersFolder() throws {
        defer { try? FileManager.default.removeItem(at: folder) }
        try copy(try Self.real("symbolic-macos/crash.dSYM"), to: "in/crash.app.dSYM")
        try write(Self.plist(["CFBundleVersion": "4.2.1"]), to: "in/crash.app.dSYM/Contents/Info.plist")
        let run = CommandRun(["dsyms", "import", "--dsyms", root, path("in/crash.app.dSYM")])
        #expect(run.status == 0, "\(run.stderr)")
        #expect(storeFiles("4") == ["\(Self.crashUUID)-crash"])
        #expect(!FileManager.default.fileExists(atPath: (root as NSString).appendingPathComponent("4.2.1")))
        try expectFileAndLine(build: 4, "dotted version")
        // `--build 130.1` is build 130, as in the rows.
        let given = CommandRun(["dsyms", "import", "--dsyms", root, "--build", "130.1", path("in/crash.app.dSYM")])
        #expect(given.status == 0, "\(given.stderr)")
        #expect(storeFiles("130") == ["\(Self.crashUUID)-crash"])
    }

    @Test func systemAndOtherNamesThatAreNoBuildNumberAreRefused() throws {
        defer { try? FileManager.default.removeItem(at: folder) }
        let archive = try makeArchive("System", build: "system")
        let run = CommandRun(["dsyms", "import", "--dsyms", root, archive])
        #expect(run.status == 1)
        #expect(run.stderr.contains("'system' is not a build number"), "\(run.stderr)")
        #expect(!FileManager.default.fileExists(atPath: (root as NSString).appendingPathComponent("system")))
        let given = CommandRun(["dsyms", "import", "--dsyms", root, "--build", "system", archive])
        #expect(given.status == 64)
        #expect(!FileManager.default.fileExists(atPath: (root as NSString).appendingPathComponent("system")))
    }

    /// Apple's empty dSYMs (no code, no DWARF): listed as usable, and a frame in one is "not found".
    @Test func anEmptyDSYMAnswersNotFoundWithExitZero() throws {
        defer { try? FileManager.default.removeItem(at: folder) }
        let empty = try Self.real("sentry-ios-1.4.1/18ABF908-C607-32F8-BE39-B5FC706D495B.dSYM")
        let object = CommandRun(["symbolicate", "--json", "--object", empty, "0x7db4"])
        #expect(object.status == 0, "\(object.stderr)")
        #expect(object.stdout.contains("\"status\":\"not_found\""), "\(object.stdout)")
        try copy(empty, to: "root/3/18ABF908-C607-32F8-BE39-B5FC706D495B.dSYM")
        let listed = CommandRun(["dsyms", "--dsyms", root, "3"])
        #expect(listed.status == 0, "\(listed.stderr)")
        #expect(!listed.stdout.contains("not usable"), "\(listed.stdout)")
    }

    /// `--object BINARY` reads `BINARY.dSYM` beside it (and `X.app.dSYM` beside `X.app`).
    @Test func objectFindsTheDSYMBesideTheBinary() throws {
        defer { try? FileManager.default.removeItem(at: folder) }
        try copy(try Self.real("symbolic-macos/binary/crash"), to: "alone/crash")
        try copy(try Self.real("symbolic-macos/binary/crash"), to: "side/crash")
        try copy(try Self.real("symbolic-macos/crash.dSYM"), to: "side/crash.dSYM")
        try copy(try Self.real("symbolic-macos/binary/crash"), to: "Products/crash.app/crash")
        try copy(try Self.real("symbolic-macos/crash.dSYM"), to: "Products/crash.app.dSYM")
        let alone = CommandRun(["symbolicate", "--object", path("alone/crash"), "0x100000d38"])
        #expect(alone.stdout.contains("[symbol table]"), "\(alone.stdout)")
        for binary in ["side/crash", "Products/crash.app/crash"] {
            let run = CommandRun(["symbolicate", "--object", path(binary), "0x100000d38"])
            #expect(run.status == 0, "\(run.stderr)")
            #expect(run.stdout.contains("(minidump_file_writer.cc:96)"), "\(binary): \(run.stdout)")
        }
    }

    /// A zip that expands a thousand times is refused before it fills the disk, and an entry named
    /// like an Info.plist is never read into memory whole.
    @Test func aZipBombIsRefusedWithTheStoreSmallAndMemoryLow() throws {
        defer { try? FileManager.default.removeItem(at: folder) }
        let zip = path("bomb.zip")
        let script = """
            import zipfile, sys
            z = zipfile.ZipFile(sys.argv[1], 'w', zipfile.ZIP_DEFLATED)
            block = bytes(1 << 20)
            for name, megabytes in (('Bomb.dSYM/Contents/Info.plist', 300), ('Bomb.dSYM/Contents/Resources/DWARF/Bomb', 700)):
                with z.open(name, 'w', force_zip64=True) as f:
                    for _ in range(megabytes): f.write(block)
            z.close()
            """
        try Zips.python(script, [zip])
        let zipSize = try #require(try FileManager.default.attributesOfItem(atPath: zip)[.size] as? Int)
        #expect(zipSize < 2 << 20)
        // Run as a user runs it, its peak memory read from the kernel's accounting of the child.
        let measured = try Zips.pythonOutput(
            """
            import subprocess, resource, sys
            r = subprocess.run(sys.argv[1:], capture_output=True, text=True)
            print(r.returncode); print(resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss); print(r.stderr)
            """, [try ToolBinary.executable().path, "dsyms", "import", "--dsyms", root, zip])
        let lines = measured.split(separator: "\n", omittingEmptySubsequences: false)
        #expect(lines.first == "1", "\(measured)")
        let peakKilobytes = Int(lines.dropFirst().first ?? "") ?? .max
        #expect(peakKilobytes < 200 * 1024, "peak RSS \(peakKilobytes) kB")
        #expect(measured.contains("refused as a zip bomb"), "\(measured)")
        #expect(measured.contains("Info.plist': larger than 1 MB"), "\(measured)")
        let stored = ((try? FileManager.default.subpathsOfDirectory(atPath: root)) ?? []).reduce(0) { total, name in
            total + ((try? FileManager.default.attributesOfItem(atPath: (root as NSString).appendingPathComponent(name))[.size] as? Int) ?? 0)
        }
        #expect(stored < 1 << 20, "the store holds \(stored) bytes after the refusal")
        #expect(leftovers().isEmpty)
    }

    /// SIGINT, SIGTERM or SIGHUP while a zip is unpacked leaves nothing behind; a dead run's
    /// leftovers go on the next import.
    @Test(arguments: [SIGINT, SIGTERM, SIGHUP]) func aSignalDuringImportLeavesNothing(_ signalNumber: Int32) throws {
        defer { try? FileManager.default.removeItem(at: folder) }
        let zip = path("big.zip")
        // 400 MB stored (not compressed): unpacking takes long enough to be interrupted.
        try Zips.python(
            """
            import zipfile, sys, os
            z = zipfile.ZipFile(sys.argv[1], 'w', zipfile.ZIP_STORED)
            with z.open('Big.dSYM/Contents/Resources/DWARF/Big', 'w', force_zip64=True) as f:
                block = os.urandom(1 << 20)
                for _ in range(400): f.write(block)
            z.close()
            """, [zip])
        try FileManager.default.createDirectory(atPath: root, withIntermediateDirectories: true)
        let process = Process()
        process.executableURL = try ToolBinary.executable()
        process.arguments = ["dsyms", "import", "--dsyms", root, "--build", "9", zip]
        process.standardOutput = FileHandle.nullDevice
        process.standardError = FileHandle.nullDevice
        try process.run()
        let staging = (root as NSString).appendingPathComponent(".import-\(process.processIdentifier)")
        var waited = 0
        while ((try? FileManager.default.contentsOfDirectory(atPath: staging)) ?? []).isEmpty, waited < 20_000, process.isRunning {
            usleep(2_000)
            waited += 2
        }
        kill(process.processIdentifier, signalNumber)
        process.waitUntilExit()
        #expect(process.terminationReason == .uncaughtSignal)
        #expect(process.terminationStatus == signalNumber)
        #expect(leftovers().isEmpty, "\(leftovers())")
        // A run killed with SIGKILL cannot clean up: its leftovers go with the next import.
        let deadPID = 999_999
        try FileManager.default.createDirectory(atPath: root + "/.import-\(deadPID)/x", withIntermediateDirectories: true)
        try write("half", to: "root/9/\(Self.crashUUID)-crash.tmp-\(deadPID)")
        try copy(try Self.real("symbolic-macos/crash.dSYM"), to: "small/crash.dSYM")
        let next = CommandRun(["dsyms", "import", "--dsyms", root, "--build", "9", path("small/crash.dSYM")])
        #expect(next.status == 0, "\(next.stderr)")
        #expect(leftovers().isEmpty, "\(leftovers())")
    }

    @Test func theDefaultRootIsUnderHOME() throws {
        defer { try? FileManager.default.removeItem(at: folder) }
        try copy(try Self.real("symbolic-macos/crash.dSYM"), to: "home/in/crash.dSYM")
        let home = path("home")
        let run = try ToolBinary.run(
            ["dsyms", "import", "--build", "8", home + "/in/crash.dSYM"], environment: ["HOME": home, "YUI_DSYMS": ""])
        #expect(run.status == 0, "\(run.stderr)")
        #expect(FileManager.default.fileExists(atPath: home + "/.yui-dsyms/8/\(Self.crashUUID)-crash"), "\(run.stdout)")
    }

    /// App or Apple's: once the store knows the app's images, an image it does not know (iOS's
    /// private frameworks, missing from any list) is Apple's; `Splash.debug.dylib` is `Splash`'s.
    @Test func imagesTheStoreDoesNotKnowAreApplesOnceItKnowsTheApp() throws {
        defer { try? FileManager.default.removeItem(at: folder) }
        try copy(try Self.real("symbolic-macos/crash.dSYM"), to: "in/crash.dSYM")
        #expect(CommandRun(["dsyms", "import", "--dsyms", root, "--build", "20", path("in/crash.dSYM")]).status == 0)
        let other = "11111111-2222-3333-4444-555555555555"
        let rowFile = try rows(
            "mixed.jsonl", build: 21,
            stacks: [
                [
                    ("ColorSync", other, 0x1238), ("UpdateCycle", "22222222-2222-3333-4444-555555555555", 0x40),
                    ("crash.debug.dylib", "33333333-2222-3333-4444-555555555555", 0x10), ("crash", Self.crashUUID, Self.crashOffset),
                ]
            ])
        let top = CommandRun(["top", "--dsyms", root, rowFile])
        #expect(top.status == 0, "\(top.stderr)")
        #expect(!top.stdout.contains("ColorSync") && !top.stdout.contains("UpdateCycle"), "\(top.stdout)")
        #expect(top.stdout.contains("crash.debug.dylib+0x10 <- MinidumpFileWriter"), "\(top.stdout)")
        // `--system-image` and `--app-image` still decide where given.
        let marked = CommandRun(["top", "--dsyms", root, "--app-image", "ColorSync", "--system-image", "crash.debug.dylib", rowFile])
        #expect(marked.stdout.contains("ColorSync+0x1238 <- MinidumpFileWriter"), "\(marked.stdout)")
    }
}

/// Real archives from public repositories (dsyms-fixtures/real/PROVENANCE), resources and all.
@Suite struct RealArchiveImportTests {
    let folder: URL
    var root: String { folder.appendingPathComponent("root").path }

    init() throws {
        folder = FileManager.default.temporaryDirectory.appendingPathComponent("yui-real-archive-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
    }

    /// sentry-cli's test archive (Xcode, an app with two frameworks, `embedded.mobileprovision`,
    /// no dSYMs): exit 0 twice, what it skipped said, one warning about the missing dSYMs.
    @Test func sentryCLIsArchiveImportsTwiceWithExitZero() throws {
        defer { try? FileManager.default.removeItem(at: folder) }
        let archive = try DebugFileStoreTests.real("sentry-cli/archive.xcarchive")
        let first = CommandRun(["dsyms", "import", "--dsyms", root, archive])
        #expect(first.status == 0, "\(first.stderr)")
        #expect(first.stdout.hasSuffix("3 imported, 0 unchanged, 8 skipped (not Mach-O or ELF)\n"), "\(first.stdout)")
        #expect(!first.stderr.contains("error:"), "\(first.stderr)")
        #expect(first.stderr.components(separatedBy: "warning:").count == 2, "\(first.stderr)")
        #expect(first.stderr.contains("without dSYMs"), "\(first.stderr)")
        let second = CommandRun(["dsyms", "import", "--dsyms", root, archive])
        #expect(second.status == 0, "\(second.stderr)")
        #expect(second.stdout.hasSuffix("0 imported, 3 unchanged, 8 skipped (not Mach-O or ELF)\n"), "\(second.stdout)")
    }

    /// A real Xcode 16.2 archive (dSYM and stripped binary, one UUID; a timestamp build number).
    @Test func anXcode16ArchiveKeepsItsDSYMAndSaysWhyATimestampBuildIsRefused() throws {
        defer { try? FileManager.default.removeItem(at: folder) }
        let archive = try DebugFileStoreTests.real("fastlane-example/Runner.xcarchive")
        let refused = CommandRun(["dsyms", "import", "--dsyms", root, archive])
        #expect(refused.status == 1)
        #expect(refused.stderr.contains("'202503241512' is larger than 2147483647"), "\(refused.stderr)")
        for run in 1...2 {
            let placed = CommandRun(["dsyms", "import", "--dsyms", root, "--build", "7", archive])
            #expect(placed.status == 0, "run \(run): \(placed.stderr)")
            #expect(placed.stdout.contains("kept Fastlane-Example A24E9F45-955F-38AC-B88F-B42908EBCEAD"), "run \(run): \(placed.stdout)")
            #expect(placed.stdout.contains(run == 1 ? "1 imported" : "1 unchanged"), "run \(run): \(placed.stdout)")
        }
        // The binary has no symbol at 0x4030; the dSYM knows the closure, file and line.
        let rows = folder.appendingPathComponent("rows.jsonl")
        try """
        {"user_id":null,"row_key":"00000007-0000-5000-8000-000000000001","kind":"diagnostic","name":"crash","app_build":7,"app_version":"1.0.0","os":"18.3.1","device":"iPhone16,1","promotion":true,"low_power":false,"thermal":0,"period_start":"2025-03-02T18:15:40Z","period_end":"2025-03-02T18:15:40Z","n":1,"buckets":null,"p50":null,"p95":null,"max":null,"value":1,"stack":[{"image":"Fastlane-Example","uuid":"A24E9F45-955F-38AC-B88F-B42908EBCEAD","offset":16432}]}

        """.write(to: rows, atomically: true, encoding: .utf8)
        let symbolicated = CommandRun(["symbolicate", "--dsyms", root, rows.path])
        #expect(symbolicated.stdout.contains("closure in ContentView.body + 16 (ContentView.swift:12)"), "\(symbolicated.stdout)")
    }
}

/// `top` on real iOS 26 crash diagnostics (Tests/Fixtures/real-metrickit, from embrace-apple-sdk):
/// Apple's private frameworks never rank as the app's code, with an empty store (the shipped
/// list) and with a store that knows the app (`Splash`, whose code is in `Splash.debug.dylib`).
@Suite struct RealIOS26CrashTests {
    static let apple = ["ColorSync", "UpdateCycle", "CoreGraphics", "CoreFoundation", "UIKitCore", "SwiftUI", "libsystem_"]

    func signatures(_ output: String) -> [String] {
        output.split(separator: "\n").filter { $0.contains(". crash ") }.map(String.init)
    }

    @Test(arguments: [false, true]) func applesFrameworksAreNeverTheApps(storeKnowsTheApp: Bool) throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("yui-ios26-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        if storeKnowsTheApp {
            // What importing Splash's archive leaves: the app's binary under its UUID and name.
            try FileManager.default.createDirectory(at: folder.appendingPathComponent("51"), withIntermediateDirectories: true)
            try FileManager.default.copyItem(
                atPath: try DebugFileStoreTests.real("symbolic-macos/binary/crash"),
                toPath: folder.appendingPathComponent("51/67E9247C-814E-392B-A027-DBDE6748FCBF-Splash").path)
        }
        let fixtures = Repository.testFixtures.appendingPathComponent("real-metrickit")
        let files = try FileManager.default.contentsOfDirectory(atPath: fixtures.path).filter { $0.hasPrefix("embrace-") }.sorted()
        #expect(files.count == 3)
        let run = CommandRun(["top", "--dsyms", folder.path] + files.map { fixtures.appendingPathComponent($0).path })
        #expect(run.status == 0, "\(run.stderr)")
        let lines = signatures(run.stdout)
        #expect(lines.count == 3, "\(run.stdout)")
        for line in lines {
            let signature = line.components(separatedBy: "   ").last ?? ""
            for name in Self.apple { #expect(!signature.contains(name), "\(line)") }
            #expect(signature.contains("Splash.debug.dylib+0x"), "\(line)")
        }
    }
}

/// Zips made with Python's zipfile (a test tool); the command reads them with libarchive.
enum Zips {
    static func python(_ script: String, _ arguments: [String]) throws {
        _ = try pythonOutput(script, arguments)
    }

    static func pythonOutput(_ script: String, _ arguments: [String]) throws -> String {
        let output = FileManager.default.temporaryDirectory.appendingPathComponent("yui-python-\(UUID().uuidString)")
        FileManager.default.createFile(atPath: output.path, contents: nil)
        defer { try? FileManager.default.removeItem(at: output) }
        let handle = try FileHandle(forWritingTo: output)
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        process.arguments = ["python3", "-c", script] + arguments
        process.standardOutput = handle
        try process.run()
        process.waitUntilExit()
        try handle.close()
        try #require(process.terminationStatus == 0)
        return String(decoding: try Data(contentsOf: output), as: UTF8.self)
    }

    /// A zip of (entry name, file path or text, is text) entries.
    static func make(_ path: String, _ entries: [(entry: String, source: String, isText: Bool)]) throws -> String {
        var script = "import zipfile, sys\nz = zipfile.ZipFile(sys.argv[1], 'w', zipfile.ZIP_DEFLATED)\n"
        var arguments = [path]
        for entry in entries {
            arguments += [entry.entry, entry.source]
            // `python3 -c SCRIPT A B`: sys.argv is ['-c', A, B], so an argument's index there is one more.
            let index = arguments.count - 1
            script +=
                entry.isText
                ? "z.writestr(sys.argv[\(index)], sys.argv[\(index + 1)])\n" : "z.write(sys.argv[\(index + 1)], sys.argv[\(index)])\n"
        }
        script += "z.close()\n"
        try python(script, arguments)
        return path
    }
}
