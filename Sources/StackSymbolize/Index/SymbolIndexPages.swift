import Foundation
import SystemIO

/// How a `SymbolIndex` reads its file during lookups.
///
/// A short run reads the pages it needs with `pread` into 4 KB buffers of its own, so the index
/// costs it those pages and no more. Reading through the mapping instead lets the kernel map a
/// whole large folio of the page cache on each fault: 100 lookups in sourcekit-lsp's 97 MB index
/// took the process from 33 MB to 78 MB that way. A long run, once `mappingAfterPages` pages were
/// read, reads the mapping directly: faster per read, and by then the folios serve many lookups.
/// Both ways read the same bytes, so answers never depend on the mode.
final class SymbolIndexPages {
    static let pageSize = 4096
    /// 8 MB of pages: past this, reading through the mapping costs no more memory than the pages would.
    static let mappingAfterPages = 2048

    private let file: MappedFile
    private let base: UnsafeRawPointer
    private let descriptor: Int32
    /// By page number, the pages read (an array, not a dictionary: hashing the page number per
    /// value read was 1% of an index build and its first batch), and how many there are.
    private var pages: [UnsafeMutableRawPointer?] = []
    private var pagesRead = 0
    private(set) var usesMapping = false
    /// A read came back short: the file shrank after it was checked, so nothing read is trusted.
    private(set) var readFailed = false

    init(file: MappedFile) throws(SymbolizeError) {
        self.file = file
        guard let base = file.bytes.baseAddress else { throw SymbolizeError.corrupt(path: file.path, "symbol index is empty") }
        self.base = base
        // The mapping's own file: opening the path again could open another index renamed into place.
        guard let descriptor = file.descriptor else { throw SymbolizeError.fileSystem(path: file.path, "symbol index opened without its descriptor") }
        self.descriptor = descriptor
    }

    deinit {
        releasePages()
        for buffer in scratch { buffer.deallocate() }
    }

    /// Switches to the mapping once enough pages were read. Called at the start of a lookup, never
    /// while a page's pointer is in use.
    func settle() {
        guard !usesMapping, pagesRead >= Self.mappingAfterPages else { return }
        releasePages()
        usesMapping = true
    }

    private func releasePages() {
        if pagesRead > 0 {
            for case let page? in pages { page.deallocate() }
        }
        pages = []
        pagesRead = 0
        lastPage = nil
    }

    /// The little-endian integer at byte `at`; the caller keeps `at` inside the file.
    @inline(__always) func load<Value: FixedWidthInteger>(_ at: Int, as type: Value.Type) -> Value {
        if usesMapping { return Value(littleEndian: base.loadUnaligned(fromByteOffset: at, as: Value.self)) }
        let offset = at & (Self.pageSize - 1)
        if offset + MemoryLayout<Value>.size <= Self.pageSize {
            return Value(littleEndian: page(at / Self.pageSize).loadUnaligned(fromByteOffset: offset, as: Value.self))
        }
        var value: Value = 0
        for index in 0..<MemoryLayout<Value>.size { value |= Value(byte(at + index)) << (8 * index) }
        return value
    }

    /// The UTF-8 text of bytes `range` (inside the file).
    func string(_ range: Range<Int>) -> String {
        if usesMapping { return String(decoding: UnsafeRawBufferPointer(rebasing: file.bytes[range]), as: UTF8.self) }
        var text: [UInt8] = []
        text.reserveCapacity(range.count)
        var at = range.lowerBound
        while at < range.upperBound {
            let offset = at & (Self.pageSize - 1)
            let count = min(Self.pageSize - offset, range.upperBound - at)
            text.append(contentsOf: UnsafeRawBufferPointer(start: page(at / Self.pageSize) + offset, count: count))
            at += count
        }
        return String(decoding: text, as: UTF8.self)
    }

    /// Reads the mapping from now on: a batch that will read much of the index (maybe on two
    /// threads; after this, reading changes nothing here). Called while no page's pointer is in use.
    func useMapping() {
        if usesMapping { return }
        releasePages()
        usesMapping = true
    }

    /// Scratch room for text that spans two pages: `scratchCount` buffers, each reused.
    private var scratch: [UnsafeMutableRawBufferPointer] = []
    static let scratchCount = 2

    /// Bytes `range` (inside the file) in place: in the mapping, in one of this reader's pages, or
    /// copied into scratch buffer `slot` when they span pages. Valid until the next call with the
    /// same `slot` or the next `settle()`.
    func bytes(_ range: Range<Int>, slot: Int) -> UnsafeRawBufferPointer {
        if usesMapping { return UnsafeRawBufferPointer(rebasing: file.bytes[range]) }
        let offset = range.lowerBound & (Self.pageSize - 1)
        if offset + range.count <= Self.pageSize {
            return UnsafeRawBufferPointer(start: page(range.lowerBound / Self.pageSize) + offset, count: range.count)
        }
        if scratch.isEmpty { scratch = (0..<Self.scratchCount).map { _ in .allocate(byteCount: 0, alignment: 1) } }
        if scratch[slot].count < range.count {
            scratch[slot].deallocate()
            scratch[slot] = .allocate(byteCount: range.count, alignment: 1)
        }
        var at = range.lowerBound
        var written = 0
        while at < range.upperBound {
            let offset = at & (Self.pageSize - 1)
            let count = min(Self.pageSize - offset, range.upperBound - at)
            (scratch[slot].baseAddress! + written).copyMemory(from: page(at / Self.pageSize) + offset, byteCount: count)
            at += count
            written += count
        }
        return UnsafeRawBufferPointer(start: scratch[slot].baseAddress, count: range.count)
    }

    private func byte(_ at: Int) -> UInt8 {
        page(at / Self.pageSize).load(fromByteOffset: at & (Self.pageSize - 1), as: UInt8.self)
    }

    /// The page read last, and its number: a lookup reads a few values from each page it
    /// touches, and a dictionary lookup per value was 2% of an index build's first batch.
    private var lastPage: (index: Int, page: UnsafeMutableRawPointer)?

    private func page(_ index: Int) -> UnsafeRawPointer {
        if let last = lastPage, last.index == index { return UnsafeRawPointer(last.page) }
        if pages.isEmpty { pages = Array(repeating: nil, count: file.bytes.count / Self.pageSize + 1) }
        if let page = pages[index] {
            lastPage = (index, page)
            return UnsafeRawPointer(page)
        }
        let page = UnsafeMutableRawPointer.allocate(byteCount: Self.pageSize, alignment: 16)
        page.initializeMemory(as: UInt8.self, repeating: 0, count: Self.pageSize)
        let start = index * Self.pageSize
        let wanted = max(0, min(Self.pageSize, file.bytes.count - start))
        var got = 0
        while got < wanted {
            let result = FileIO.read(descriptor, into: page + got, count: wanted - got, at: start + got)
            guard case .success(let count) = result, count > 0 else {
                readFailed = true
                break
            }
            got += count
        }
        pages[index] = page
        pagesRead += 1
        lastPage = (index, page)
        return UnsafeRawPointer(page)
    }
}
