import Foundation
import PayloadDecode
import StackSymbolize
import Synchronization
import SystemIO

/// The addresses to look up, one per argument or per line of standard input, read as bytes: a
/// million-line batch must not pay for a String per line.
struct AddressBatch {
    /// The longest line of standard input read as an address (an address takes at most 20
    /// characters; the rest of the room is for spaces).
    static let longestLine = 1_024

    let arguments: [String]
    /// For standard input: each address's (first byte, end byte, line number) in `data`.
    private(set) var spans: [(from: Int, to: Int, line: Int)] = []
    private(set) var data: [UInt8] = []
    private(set) var addresses: [UInt64] = []
    private(set) var valid: [Bool] = []
    /// Lines longer than `longestLine` are no address: only their first bytes are kept (for the
    /// message), so a gigabyte without a newline costs no more memory than a short line.
    /// Input index → the line's length.
    private(set) var overlongLines: [Int: Int] = [:]

    static func gather(arguments: [String], stdin: FileHandle) -> AddressBatch {
        var batch = AddressBatch(arguments: arguments)
        if arguments.isEmpty {
            batch.readLines(stdin)
        } else {
            for argument in arguments { batch.add(SymbolicateObject.parseAddress(Array(argument.utf8)[...])) }
        }
        return batch
    }

    /// The input as given, for messages and output.
    func text(_ index: Int) -> String {
        if !arguments.isEmpty { return arguments[index] }
        return String(decoding: data[spans[index].from..<spans[index].to], as: UTF8.self)
    }

    /// Where an input came from, for messages.
    func place(_ index: Int) -> String {
        arguments.isEmpty ? "<stdin>: line \(spans[index].line)" : "argument \(index + 1)"
    }

    private mutating func reserve(lines: Int, bytes: Int) {
        spans.reserveCapacity(lines)
        addresses.reserveCapacity(lines)
        valid.reserveCapacity(lines)
        data.reserveCapacity(bytes)
    }

    private mutating func add(_ address: UInt64?) {
        addresses.append(address ?? 0)
        valid.append(address != nil)
    }

    private mutating func readLines(_ stdin: FileHandle) {
        var lines = LineState()
        let chunk = UnsafeMutableRawBufferPointer.allocate(byteCount: 1 << 16, alignment: 1)
        defer { chunk.deallocate() }
        // From a regular file, the arrays are sized once from its size and the first chunk's lines:
        // grown by doubling they were copied into fresh pages, a twentieth of a small binary's
        // page faults.
        var fileSize = 0
        if case .success(let status) = FileIO.status(ofDescriptor: stdin.fileDescriptor, retryOnInterrupt: false), status.kind == .regular {
            fileSize = Int(status.size)
        }
        var firstChunk = true
        while true {
            // A read error ends the input as its end would: what was read is answered.
            guard case .success(let got) = FileIO.read(stdin.fileDescriptor, into: chunk.baseAddress!, count: chunk.count), got > 0
            else { break }
            if firstChunk {
                firstChunk = false
                if fileSize > got, let newline = memchr(chunk.baseAddress!, Int32(UInt8(ascii: "\n")), got) {
                    // The first line's length stands for the rest (capped: a line has two bytes at least).
                    let lineLength = max(2, newline - chunk.baseAddress! + 1)
                    reserve(lines: min(fileSize / lineLength + 64, fileSize / 2 + 1), bytes: fileSize)
                }
            }
            // Line by line with memchr: a long line is skipped over, not walked byte by byte.
            var position = 0
            while position < got {
                let start = chunk.baseAddress! + position
                let newline = memchr(start, Int32(UInt8(ascii: "\n")), got - position)
                let end = newline.map { $0 - chunk.baseAddress! } ?? got
                let piece = end - position
                // A whole line in the chunk: read where it is, only its address's bytes kept (copying
                // every line into `data` first, then trimming and reading it there, was half of
                // reading a million addresses, all of it before the first answer).
                if newline != nil, lines.length == 0, piece <= Self.longestLine {
                    addLine(UnsafeRawBufferPointer(start: start, count: piece), number: &lines.number)
                    lines.start = data.count
                    position = end + 1
                    continue
                }
                let room = max(0, Self.longestLine + 1 - lines.length)
                if room > 0 {
                    data.append(contentsOf: UnsafeRawBufferPointer(start: start, count: min(piece, room)))
                }
                lines.length += piece
                if newline != nil { endLine(&lines) }
                position = end + 1
            }
        }
        if lines.length > 0 { endLine(&lines) }
    }

