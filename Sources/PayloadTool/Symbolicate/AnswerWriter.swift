import Foundation
import PayloadDecode
import StackSymbolize
import Synchronization
import SystemIO

/// Writes the answers in input order. The formatted bytes of each distinct answer live in one
/// arena: `pieces[slot]` ..< `pieces[slot + 1]` index `spans`, the byte ranges of its parts.
struct AnswerWriter {
    let batch: AddressBatch
    let lookups: DistinctAddresses
    let answers: [SymbolicatedFrame]
    let image: String
    /// The values are runtime addresses (`-l`): an offset past 2^63 lies below the load address.
    var signedOffsets = false
    private var arena: [UInt8] = []
    private var spans: [Range<Int>] = []
    private var pieces: [Int] = [0]

    /// The answers of `BuildSymbolizer.lookupForText`, for text output (then `answers` is empty).
    let direct: DirectAnswers?

    init(batch: AddressBatch, lookups: DistinctAddresses, answers: [SymbolicatedFrame], image: String) {
        self.batch = batch
        self.lookups = lookups
        self.answers = answers
        self.image = image
        direct = nil
    }

    init(batch: AddressBatch, lookups: DistinctAddresses, direct: DirectAnswers, image: String) {
        self.batch = batch
        self.lookups = lookups
        answers = []
        self.image = image
        self.direct = direct
    }

    private mutating func keep(_ text: String) {
        let from = arena.count
        arena.append(contentsOf: text.utf8)
        spans.append(from..<arena.count)
    }

    /// An answer's JSON object in two parts, around the `input` field (the only one that depends on
    /// how the address was written).
    private func jsonParts(_ slot: Int) -> (head: String, tail: String) {
        let answer = answers[slot]
        var head = "\"address\":"
        SymbolicateOutput.jsonString(SymbolicateOutput.hex(lookups.distinct[slot]), into: &head)
        SymbolicateOutput.jsonField("debug_file", answer.debugFile, into: &head)
        head += ",\"frames\":["
        for (position, source) in answer.frames.enumerated() {
            if position > 0 { head += "," }
            SymbolicateOutput.jsonSource(source, into: &head)
        }
        head += "]"
        SymbolicateOutput.jsonField("function_start", answer.functionStart.map(SymbolicateOutput.hex), into: &head)
        var tail = ""
        SymbolicateOutput.jsonField("lookup_address", answer.lookupAddress.map(SymbolicateOutput.hex), into: &tail)
        SymbolicateOutput.jsonField("status", SymbolicateOutput.jsonStatus(answer.status), into: &tail)
        return (head, tail + "}")
    }

    mutating func writeJSON(to stdout: inout some TextOutputStream) {
        // The output buffer is the call's own: the writer, kept after the batch, holds answers only.
        var out = ByteOutput()
        // Each distinct answer is formatted once, at its first occurrence; its bytes are kept only
        // when it occurs again (a million distinct answers kept whole were half a gigabyte).
        var occurs = [UInt8](repeating: 0, count: answers.count)
        for slot in lookups.slots where slot >= 0 && occurs[Int(slot)] < 2 { occurs[Int(slot)] += 1 }
        var keptAt = [Int32](repeating: -1, count: answers.count)
        // Written answer by answer: a million-address batch must not hold its whole JSON at once.
        out.append("[")
        for index in batch.addresses.indices {
            out.append(index == 0 ? "{" : ",{")
            let slot = Int(lookups.slots[index])
            if slot >= 0 {
                var input = "\"input\":\""
                if batch.arguments.isEmpty {
                    // Only hex or decimal digits: nothing to escape.
                    input += String(decoding: batch.data[batch.spans[index].from..<batch.spans[index].to], as: UTF8.self)
                } else {
                    input += batch.arguments[index]
                }
                input += "\""
                if keptAt[slot] >= 0 {
                    out.append(arena, spans[Int(keptAt[slot])])
                    out.append(",")
                    out.append(input)
                    out.append(arena, spans[Int(keptAt[slot]) + 1])
                } else {
                    let (head, tail) = jsonParts(slot)
                    out.append(head)
                    out.append(",")
                    out.append(input)
                    out.append(tail)
                    if occurs[slot] > 1 {
                        keptAt[slot] = Int32(spans.count)
                        keep(head)
                        keep(tail)
                    }
                }
            } else {
                var object = "\"frames\":[]"
                SymbolicateOutput.jsonField("input", batch.text(index), into: &object)
                SymbolicateOutput.jsonField("status", "invalid_input", into: &object)
                out.append(object + "}")
            }
            out.flushIfFull(into: &stdout)
        }
        out.append("]\n")
        out.flush(into: &stdout)
    }

