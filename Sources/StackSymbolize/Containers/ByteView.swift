/// A read-only view of bytes with bounds-checked little- and big-endian reads. Every read of an
/// untrusted debug file goes through here, so a hostile offset becomes an error, never a crash.
struct ByteView {
    let bytes: UnsafeRawBufferPointer
    let path: String

    var count: Int { bytes.count }

    func check(_ offset: Int, _ length: Int, _ what: @autoclosure () -> String) throws(SymbolizeError) {
        guard offset >= 0, length >= 0, offset <= bytes.count, length <= bytes.count - offset else {
            throw SymbolizeError.corrupt(
                path: path, "\(what()) at byte \(offset) (length \(length)) runs past the end of the file (\(bytes.count) bytes)")
        }
    }

    func u32(_ offset: Int, bigEndian: Bool = false) throws(SymbolizeError) -> UInt32 {
        try check(offset, 4, "a 32-bit field")
        let value = bytes.loadUnaligned(fromByteOffset: offset, as: UInt32.self)
        return bigEndian ? UInt32(bigEndian: value) : UInt32(littleEndian: value)
    }

    func u64(_ offset: Int, bigEndian: Bool = false) throws(SymbolizeError) -> UInt64 {
        try check(offset, 8, "a 64-bit field")
        let value = bytes.loadUnaligned(fromByteOffset: offset, as: UInt64.self)
        return bigEndian ? UInt64(bigEndian: value) : UInt64(littleEndian: value)
    }

    /// A fixed-size name field: read by length, since Mach-O names may fill all 16 bytes with no NUL.
    func fixedName(_ offset: Int, length: Int = 16) throws(SymbolizeError) -> String {
        try check(offset, length, "a name field")
        var end = offset
        while end < offset + length, bytes[end] != 0 { end += 1 }
        return String(decoding: UnsafeRawBufferPointer(rebasing: bytes[offset..<end]), as: UTF8.self)
    }
}
