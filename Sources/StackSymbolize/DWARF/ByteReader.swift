import Foundation

/// Little-endian reads with bounds checks; `nil` past the end.
struct ByteReader {
    let bytes: UnsafeRawBufferPointer
    var position: Int

    init(_ bytes: UnsafeRawBufferPointer, at position: Int) {
        self.bytes = bytes
        self.position = position
    }

    @inline(__always) mutating func u8() -> UInt8? {
        guard position >= 0, position < bytes.count else { return nil }
        defer { position += 1 }
        return bytes[position]
    }

    @inline(__always) mutating func skip(_ count: Int) -> Bool {
        guard count >= 0, position + count <= bytes.count else { return false }
        position += count
        return true
    }

    @inline(__always) mutating func fixed(_ size: Int) -> UInt64? {
        guard position >= 0, position + size <= bytes.count else { return nil }
        // Addresses, offsets and references are 8, 4, 2 or 1 bytes: one load each (a loop over
        // the bytes was a hundred instructions per address read).
        switch size {
        case 8:
            defer { position += 8 }
            return UInt64(littleEndian: bytes.loadUnaligned(fromByteOffset: position, as: UInt64.self))
        case 4:
            defer { position += 4 }
            return UInt64(UInt32(littleEndian: bytes.loadUnaligned(fromByteOffset: position, as: UInt32.self)))
        case 2:
            defer { position += 2 }
            return UInt64(UInt16(littleEndian: bytes.loadUnaligned(fromByteOffset: position, as: UInt16.self)))
        case 1:
            defer { position += 1 }
            return UInt64(bytes[position])
        default:
            break
        }
        var value: UInt64 = 0
        for index in 0..<size { value |= UInt64(bytes[position + index]) << (8 * UInt64(index)) }
        position += size
        return value
    }

    @inline(__always) mutating func uleb() -> UInt64? {
        // Most values (abbreviation codes, attribute names and forms, file and line numbers) fit
        // in one byte.
        guard position >= 0, position < bytes.count else { return nil }
        let first = bytes[position]
        if first < 0x80 {
            position += 1
            return UInt64(first)
        }
        return ulebOfMoreBytes()
    }

    private mutating func ulebOfMoreBytes() -> UInt64? {
        var value: UInt64 = 0
        var shift: UInt64 = 0
        while true {
            guard let byte = u8() else { return nil }
            if shift < 64 { value |= UInt64(byte & 0x7f) << shift }
            if byte & 0x80 == 0 { return value }
            shift += 7
        }
    }

    @inline(__always) mutating func sleb() -> Int64? {
        var value: Int64 = 0
        var shift: Int64 = 0
        while true {
            guard let byte = u8() else { return nil }
            if shift < 64 { value |= Int64(byte & 0x7f) << shift }
            shift += 7
            if byte & 0x80 == 0 {
                if shift < 64, byte & 0x40 != 0 { value |= -(Int64(1) << shift) }
                return value
            }
        }
    }

    mutating func cString() -> Bool {
        guard position >= 0, position < bytes.count, let base = bytes.baseAddress,
            let end = memchr(base + position, 0, bytes.count - position)
        else { return false }
        position = UnsafeRawPointer(end) - base + 1
        return true
    }
}
