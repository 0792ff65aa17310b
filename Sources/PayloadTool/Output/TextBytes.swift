import Foundation

/// Where the text writers append bytes: `[UInt8]`, or `TextBytes` where appends are the work.
protocol ByteSink {
    /// Bytes appended so far.
    var count: Int { get }
    mutating func append(_ byte: UInt8)
    mutating func append(bytes: UnsafeRawBufferPointer)
}

extension ByteSink {
    mutating func append(_ text: StaticString) {
        append(bytes: UnsafeRawBufferPointer(start: text.utf8Start, count: text.utf8CodeUnitCount))
    }

    mutating func append(_ bytes: [UInt8]) { bytes.withUnsafeBytes { append(bytes: $0) } }
}

extension Array: ByteSink where Element == UInt8 {
    mutating func append(bytes: UnsafeRawBufferPointer) { append(contentsOf: bytes) }
}

/// A growable byte buffer with no per-append checks beyond room: `Array.append` checked
/// uniqueness and capacity on every byte, a fifth of a warm run's text output. Owns its memory.
final class TextBytes: ByteSink {
    private(set) var start: UnsafeMutableRawPointer
    private(set) var count = 0
    private var capacity: Int

    /// The memory is malloc's own, so that growing is a `realloc`: a large block is then moved by
    /// remapping its pages, not copied into fresh ones (copying a batch's megabyte of answer lines
    /// to grow it was a tenth of a small binary's page faults).
    init(capacity: Int = 1 << 16) {
        self.capacity = max(capacity, 64)
        guard let memory = malloc(self.capacity) else { fatalError("out of memory (\(self.capacity) bytes)") }
        start = memory
    }

    deinit { free(start) }

    var bytes: UnsafeRawBufferPointer { UnsafeRawBufferPointer(start: start, count: count) }

    func removeAll() { count = 0 }

    @inline(__always) func append(_ byte: UInt8) {
        if count == capacity { grow(to: count + 1) }
        start.storeBytes(of: byte, toByteOffset: count, as: UInt8.self)
        count += 1
    }

    @inline(__always) func append(bytes: UnsafeRawBufferPointer) {
        guard let source = bytes.baseAddress else { return }
        if count + bytes.count > capacity { grow(to: count + bytes.count) }
        (start + count).copyMemory(from: source, byteCount: bytes.count)
        count += bytes.count
    }

    /// Appends a copy of bytes `range` of this buffer.
    func appendCopy(of range: Range<Int>) {
        if count + range.count > capacity { grow(to: count + range.count) }
        (start + count).copyMemory(from: start + range.lowerBound, byteCount: range.count)
        count += range.count
    }

    /// Room for `extra` more bytes, and the place they go: the caller writes them, then `advance`s.
    @inline(__always) func reserve(_ extra: Int) -> UnsafeMutableRawPointer {
        if count + extra > capacity { grow(to: count + extra) }
        return start + count
    }

    @inline(__always) func advance(_ written: Int) { count += written }

    private func grow(to needed: Int) {
        var newCapacity = capacity * 2
        while newCapacity < needed { newCapacity *= 2 }
        guard let larger = realloc(start, newCapacity) else { fatalError("out of memory (\(newCapacity) bytes)") }
        start = larger
        capacity = newCapacity
    }
}
