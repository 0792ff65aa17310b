import Foundation
import StackSymbolize
import SystemIO

/// `symbolicate --object --index-folder` text and folded output, written straight from the symbol
/// index's bytes: no `SymbolicatedFrame`, no demangling, no `String` per answer (a million distinct
/// addresses spent four fifths of their time there). The lines are `AnswerWriter.writeText`'s and
/// `writeFolded`'s, byte for byte.
///
/// The input goes in blocks; a large batch formats two blocks at once, one per core, and writes
/// them in order, so memory holds two blocks of output, not the whole answer.
enum IndexedTextOutput {
    static let blockSize = 16_384
    /// From this many addresses the batch reads the index through its mapping, on two threads.
    /// Below it the index's pages are read into buffers of the process's own, which keeps a short
    /// run's memory to the pages it needs (`SymbolIndexPages`).
    static let minimumForThreads = 50_000

    /// Writes the answers of `batch`, in input order; returns the error to print when the index
    /// changed under the run (what was written before it changed was checked and stands).
    static func write(
        batch: AddressBatch, frames: IndexedFrames, shift: UInt64 = 0, offsets: Bool, image: String, folded: Bool = false,
        threads: Int = ProcessInfo.processInfo.activeProcessorCount, minimumForThreads: Int = minimumForThreads, blockSize: Int = blockSize,
        to stdout: inout some TextOutputStream
    ) -> SymbolizeError? {
        let layout = Layout(image: image, shift: shift, offsets: offsets, folded: folded)
        let total = batch.addresses.count
        var cache = IndexedFrames.Cache()
        var out = TextBytes()
        func emit(_ text: TextBytes) -> Bool {
            // Checked before it is written: bytes read from a changed index are never printed.
            if frames.hasChanged { return false }
            writeUTF8(text.bytes, to: &stdout)
            return true
        }
        var blockStart = 0
        if total >= minimumForThreads, threads > 1 {
            frames.readThroughMapping()
            var secondCache: IndexedFrames.Cache? = IndexedFrames.Cache()
            while blockStart < total {
                let first = blockStart..<min(total, blockStart + blockSize)
                let second = first.upperBound..<min(total, first.upperBound + blockSize)
                let handedCache = secondCache.take()!
                let worker = SecondThread { () -> sending (TextBytes, IndexedFrames.Cache) in
                    var cache = handedCache
                    var out = TextBytes()
                    format(second, of: batch, from: frames, layout: layout, cache: &cache, into: &out)
                    return (out, cache)
                }
                out.removeAll()
                format(first, of: batch, from: frames, layout: layout, cache: &cache, into: &out)
                let (secondOut, returnedCache) = worker.join()
                secondCache = returnedCache
                guard emit(out), emit(secondOut) else { return frames.changedError }
                blockStart = second.upperBound
            }
            return nil
        }
        while blockStart < total {
            let block = blockStart..<min(total, blockStart + blockSize)
            out.removeAll()
            format(block, of: batch, from: frames, layout: layout, cache: &cache, into: &out)
            guard emit(out) else { return frames.changedError }
            blockStart = block.upperBound
        }
        return nil
    }

    /// What every line of a batch shares.
    struct Layout: Sendable {
        let image: String
        let imageColumn: [UInt8]
        /// Subtracted from each given value before the lookup (`AddressForm.shift`: the load
        /// address or the slide of runtime addresses); the address column keeps the value as given.
        let shift: UInt64
        let offsets: Bool
        /// Folded stacks (`AnswerWriter.writeFolded`) instead of text lines.
        let folded: Bool

        init(image: String, shift: UInt64, offsets: Bool, folded: Bool) {
            self.image = image
            imageColumn = SymbolicateOutput.imageColumn(image)
            self.shift = shift
            self.offsets = offsets
            self.folded = folded
        }
    }