    /// A whole line of standard input no longer than `longestLine`, as `endLine` reads it: its
    /// bytes without the spaces around them kept in `data`; an empty line counts but adds nothing.
    private mutating func addLine(_ line: UnsafeRawBufferPointer, number: inout Int) {
        number += 1
        var first = 0
        var last = line.count
        func isSpace(_ byte: UInt8) -> Bool { byte == 32 || byte == 9 || byte == 13 }
        while first < last, isSpace(line[first]) { first += 1 }
        while last > first, isSpace(line[last - 1]) { last -= 1 }
        guard first < last else { return }
        let kept = UnsafeRawBufferPointer(rebasing: line[first..<last])
        let address = SymbolicateObject.parseAddress(kept.assumingMemoryBound(to: UInt8.self))
        let from = data.count
        data.append(contentsOf: kept)
        spans.append((from, data.count, number))
        add(address)
    }

    /// Where the line being read starts in `data`, its full length, and its number.
    private struct LineState {
        var number = 0
        var start = 0
        var length = 0
    }

    private mutating func endLine(_ line: inout LineState) {
        line.number += 1
        let (first, last, address) = data.withUnsafeBufferPointer { data in
            var first = line.start
            var last = data.count
            func isSpace(_ byte: UInt8) -> Bool { byte == 32 || byte == 9 || byte == 13 }
            while first < last, isSpace(data[first]) { first += 1 }
            while last > first, isSpace(data[last - 1]) { last -= 1 }
            let address = SymbolicateObject.parseAddress(UnsafeBufferPointer(rebasing: data[first..<last]))
            return (first, last, address)
        }
        if line.length > Self.longestLine {
            overlongLines[spans.count] = line.length
            spans.append((line.start, data.count, line.number))
            add(nil)
        } else if first < last {
            spans.append((first, last, line.number))
            add(address)
        } else {
            data.removeSubrange(line.start...)
        }
        line.start = data.count
        line.length = 0
    }
}

/// Batches repeat addresses (stacks share their hot frames): each distinct address is looked up
/// and formatted once, and every later occurrence copies its bytes.
struct DistinctAddresses {
    private(set) var distinct: [UInt64] = []
    /// Input index → index into `distinct`; -1 for an input that is no address.
    private(set) var slots: [Int32]

    init(_ batch: AddressBatch) {
        slots = [Int32](repeating: -1, count: batch.addresses.count)
        distinct.reserveCapacity(batch.addresses.count)
        // An open-addressing table of slot + 1 by address, twice the batch's size, probed from a
        // multiply-shift hash (a Dictionary hashed every address with SipHash and grew as it
        // filled: 2% of a small binary's batch).
        var bits = 4
        while 1 << bits < 2 * batch.addresses.count { bits += 1 }
        var table = [Int32](repeating: 0, count: 1 << bits)
        let mask = table.count - 1
        for index in batch.addresses.indices where batch.valid[index] {
            let address = batch.addresses[index]
            var probe = Int(truncatingIfNeeded: (address &* 0x9E37_79B9_7F4A_7C15) >> UInt64(64 - bits))
            while true {
                let entry = table[probe]
                if entry == 0 {
                    let slot = Int32(distinct.count)
                    table[probe] = slot + 1
                    distinct.append(address)
                    slots[index] = slot
                    break
                }
                if distinct[Int(entry - 1)] == address {
                    slots[index] = entry - 1
                    break
                }
                probe = (probe + 1) & mask
            }
        }
    }
}
