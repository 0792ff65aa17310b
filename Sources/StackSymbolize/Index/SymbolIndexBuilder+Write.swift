import Foundation
import SymbolNames
import SystemIO

private let none = SymbolIndexFormat.none

extension SymbolIndexBuilder {
    static func write(
        _ part: consuming Part, symbols: [SymbolEntry], image: DebugImage, textBase: UInt64, to path: String
    ) throws(SymbolizeError) {
        // The part is taken over: adding the symbol names to its strings copies nothing.
        var withSymbols = consume part
        // Most symbols name a location's outermost frame already.
        let symbolNameIndexes = symbols.map { withSymbols.symbolNameNumber($0, of: image) }
        // The locations' names are simplified already; the symbols' are mostly the same names.
        withSymbols.simplifyNames(symbolNameIndexes)
        let simplifiedOf = withSymbols.simplifiedOf
        let strings = withSymbols.strings
        let part = withSymbols
        // The string bytes go to the file string by string (a blob of them all was 33 MB more at
        // the peak of a build); only their offsets are counted first.
        var blobCount = 0
        var offsets: [UInt32] = []
        offsets.reserveCapacity(strings.count + 1)
        for string in strings {
            offsets.append(UInt32(truncatingIfNeeded: blobCount))
            blobCount += string.utf8.count
        }
        offsets.append(UInt32(truncatingIfNeeded: blobCount))
        // Starts are written as 32-bit offsets from the lowest one (SymbolIndexFormat).
        // (Plain loops: lazy maps, filters and closures over 1.3 million records were a quarter of
        // the write.)
        var lowestStart = UInt64.max
        var highestStart: UInt64 = 0
        for location in part.table where location.start != 0 {
            lowestStart = min(lowestStart, location.start)
            highestStart = max(highestStart, location.start)
        }
        let addressBase = min(part.starts.first ?? textBase, lowestStart)
        func offset(_ address: UInt64) -> UInt32? {
            guard address >= addressBase, address - addressBase < UInt64(UInt32.max) else { return nil }
            return UInt32(address - addressBase)
        }
        // Symbols are stored as 32-bit offsets from the lowest and 32-bit sizes.
        var symbolBase = UInt64.max
        var symbolsFit = true
        for symbol in symbols { symbolBase = min(symbolBase, symbol.address) }
        if symbols.isEmpty { symbolBase = 0 }
        for symbol in symbols where symbol.address - symbolBase >= UInt64(UInt32.max) || symbol.size >= UInt64(UInt32.max) {
            symbolsFit = false
        }
        guard part.table.count < Int(SymbolIndexFormat.parentMask), blobCount < Int(UInt32.max), offset(part.starts.last ?? addressBase) != nil,
            lowestStart == .max || offset(highestStart) != nil, symbolsFit
        else {
            throw SymbolizeError.unsupported(path: path, SymbolIndexFormat.imageTooLarge)
        }
        let temporary = SymbolIndexCache.temporaryPath(for: path)
        // Registered before it exists, so a signal at any point after removes it.
        TemporaryFiles.register(temporary)
        defer { TemporaryFiles.unregister(temporary) }
        let descriptor: Int32
        do {
            descriptor = try FileIO.createNew(temporary, mode: 0o666)
        } catch {
            throw SymbolizeError.indexNotWritten(path: temporary, "cannot write the symbol index: \(error.reason)")
        }
        var file = IndexFileWriter(descriptor: descriptor, path: temporary)
        file.append(SymbolIndexFormat.magic)
        file.append(SymbolIndexFormat.version)
        file.append(UInt32(0))
        file.append(UInt64(part.starts.count))
        file.append(UInt64(part.table.count))
        file.append(UInt64(symbols.count))
        file.append(UInt64(strings.count))
        file.append(UInt64(blobCount))
        file.append(textBase)
        file.append(addressBase)
        file.append(symbolBase)
        // Arrays go to the file whole: a value at a time was a tenth of a build.
        file.append(words: part.starts.map { offset($0)! })
        file.pad()
        file.append(words: part.locations)
        file.pad()
        var locationWords: [UInt32] = []
        locationWords.reserveCapacity(part.table.count * 5)
        for location in part.table {
            locationWords.append(location.name)
            locationWords.append(location.file)
            locationWords.append(location.line)
            let parent = location.parent == none ? SymbolIndexFormat.parentMask : location.parent
            locationWords.append(
                parent | (location.inlined ? SymbolIndexFormat.inlinedFlag : 0) | (location.isLinkage ? SymbolIndexFormat.linkageFlag : 0))
            locationWords.append(location.start == 0 ? UInt32(0) : offset(location.start)! + 1)
        }
        file.append(words: locationWords)
        locationWords = []
        file.pad()
        var symbolWords: [UInt32] = []
        symbolWords.reserveCapacity(symbols.count * 3)
        for (index, symbol) in symbols.enumerated() {
            symbolWords.append(UInt32(symbol.address - symbolBase))
            symbolWords.append(UInt32(symbol.size))
            symbolWords.append(symbolNameIndexes[index])
        }
        file.append(words: symbolWords)
        file.append(words: offsets)
        file.append(words: simplifiedOf)
        file.pad()
        for string in strings { file.append(utf8: string) }
        file.pad()
        for position in stride(from: 0, to: part.starts.count, by: SymbolIndex.blockSize) { file.append(offset(part.starts[position])!) }
        file.pad()
        let written = file.finish()
        FileIO.close(descriptor)
        guard written else {
            FileIO.remove(temporary)
            throw SymbolizeError.indexNotWritten(path: temporary, "cannot write the symbol index")
        }
        if let failure = FileIO.rename(temporary, to: path) {
            FileIO.remove(temporary)
            throw .indexNotWritten(path: path, "cannot move the symbol index into place: \(failure.text)")
        }
    }
}

