import Foundation
import Testing

/// `dsyms import`: an `.xcarchive`, a zip with two dSYMs (one fat), a zip with a `../` entry and a
/// link (refused, nothing written outside the root), and a second import that changes nothing.
/// Zips are made with Python's zipfile (a test tool); the command reads them with libarchive.
@Suite struct DsymsImportTests {
    let folder: URL
    var root: String { folder.appendingPathComponent("root").path }

    init() throws {
        folder = FileManager.default.temporaryDirectory.appendingPathComponent("yui-import-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
    }

    func fixture(_ relative: String) throws -> String { try SymbolicateFixtures.path(relative) }

    /// Writes a zip of (entry name, file path or text, is a link) with python3's zipfile.
    func zip(_ name: String, _ entries: [(entry: String, source: String, isText: Bool, isLink: Bool)]) throws -> String {
        let path = folder.appendingPathComponent(name).path
        var script = "import zipfile\nz = zipfile.ZipFile(\(pythonString(path)), 'w')\n"
        for entry in entries {
            if entry.isLink {
                script +=
                    "i = zipfile.ZipInfo(\(pythonString(entry.entry))); i.external_attr = 0o120777 << 16; z.writestr(i, \(pythonString(entry.source)))\n"
            } else if entry.isText {
                script += "z.writestr(\(pythonString(entry.entry)), \(pythonString(entry.source)))\n"
            } else {
                script += "z.write(\(pythonString(entry.source)), \(pythonString(entry.entry)))\n"
            }
        }
        script += "z.close()\n"
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        process.arguments = ["python3", "-c", script]
        try process.run()
        process.waitUntilExit()
        try #require(process.terminationStatus == 0)
        return path
    }

    func pythonString(_ text: String) -> String {
        "'"
            + text.replacingOccurrences(of: "\\", with: "\\\\").replacingOccurrences(of: "'", with: "\\'")
            .replacingOccurrences(of: "\n", with: "\\n") + "'"
    }

    func files(_ build: String) -> [String] {
        ((try? FileManager.default.contentsOfDirectory(atPath: (root as NSString).appendingPathComponent(build))) ?? []).sorted()
    }

    @Test func anArchiveIsImportedUnderItsBuildAndASecondImportChangesNothing() throws {
        defer { try? FileManager.default.removeItem(at: folder) }
        let archive = folder.appendingPathComponent("Yui 2.1.xcarchive")
        try FileManager.default.createDirectory(at: archive.appendingPathComponent("dSYMs"), withIntermediateDirectories: true)
        try FileManager.default.copyItem(
            atPath: try fixture("builds/130/YuiApp.app.dSYM"), toPath: archive.appendingPathComponent("dSYMs/YuiApp.app.dSYM").path)
        let plist = """
            <?xml version="1.0" encoding="UTF-8"?>
            <plist version="1.0"><dict><key>ApplicationProperties</key><dict><key>CFBundleVersion</key><string>777</string></dict></dict></plist>
            """
        try plist.write(to: archive.appendingPathComponent("Info.plist"), atomically: true, encoding: .utf8)
        let first = CommandRun(["dsyms", "import", "--dsyms", root, archive.path])
        #expect(first.status == 0, "\(first.stderr)")
        #expect(files("777") == ["4C4C4C4C-5555-3144-A1B2-000000000130-YuiApp"])
        let placed = (root as NSString).appendingPathComponent("777/4C4C4C4C-5555-3144-A1B2-000000000130-YuiApp")
        let before = try FileManager.default.attributesOfItem(atPath: placed)
        let second = CommandRun(["dsyms", "import", "--dsyms", root, archive.path])
        #expect(second.status == 0)
        #expect(second.stdout.hasSuffix("0 imported, 1 unchanged\n"), "\(second.stdout)")
        let after = try FileManager.default.attributesOfItem(atPath: placed)
        #expect(before[.systemFileNumber] as? Int == after[.systemFileNumber] as? Int)
        #expect(before[.modificationDate] as? Date == after[.modificationDate] as? Date)
        // The imported file is what dsyms and symbolicate then use.
        let listed = CommandRun(["dsyms", "--dsyms", root, "777"])
        #expect(listed.stdout.contains("4C4C4C4C-5555-3144-A1B2-000000000130 arm64 mach-o"))
    }

    @Test func aZipWithTwoDSYMsOneFatIsImportedWithTheBuildOfItsPlist() throws {
        defer { try? FileManager.default.removeItem(at: folder) }
        let plist = """
            <?xml version="1.0" encoding="UTF-8"?>
            <plist version="1.0"><dict><key>CFBundleVersion</key><string>131</string></dict></plist>
            """
        let zip = try zip(
            "appDsyms.zip",
            [
                (
                    "YuiKit.framework.dSYM/Contents/Resources/DWARF/YuiKit",
                    try fixture("builds/130/YuiKit.framework.dSYM/Contents/Resources/DWARF/YuiKit"), false, false
                ),
                ("YuiKit.framework.dSYM/Contents/Info.plist", plist, true, false),
                (
                    "YuiCore.framework.dSYM/Contents/Resources/DWARF/YuiCore",
                    try fixture("other/YuiCore.framework.dSYM/Contents/Resources/DWARF/YuiCore"), false, false
                ),
                ("YuiCore.framework.dSYM/Contents/Info.plist", plist, true, false),
            ])
        let run = CommandRun(["dsyms", "import", "--dsyms", root, zip])
        #expect(run.status == 0, "\(run.stderr)")
        #expect(
            files("131") == [
                "4C4C4C4C-5555-3144-A1B2-0000000B0130-YuiKit",
                "4C4C4C4C-5555-3144-A1B2-0000000C0001_4C4C4C4C-5555-3144-A1B2-0000000C0002-YuiCore",
            ])
        #expect(run.stdout.contains("arm64,x86_64"))
        #expect(try FileManager.default.contentsOfDirectory(atPath: root).filter { $0.hasPrefix(".") }.isEmpty)
        let again = CommandRun(["dsyms", "import", "--dsyms", root, zip])
        #expect(again.stdout.hasSuffix("0 imported, 2 unchanged\n"), "\(again.stdout)")
    }

