import Foundation
import SystemIO

/// A fast 64-bit checksum of an index file's bytes (four independent multiply-rotate lanes over
/// 8-byte words, then the tail): it tells a damaged index from a whole one; it is no defence
/// against someone forging one.
struct IndexChecksum {
    private var lanes: (UInt64, UInt64, UInt64, UInt64) = (0x9E37_79B9_7F4A_7C15, 0xC2B2_AE3D_27D4_EB4F, 0x1656_67B1_9E37_79F9, 0x85EB_CA77_C2B2_AE63)
    private var count: UInt64 = 0
    /// Bytes of an unfinished 32-byte block, carried to the next `add`.
    private var pending: [UInt8] = []

    private static let multiplier: UInt64 = 0x9FB2_1C65_1E98_DF25

    @inline(__always) private static func mix(_ lane: UInt64, _ word: UInt64) -> UInt64 {
        let mixed = (lane ^ word) &* multiplier
        return (mixed << 29) | (mixed >> 35)
    }

    mutating func add(_ bytes: UnsafeRawBufferPointer) {
        count &+= UInt64(bytes.count)
        var start = 0
        if !pending.isEmpty {
            let take = min(32 - pending.count, bytes.count)
            pending.append(contentsOf: bytes[0..<take])
            start = take
            guard pending.count == 32 else { return }
            pending.withUnsafeBytes { block($0, at: 0) }
            pending.removeAll(keepingCapacity: true)
        }
        // The lanes in locals and the words read by pointer: with the lanes stored back and the
        // offsets overflow-checked per word, the check was 50 instructions a block, a quarter of a
        // warm run of 100,000 addresses in sourcekit-lsp's index.
        var offset = start
        if let base = bytes.baseAddress, bytes.count - offset >= 32 {
            var (lane0, lane1, lane2, lane3) = lanes
            var word = base + offset
            let blocks = (bytes.count - offset) / 32
            for _ in 0..<blocks {
                lane0 = Self.mix(lane0, UInt64(littleEndian: word.loadUnaligned(as: UInt64.self)))
                lane1 = Self.mix(lane1, UInt64(littleEndian: word.loadUnaligned(fromByteOffset: 8, as: UInt64.self)))
                lane2 = Self.mix(lane2, UInt64(littleEndian: word.loadUnaligned(fromByteOffset: 16, as: UInt64.self)))
                lane3 = Self.mix(lane3, UInt64(littleEndian: word.loadUnaligned(fromByteOffset: 24, as: UInt64.self)))
                word += 32
            }
            lanes = (lane0, lane1, lane2, lane3)
            offset += blocks * 32
        }
        pending.append(contentsOf: bytes[offset...])
    }

    @inline(__always) private mutating func block(_ bytes: UnsafeRawBufferPointer, at offset: Int) {
        lanes.0 = Self.mix(lanes.0, UInt64(littleEndian: bytes.loadUnaligned(fromByteOffset: offset, as: UInt64.self)))
        lanes.1 = Self.mix(lanes.1, UInt64(littleEndian: bytes.loadUnaligned(fromByteOffset: offset + 8, as: UInt64.self)))
        lanes.2 = Self.mix(lanes.2, UInt64(littleEndian: bytes.loadUnaligned(fromByteOffset: offset + 16, as: UInt64.self)))
        lanes.3 = Self.mix(lanes.3, UInt64(littleEndian: bytes.loadUnaligned(fromByteOffset: offset + 24, as: UInt64.self)))
    }

    var value: UInt64 {
        var result = count &* Self.multiplier
        for lane in [lanes.0, lanes.1, lanes.2, lanes.3] { result = Self.mix(result, lane) }
        for byte in pending { result = Self.mix(result, UInt64(byte) | 0x100) }
        return result ^ (result >> 31)
    }

    /// The checksum of the first `length` bytes of the file at `path`, read 1 MB at a time.
    static func of(path: String, length: Int) throws(SymbolizeError) -> UInt64 {
        let descriptor = try SystemCall.openForReading(path)
        defer { FileIO.close(descriptor) }
        return try of(descriptor: descriptor, path: path, length: length)
    }

    /// The checksum of the first `length` bytes of the open file `descriptor` (named `path` in errors).
    static func of(descriptor: Int32, path: String, length: Int) throws(SymbolizeError) -> UInt64 {
        var checksum = IndexChecksum()
        let buffer = UnsafeMutableRawBufferPointer.allocate(byteCount: 1 << 20, alignment: 16)
        defer { buffer.deallocate() }
        var done = 0
        while done < length {
            // A read error other than an interruption counts as a short read, as the end of the file does.
            let read = FileIO.read(descriptor, into: buffer.baseAddress!, count: min(buffer.count, length - done), at: done)
            guard case .success(let got) = read, got > 0 else {
                throw SymbolizeError.corrupt(path: path, "symbol index is truncated or corrupt (short read)")
            }
            checksum.add(UnsafeRawBufferPointer(rebasing: buffer[0..<got]))
            done += got
        }
        return checksum.value
    }
}