/// The index file written as it is made, through a 1 MB buffer, its checksum taken on the way: the
/// whole index built in memory first was the largest allocation at the end of a build (75 MB for
/// sourcekit-lsp's). Bytes, not `Data`: appending to Data integer by integer was a sixth of a build.
private struct IndexFileWriter {
    let descriptor: Int32
    let path: String
    private var buffer: [UInt8] = []
    /// Bytes appended so far (for the 8-byte paddings).
    private var total = 0
    private var checksum = IndexChecksum()
    private var failed = false
    private static let chunk = 1 << 20

    init(descriptor: Int32, path: String) {
        self.descriptor = descriptor
        self.path = path
        buffer.reserveCapacity(Self.chunk + 64)
    }

    mutating func append<T: FixedWidthInteger>(_ value: T) {
        withUnsafeBytes(of: value.littleEndian) { buffer.append(contentsOf: $0) }
        total += MemoryLayout<T>.size
        if buffer.count >= Self.chunk { flush(checksummed: true) }
    }

    /// 32-bit words, little-endian, in bulk.
    mutating func append(words: [UInt32]) {
        #if _endian(big)
        for word in words { append(word) }
        return
        #endif
        words.withUnsafeBytes { bytes in
            var start = 0
            while start < bytes.count {
                let end = min(bytes.count, start + Self.chunk)
                buffer.append(contentsOf: UnsafeRawBufferPointer(rebasing: bytes[start..<end]))
                total += end - start
                start = end
                if buffer.count >= Self.chunk { flush(checksummed: true) }
            }
        }
    }

    mutating func append(utf8 text: String) {
        var text = text
        text.withUTF8 { buffer.append(contentsOf: $0) }
        total += text.utf8.count
        if buffer.count >= Self.chunk { flush(checksummed: true) }
    }

    mutating func pad() { while total % 8 != 0 { append(UInt8(0)) } }

    /// Writes what is left and the checksum of everything before it; false when a write failed.
    mutating func finish() -> Bool {
        flush(checksummed: true)
        withUnsafeBytes(of: checksum.value.littleEndian) { write($0, checksummed: false) }
        return !failed
    }

    private mutating func flush(checksummed: Bool) {
        guard !buffer.isEmpty else { return }
        // Swapped out while written, so the same storage is reused for the next chunk.
        var pending: [UInt8] = []
        swap(&pending, &buffer)
        pending.withUnsafeBytes { write($0, checksummed: checksummed) }
        pending.removeAll(keepingCapacity: true)
        swap(&pending, &buffer)
    }

    private mutating func write(_ bytes: UnsafeRawBufferPointer, checksummed: Bool) {
        if checksummed { checksum.add(bytes) }
        guard !failed, bytes.count > 0 else { return }
        if (try? FileIO.writeAll(descriptor, bytes, path: path)) == nil { failed = true }
    }
}