    mutating func writeFolded(names: SymbolicateOutput.Names = .simplified, to stdout: inout some TextOutputStream) {
        // The output buffer is the call's own: the writer, kept after the batch, holds answers only.
        var out = ByteOutput()
        for answer in answers {
            keep(SymbolicateOutput.foldedNames(image: image, frame: answer, names: names).joined(separator: ";") + " 1\n")
            pieces.append(spans.count)
        }
        for index in batch.addresses.indices where lookups.slots[index] >= 0 {
            out.append(arena, spans[pieces[Int(lookups.slots[index])]])
            out.flushIfFull(into: &stdout)
        }
        out.flush(into: &stdout)
    }

    /// atos's lines (`SymbolicateOutput.atosLines`), answer after answer in input order; an input
    /// that is no address is written back as given (its error is on standard error).
    mutating func writeAtos(demangles: Bool, to stdout: inout some TextOutputStream) {
        var out = ByteOutput()
        var formatted: [String?] = Array(repeating: nil, count: answers.count)
        for index in batch.addresses.indices {
            let slot = Int(lookups.slots[index])
            if slot < 0 {
                out.append(batch.text(index) + "\n")
            } else if let known = formatted[slot] {
                out.append(known)
            } else {
                let lines = SymbolicateOutput.atosLines(input: batch.text(index), image: image, frame: answers[slot], demangles: demangles)
                // An address nothing was found at is written back as given, so only the others are
                // the same for every spelling of the address.
                if !answers[slot].frames.isEmpty { formatted[slot] = lines }
                out.append(lines)
            }
            out.flushIfFull(into: &stdout)
        }
        out.flush(into: &stdout)
    }

    mutating func writeText(names: SymbolicateOutput.Names = .simplified, to stdout: inout some TextOutputStream) {
        // The output buffer is the call's own: the writer, kept after the batch, holds answers only.
        var out = ByteOutput()
        var sink = out.bytes
        let imageColumn = SymbolicateOutput.imageColumn(image)
        // An answer given once (most are) is formatted straight into the output, its index column
        // first on each line. Only an answer given again is formatted once into `lines` and copied
        // out per occurrence: formatting every answer into `lines` first was a megabyte of fresh
        // pages and a copy of the whole output (a tenth of a small binary's page faults).
        var occurs = [UInt8](repeating: 0, count: lookups.distinct.count)
        for slot in lookups.slots where slot >= 0 && occurs[Int(slot)] < 2 { occurs[Int(slot)] += 1 }
        var lineEnds: [Int] = []
        var lines = TextBytes(capacity: 1 << 12)
        // Per repeated answer, where its lines start in `pieces` (-1: not formatted yet).
        var keptAt = [Int32](repeating: -1, count: occurs.count)
        // Each line of a kept answer, without its first column, which is written per occurrence.
        func keep(_ from: Int) {
            var from = from
            for end in lineEnds {
                spans.append(from..<end)
                from = end
            }
            pieces.append(spans.count)
        }
        // By position, so each answer is lent to the formatting rather than copied (a copy
        // retained and released every string of it).
        func format(
            _ slot: Int, indexColumn: Int?, into target: inout TextBytes, frames: UnsafeBufferPointer<DirectAnswers.Frame>,
            text: UnsafeRawBufferPointer
        ) {
            lineEnds.removeAll(keepingCapacity: true)
            if let direct {
                SymbolicateOutput.appendTextLines(
                    imageColumn: imageColumn, image: image, address: lookups.distinct[slot], answer: direct.answers[slot],
                    frames: frames, text: text, indexColumn: indexColumn, signedOffsets: signedOffsets, into: &target, lineEnds: &lineEnds)
            } else {
                SymbolicateOutput.appendTextLines(
                    imageColumn: imageColumn, image: image, address: lookups.distinct[slot], frame: answers[slot], names: names,
                    indexColumn: indexColumn, signedOffsets: signedOffsets, into: &target, lineEnds: &lineEnds)
            }
        }
        let frames = direct?.frames ?? []
        let text = direct?.text ?? []
        frames.withUnsafeBufferPointer { frames in
            text.withUnsafeBytes { text in
                for index in batch.addresses.indices {
                    let slot = Int(lookups.slots[index])
                    if slot < 0 {
                        out.append("\(batch.text(index)) ?? [not an address]\n")
                    } else if occurs[slot] == 1 {
                        format(slot, indexColumn: index, into: &sink, frames: frames, text: text)
                    } else {
                        if keptAt[slot] < 0 {
                            keptAt[slot] = Int32(pieces.count - 1)
                            let from = lines.count
                            format(slot, indexColumn: nil, into: &lines, frames: frames, text: text)
                            keep(from)
                        }
                        let first = Int(keptAt[slot])
                        for piece in pieces[first]..<pieces[first + 1] {
                            out.appendIndexColumn(index)
                            out.append(bytes: UnsafeRawBufferPointer(rebasing: lines.bytes[spans[piece]]))
                        }
                    }
                    out.flushIfFull(into: &stdout)
                }
            }
        }
        out.flush(into: &stdout)
    }
}
