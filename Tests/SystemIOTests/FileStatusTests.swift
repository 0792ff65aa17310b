import Foundation
import SystemIO
import Testing

/// A fresh folder of its own under the temporary folder, removed by `remove()`.
private struct Scratch {
    let folder = FileManager.default.temporaryDirectory.appendingPathComponent("systemio-\(UUID().uuidString)").path

    init() throws { try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true) }

    func path(_ name: String) -> String { (folder as NSString).appendingPathComponent(name) }

    func write(_ name: String, _ bytes: [UInt8]) throws -> String {
        try Data(bytes).write(to: URL(fileURLWithPath: path(name)))
        return path(name)
    }

    func remove() { try? FileManager.default.removeItem(atPath: folder) }
}

@Suite struct FileStatusTests {
    @Test func kindsSizesAndLinksAreTold() throws {
        let scratch = try Scratch()
        defer { scratch.remove() }
        let file = try scratch.write("a", Array(repeating: 1, count: 123))
        let link = scratch.path("link")
        try FileManager.default.createSymbolicLink(atPath: link, withDestinationPath: file)

        let status = try FileIO.status(of: file).get()
        #expect(status.kind == .regular && status.size == 123)
        #expect(try FileIO.status(of: link).get() == status)
        #expect(try FileIO.linkStatus(of: link).get().kind == .symbolicLink)
        #expect(try FileIO.status(of: scratch.folder).get().kind == .folder)
        let null = try FileIO.status(of: "/dev/null").get()
        #expect(null.kind == .characterDevice && "\(null.kind)" == "a character device")

        let descriptor = try FileIO.openForReading(file)
        defer { FileIO.close(descriptor) }
        let opened = try FileIO.status(ofDescriptor: descriptor).get()
        #expect(opened.device == status.device && opened.inode == status.inode)
        #expect(FileIO.status(of: scratch.path("missing")).failure?.code == ENOENT)
    }

    @Test func renamedRemovedResolvedAndListed() throws {
        let scratch = try Scratch()
        defer { scratch.remove() }
        let file = try scratch.write("a", [1, 2, 3])
        #expect(FileIO.rename(file, to: scratch.path("b")) == nil)
        #expect(FileIO.rename(file, to: scratch.path("c"))?.code == ENOENT)
        try FileManager.default.createSymbolicLink(atPath: scratch.path("link"), withDestinationPath: scratch.path("b"))
        #expect(try FileIO.folderEntries(scratch.folder).get().sorted() == ["b", "link"])
        let resolved = try FileIO.resolvedPath(scratch.path("link")).get()
        #expect(try FileIO.status(of: resolved).get() == FileIO.status(of: scratch.path("b")).get())
        #expect(FileIO.isWritable(scratch.path("b")))

        #expect(FileIO.remove(scratch.path("b")))
        #expect(!FileIO.remove(scratch.path("b")))
        #expect(FileIO.resolvedPath(scratch.path("link")).failure?.code == ENOENT)
        #expect(FileIO.folderEntries(scratch.path("b")).failure?.code == ENOENT)
    }

    @Test func readsAtAnOffsetAndMapsTheFile() throws {
        let scratch = try Scratch()
        defer { scratch.remove() }
        let bytes = (0..<200).map { UInt8($0) }
        let file = try scratch.write("a", bytes)
        let descriptor = try FileIO.openForReading(file)
        defer { FileIO.close(descriptor) }

        var got = [UInt8](repeating: 0, count: 10)
        let count = got.withUnsafeMutableBytes { FileIO.read(descriptor, into: $0.baseAddress!, count: 10, at: 150) }
        #expect(try count.get() == 10 && got == Array(bytes[150..<160]))
        #expect(got.withUnsafeMutableBytes { try? FileIO.read(descriptor, into: $0.baseAddress!, count: 10, at: 200).get() } == 0)

        let mapped = UnsafeRawBufferPointer(start: try MemoryMapping.mapReadOnly(descriptor, count: bytes.count).get(), count: bytes.count)
        defer { MemoryMapping.unmap(mapped) }
        #expect(Array(mapped) == bytes)
        MemoryMapping.dropResidentPages(mapped)
        #expect(Array(mapped) == bytes)  // back from the page cache
        #expect(MemoryMapping.pageSize > 0 && MemoryMapping.pageSize & (MemoryMapping.pageSize - 1) == 0)
    }
}

@Suite struct ProcessAndLibraryTests {
    @Test func thisProcessAndItsLibraries() {
        #expect(Processes.currentID == ProcessInfo.processInfo.processIdentifier)
        #expect(Processes.processorCount >= 1)
        #expect(DynamicLibrary.alreadyLoaded.address(of: "strlen") != nil)
        #expect(DynamicLibrary.alreadyLoaded.address(of: "no_such_function_anywhere") == nil)
        #expect(DynamicLibrary(loading: "libno-such-library.so.9") == nil)
    }
}

extension Result {
    fileprivate var failure: Failure? {
        if case .failure(let failure) = self { return failure }
        return nil
    }
}