    /// The lines of inputs `block`, appended to `out`.
    static func format(
        _ block: Range<Int>, of batch: AddressBatch, from frames: IndexedFrames, layout: Layout, cache: inout IndexedFrames.Cache,
        into out: inout TextBytes
    ) {
        if layout.folded {
            formatFolded(block, of: batch, from: frames, layout: layout, cache: &cache, into: &out)
            return
        }
        let textBase = frames.textBase
        for index in block {
            guard batch.valid[index] else {
                out.append(Array("\(batch.text(index)) ?? [not an address]\n".utf8))
                continue
            }
            let given = batch.addresses[index]
            // Every line of an input starts the same: made once, copied for each further line.
            var prefixMade: Range<Int>?
            func prefix() {
                if let made = prefixMade {
                    out.appendCopy(of: made)
                    return
                }
                let from = out.count
                SymbolicateOutput.appendIndexColumn(index, into: &out)
                out.append(layout.imageColumn)
                SymbolicateOutput.appendPaddedHex(given, into: &out)
                out.append(UInt8(ascii: " "))
                prefixMade = from..<out.count
            }
            let value = given &- layout.shift
            if BuildSymbolizer.offsetLeavesTheAddressSpace(value, offsets: layout.offsets, textBase: textBase) {
                prefix()
                SymbolicateOutput.appendUnsymbolicated(
                    image: layout.image, address: given, offset: value, lookupAddress: nil, missingUUID: nil,
                    signedOffsets: layout.shift != 0, into: &out)
                continue
            }
            let address = layout.offsets ? textBase &+ value : value
            var written = false
            _ = frames.frames(at: address, cache: &cache) { frame, functionStart in
                written = true
                prefix()
                SymbolicateOutput.appendFrameText(
                    name: frame.simplifiedName, file: frame.file, line: frame.line, isInlined: frame.isInlined, functionStart: functionStart,
                    lookupAddress: address, isSymbolTable: frame.isFromSymbolTable, into: &out)
            }
            if !written {
                prefix()
                SymbolicateOutput.appendUnsymbolicated(
                    image: layout.image, address: given, offset: address &- textBase, lookupAddress: address, missingUUID: nil, into: &out)
            }
        }
    }

    /// The folded-stack lines of inputs `block` (`AnswerWriter.writeFolded`'s): per address its
    /// frames' simplified names, outermost first, `;` inside a name written as `,`, then ` 1`; an
    /// address with nothing there is `image+0xoffset`; an input that is no address writes nothing.
    static func formatFolded(
        _ block: Range<Int>, of batch: AddressBatch, from frames: IndexedFrames, layout: Layout, cache: inout IndexedFrames.Cache,
        into out: inout TextBytes
    ) {
        let textBase = frames.textBase
        // The names of one answer, innermost first (copied: a name's bytes last only for its visit).
        var names: [UInt8] = []
        var nameEnds: [Int] = []
        for index in block where batch.valid[index] {
            let given = batch.addresses[index] &- layout.shift
            names.removeAll(keepingCapacity: true)
            nameEnds.removeAll(keepingCapacity: true)
            let beyondTheEnd = BuildSymbolizer.offsetLeavesTheAddressSpace(given, offsets: layout.offsets, textBase: textBase)
            if !beyondTheEnd {
                let address = layout.offsets ? textBase &+ given : given
                _ = frames.frames(at: address, cache: &cache) { frame, _ in
                    for byte in frame.simplifiedName { names.append(byte == UInt8(ascii: ";") ? UInt8(ascii: ",") : byte) }
                    nameEnds.append(names.count)
                }
            }
            if nameEnds.isEmpty {
                let offset = beyondTheEnd || layout.offsets ? given : given &- textBase
                out.append(Array("\(layout.image)+\(SymbolicateOutput.hex(offset)) 1\n".utf8))
                continue
            }
            names.withUnsafeBytes { bytes in
                for position in nameEnds.indices.reversed() {
                    let start = position == 0 ? 0 : nameEnds[position - 1]
                    out.append(bytes: UnsafeRawBufferPointer(rebasing: bytes[start..<nameEnds[position]]))
                    if position > 0 { out.append(UInt8(ascii: ";")) }
                }
            }
            out.append(" 1\n")
        }
    }
}
