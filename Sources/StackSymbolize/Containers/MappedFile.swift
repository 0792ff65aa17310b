import Foundation
import SystemIO

/// A file mapped read-only into memory; unmapped when the last reference goes.
///
/// Sendable, checked by hand: every stored property is a `let` set in `init`, the mapping is
/// `PROT_READ` (no thread can write through it) and is unmapped only in `deinit`, once no thread
/// holds a reference. `hasChanged` reads `MappedRegions`, which is safe from any thread.
final class MappedFile: @unchecked Sendable {
    let path: String
    let bytes: UnsafeRawBufferPointer
    /// The file as it was when mapped.
    let identity: FileIdentity?
    /// Its slot in `MappedRegions` (a SIGBUS past a new end is caught, not fatal).
    private let region: Int?
    var regionSlot: Int? { region }
    /// The open file the mapping came from, when asked for (`keepingDescriptor`): a symbol index
    /// reads its pages and its checksum from it, never from the path again, since another run may
    /// rename a new index onto the path at any moment.
    let descriptor: Int32?

    init(path: String, keepingDescriptor: Bool = false) throws(SymbolizeError) {
        self.path = path
        let descriptor = try SystemCall.openForReading(path)
        var keeps = false
        defer { if !keeps { FileIO.close(descriptor) } }
        let status = try FileIO.status(ofDescriptor: descriptor).orThrow(path: path, action: "cannot stat")
        guard status.kind == .regular else { throw SymbolizeError.fileSystem(path: path, "not a regular file") }
        identity = FileIdentity(descriptor: descriptor)
        keeps = keepingDescriptor
        self.descriptor = keepingDescriptor ? descriptor : nil
        let size = Int(status.size)
        if size == 0 {
            bytes = UnsafeRawBufferPointer(start: nil, count: 0)
            region = nil
            return
        }
        let address = try MemoryMapping.mapReadOnly(descriptor, count: size).orThrow(path: path, action: "cannot map")
        bytes = UnsafeRawBufferPointer(start: address, count: size)
        region = MappedRegions.register(address, count: size)
    }

    /// True when the file was truncated under the mapping (a read faulted past its end) or is no
    /// longer the file that was mapped (replaced, rewritten, resized).
    var hasChanged: Bool {
        MappedRegions.isDamaged(region) || FileIdentity(path: path) != identity
    }

    var view: ByteView { ByteView(bytes: bytes, path: path) }

    /// Drops the mapping's pages from this process's resident memory; they stay in the page cache
    /// and come back on the next read. The mapping is read-only, so no page holds a change.
    func releaseResidentPages() { MemoryMapping.dropResidentPages(bytes) }

    deinit {
        if let descriptor { FileIO.close(descriptor) }
        MappedRegions.unregister(region)
        MemoryMapping.unmap(bytes)
    }
}