    @Test func entriesThatLeaveTheRootAreRefusedAndNothingIsWrittenOutside() throws {
        defer { try? FileManager.default.removeItem(at: folder) }
        let zip = try zip(
            "evil.zip",
            [
                (
                    "../../escaped.dSYM/Contents/Resources/DWARF/escaped", try fixture("builds/130/YuiApp.app.dSYM/Contents/Resources/DWARF/YuiApp"),
                    false, false
                ),
                ("/tmp/absolute.dSYM/Contents/Resources/DWARF/absolute", "x", true, false),
                ("link.dSYM/Contents/Resources/DWARF/link", "/etc/passwd", false, true),
                (
                    "YuiApp.app.dSYM/Contents/Resources/DWARF/YuiApp", try fixture("builds/130/YuiApp.app.dSYM/Contents/Resources/DWARF/YuiApp"),
                    false, false
                ),
            ])
        let before = try FileManager.default.contentsOfDirectory(atPath: folder.path).sorted()
        let run = CommandRun(["dsyms", "import", "--dsyms", root, "--build", "5", zip])
        #expect(run.status == 1)
        #expect(run.stderr.contains("entry '../../escaped.dSYM/Contents/Resources/DWARF/escaped': its path leaves the folder"), "\(run.stderr)")
        #expect(run.stderr.contains("entry '/tmp/absolute.dSYM/Contents/Resources/DWARF/absolute': its path leaves the folder"))
        #expect(run.stderr.contains("entry 'link.dSYM/Contents/Resources/DWARF/link': a link"))
        // The good entry is placed; nothing appeared beside the root or above it.
        #expect(files("5") == ["4C4C4C4C-5555-3144-A1B2-000000000130-YuiApp"])
        #expect(try FileManager.default.contentsOfDirectory(atPath: folder.path).sorted() == (before + ["root"]).sorted())
        #expect(!FileManager.default.fileExists(atPath: "/tmp/absolute.dSYM"))
    }
}
