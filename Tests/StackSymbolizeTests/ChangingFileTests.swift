import Foundation
import Testing

@testable import StackSymbolize

/// Debug files and indexes that shrink or are replaced while they are in use: no SIGBUS ends the
/// process; the file is reported as changed, naming it, and the other files still answer.
@Suite(.serialized) struct ChangingFileTests {
    let folder: URL

    init() throws {
        folder = FileManager.default.temporaryDirectory.appendingPathComponent("yui-changing-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
    }

    func copy(_ relative: String, as name: String) throws -> String {
        let target = folder.appendingPathComponent(name).path
        try FileManager.default.copyItem(atPath: try Fixtures.path(relative), toPath: target)
        return target
    }

    func truncate(_ path: String, to size: Int) {
        #expect(Foundation.truncate(path, off_t(size)) == 0)
    }

    func changedMessage(_ body: () throws -> Void) -> String? {
        do {
            try body()
            return nil
        } catch let error as SymbolizeError {
            return error.description
        } catch {
            return "\(error)"
        }
    }

    /// A Mach-O binary answered from its symbol table, cut to one page after the first answer.
    @Test func aMachOFileCutShortIsReportedNotFatal() throws {
        defer { try? FileManager.default.removeItem(at: folder) }
        let binary = try copy("real/symbolic-macos/binary/crash", as: "crash")
        let symbolizer = try BuildSymbolizer(debugFiles: [binary])
        let first = try symbolizer.lookup(addresses: [0x1_0000_1000], uuid: nil)
        #expect(first.first?.status == .symbolTable)
        truncate(binary, to: 4_096)
        let message = changedMessage { _ = try symbolizer.lookup(addresses: [0x1_0000_1000, 0x1_0000_8000], uuid: nil) }
        #expect(message?.contains(binary + ": the file changed while it was read") == true, "\(message ?? "no error")")
    }

    /// An ELF file (libelf's own mapping) cut short between two batches.
    @Test func anELFFileCutShortIsReportedNotFatal() throws {
        defer { try? FileManager.default.removeItem(at: folder) }
        let elf = try copy("other/yui-linux", as: "yui-linux")
        let symbolizer = try BuildSymbolizer(debugFiles: [elf])
        _ = try symbolizer.lookup(addresses: [0x201000], uuid: nil)
        truncate(elf, to: 4_096)
        let message = changedMessage { _ = try symbolizer.lookup(addresses: Array(stride(from: 0x201000, to: 0x203000, by: 16)), uuid: nil) }
        #expect(message?.contains(elf + ": the file changed while it was read") == true, "\(message ?? "no error")")
    }

    /// An on-disk index cut short while open.
    @Test func anIndexCutShortIsReportedNotFatal() throws {
        defer { try? FileManager.default.removeItem(at: folder) }
        let dsym = try copy("builds/130/YuiApp.app.dSYM/Contents/Resources/DWARF/YuiApp", as: "YuiApp")
        let indexFolder = folder.appendingPathComponent("index").path
        let symbolizer = try BuildSymbolizer(debugFiles: [dsym], indexFolder: indexFolder)
        _ = try symbolizer.lookup(addresses: [0x1_0000_4058], uuid: nil)
        let index = try #require(try FileManager.default.contentsOfDirectory(atPath: indexFolder).first { $0.hasSuffix(".yuisym") })
        let indexPath = (indexFolder as NSString).appendingPathComponent(index)
        truncate(indexPath, to: 100)
        let message = changedMessage { _ = try symbolizer.lookup(addresses: Array(stride(from: 0x1_0000_4000, to: 0x1_0000_4200, by: 4)), uuid: nil) }
        #expect(message?.contains(indexPath + ": the file changed while it was read") == true, "\(message ?? "no error")")
    }

    /// Stacks: a debug file replaced while in use stops answering and is named; the build's other
    /// files still answer.
    @Test func aReplacedFileStopsAnsweringAndTheOthersGoOn() throws {
        defer { try? FileManager.default.removeItem(at: folder) }
        let app = try copy("builds/130/YuiApp.app.dSYM/Contents/Resources/DWARF/YuiApp", as: "YuiApp")
        _ = try copy("builds/130/YuiKit.framework.dSYM/Contents/Resources/DWARF/YuiKit", as: "YuiKit")
        let symbolizer = try BuildSymbolizer(debugFiles: [folder.path])
        let appUUID = "4C4C4C4C-5555-3144-A1B2-000000000130"
        let kitUUID = "4C4C4C4C-5555-3144-A1B2-0000000B0130"
        let stack = [
            FrameRequest(image: "YuiApp", uuid: appUUID, offset: 0x4058, isReturnAddress: false),
            FrameRequest(image: "YuiKit", uuid: kitUUID, offset: 0x4000, isReturnAddress: false),
        ]
        #expect(symbolizer.symbolicate(stack).map(\.status) == [.symbolicated, .symbolicated])
        // `cp` over a file in use: truncated, then written again. Identities are looked at once a
        // second during lookups one by one.
        truncate(app, to: 0)
        Thread.sleep(forTimeInterval: 1.1)
        var later = symbolizer.symbolicate(stack)
        for _ in 0..<64 where later[0].status != .missingDebugFile { later = symbolizer.symbolicate(stack) }
        #expect(later[0].status == .missingDebugFile)
        #expect(symbolizer.openFailure(uuid: appUUID)?.description.contains("the file changed while it was read") == true)
        #expect(later[1].status != .missingDebugFile)
    }
}
