import Foundation

/// Turns a diagnostic's `callStackTree` into the `stack` column (docs/design.md, "Stacks"): one path,
/// innermost frame first, at most 32 frames, offsets into the image's text segment.
struct StackNormalizer {
    /// MetricKit itself refuses frames nested deeper than this (`MXCallStackFrame`).
    static let maxDepth = 130
    static let maxFrames = 32

    enum Orientation {
        /// Crash: the root is the innermost frame, `subFrames[0]` its caller.
        case innermostRoot
        /// Hang, CPU, disk write, launch: a sample tree rooted at the outermost frame.
        case sampleTree
    }

    struct Outcome {
        var frames: [StackFrame]
        var warnings: [(key: String, message: String)] = []
        var error: (key: String, message: String)?
    }

    /// One frame as the payload wrote it, numbers checked. `binary` numbers the frame's binary
    /// (its UUID, else its image name, else none) within one stack.
    struct RawFrame {
        var image: String?
        var uuid: String?
        var address: UInt64?
        var field: UInt64?
        var binary = 0
    }

    /// The texts of one stack's frames, made once per distinct raw string: a stack repeats a few
    /// dozen binaries over up to 130 frames, and a String per frame (and hashing it into the
    /// per-binary tables) was most of the normalizer's time. Each text also gets the number of the
    /// binary it names, from `binaries`.
    struct TextCache {
        private var entries: [(start: UnsafePointer<UInt8>, length: Int, text: String?, binary: Int)] = []
        /// Where a raw string's entry is, by a hash of its length and first and last 8 bytes: a
        /// scan of the entries with a `memcmp` each was a quarter of the normalizer's time. A slot
        /// holds the last entry that hashed to it; a string whose slot another took is made again
        /// (the same text, the same binary number).
        private var slots = [Int](repeating: -1, count: 64)

        /// The text of the string at `index`: cached, or `make(bytes)` (then cached, with its binary
        /// number). Only unescaped strings are cached: they point into the document, which outlives
        /// the cache; a decoded copy would not.
        mutating func text(
            _ document: JSONDocument, _ index: Int, binaries: inout [String: Int], make: (UnsafeBufferPointer<UInt8>) -> String?
        ) -> (text: String?, binary: Int) {
            guard !document.nodes[index].flag else {
                let text = document.withStringBytes(index, make)
                return (text, text.map { StackNormalizer.number(of: $0, in: &binaries) } ?? -1)
            }
            let bytes = document.rawBytes(index)
            let start = bytes.baseAddress!
            let slot = Self.slot(of: bytes)
            let held = slots[slot]
            if held >= 0, entries[held].length == bytes.count, memcmp(entries[held].start, start, bytes.count) == 0 {
                return (entries[held].text, entries[held].binary)
            }
            let text = make(bytes)
            let binary = text.map { StackNormalizer.number(of: $0, in: &binaries) } ?? -1
            if entries.count < 256 {
                slots[slot] = entries.count
                entries.append((start, bytes.count, text, binary))
            }
            return (text, binary)
        }

        private static func slot(of bytes: UnsafeBufferPointer<UInt8>) -> Int {
            var first: UInt64 = 0
            var last: UInt64 = 0
            let raw = UnsafeRawPointer(bytes.baseAddress!)
            if bytes.count >= 8 {
                first = raw.loadUnaligned(as: UInt64.self)
                last = raw.loadUnaligned(fromByteOffset: bytes.count - 8, as: UInt64.self)
            } else {
                for k in 0..<bytes.count { first |= UInt64(bytes[k]) << (8 * UInt64(k)) }
            }
            let hash = (first &* 0x9E37_79B9_7F4A_7C15) ^ (last &* 0xC2B2_AE3D_27D4_EB4F) ^ UInt64(bytes.count)
            return Int(truncatingIfNeeded: (hash &* 0x1656_67B1_9E37_79F9) >> 58)
        }
    }

    /// The number of binary `name` (a UUID or an image name: one space of names, as before).
    static func number(of name: String, in binaries: inout [String: Int]) -> Int {
        // One hash: the `default:` subscript's in-place access puts a new name in as it finds
        // where it goes (a lookup, then a store, hashed each name twice).
        func number(_ slot: inout Int) -> Int { slot }
        let next = binaries.count
        return number(&binaries[name, default: next])
    }

    static func normalize(_ document: JSONDocument, tree: Int, orientation: Orientation, keyPath: String) -> Outcome {
        var outcome = Outcome(frames: [])
        guard document.kind(tree) == .object else {
            outcome.warnings.append((keyPath, "callStackTree is not an object; no stack"))
            return outcome
        }
        guard let (stackKey, roots) = rootFrames(document, tree: tree, keyPath: keyPath, warnings: &outcome.warnings) else {
            return outcome
        }
        // Keys are closures: built only when a warning needs one.
        func sampleCount(_ frame: Int, key: () -> String) -> UInt64 {
            guard document.kind(frame) == .object, let value = document.member(frame, "sampleCount") else { return 0 }
            guard case .value(let count) = document.unsignedInteger(value) else {
                outcome.warnings.append((key() + ".sampleCount", "not a count (a whole number from 0); counted as 0"))
                return 0
            }
            return count
        }
        func heaviest(_ frames: [Int], key: () -> String) -> Int {
            var best = 0
            var bestCount: UInt64 = 0
            for (position, frame) in frames.enumerated() {
                let count = sampleCount(frame, key: { "\(key())[\(position)]" })
                if position == 0 || count > bestCount {
                    best = position
                    bestCount = count
                }
            }
            return best
        }
        // Walk one path root → leaf without recursion; the depth limit is checked per step.
        var path: [RawFrame] = []
        var names = TextCache()
        var uuids = TextCache()
        // Room for the binaries of most stacks at once: grown from empty, the table was rehashed
        // five times a stack.
        var binaries = [String: Int](minimumCapacity: 32)
        var position = orientation == .sampleTree ? heaviest(roots, key: { stackKey }) : 0
        let rootPosition = position
        var node = roots[position]
        // The key path of the current frame, built only when a message needs it.
        var positions = [position]
        var children: [Int] = []  // the current frame's subFrames, storage reused level after level
        func keyOfCurrentFrame() -> String {
            stackKey + "[\(positions[0])]" + positions.dropFirst().map { ".subFrames[\($0)]" }.joined()
        }
        while true {
            if path.count >= maxDepth {
                // The place names the root frame, not 130 × ".subFrames[0]".
                outcome.error = (
                    "\(stackKey)[\(rootPosition)] and \(maxDepth) levels of subFrames below it",
                    "subFrames nested deeper than \(maxDepth) frames (MetricKit writes at most \(maxDepth))"
                )
                return outcome
            }
            guard document.kind(node) == .object else {
                outcome.warnings.append((keyOfCurrentFrame(), "frame is not an object; skipped"))
                break
            }
            let (frame, subFrames) = readFrame(
                document, node, key: keyOfCurrentFrame, warnings: &outcome.warnings, names: &names, uuids: &uuids,
                binaries: &binaries)
            path.append(frame)
            if let subFrames, document.kind(subFrames) != .array, document.kind(subFrames) != .null {
                outcome.warnings.append(
                    (keyOfCurrentFrame() + ".subFrames", "not an array (a JSON \(document.kind(subFrames))); the stack ends here"))
            }
            if let subFrames { document.elements(subFrames, into: &children) } else { children.removeAll(keepingCapacity: true) }
            if children.isEmpty { break }
            position = orientation == .sampleTree ? heaviest(children, key: { keyOfCurrentFrame() + ".subFrames" }) : 0
            node = children[position]
            positions.append(position)
        }
        if orientation == .sampleTree { path.reverse() }
        outcome.frames = offsets(of: path, binaryCount: binaries.count, stackKey: stackKey, warnings: &outcome.warnings)
        return outcome
    }

    /// The root frames of the call stack the diagnostic is about (the one marked
    /// `threadAttributed`, else the first) and its key path; nil, with a warning, when there are none.
    private static func rootFrames(
        _ document: JSONDocument, tree: Int, keyPath: String, warnings: inout [(key: String, message: String)]
    ) -> (stackKey: String, roots: [Int])? {
        let stacks = document.member(tree, "callStacks").map { document.elements($0) } ?? []
        guard !stacks.isEmpty else {
            warnings.append(("\(keyPath).callStacks", "no call stack; stack left null"))
            return nil
        }
        // The thread the diagnostic is about; without a mark, the first call stack.
        var stackPosition = 0
        for (position, stack) in stacks.enumerated() {
            if let flag = document.member(stack, "threadAttributed"), document.bool(flag) == true {
                stackPosition = position
                break
            }
        }
        let stackKey = "\(keyPath).callStacks[\(stackPosition)].callStackRootFrames"
        let roots = document.member(stacks[stackPosition], "callStackRootFrames").map { document.elements($0) } ?? []
        guard !roots.isEmpty else {
            warnings.append((stackKey, "no root frame; stack left null"))
            return nil
        }
        return (stackKey, roots)
    }

    /// The path's frames as `(image, uuid, offset)`, innermost first, at most `maxFrames`.
    static func offsets(
        of path: [RawFrame], binaryCount: Int, stackKey: String, warnings: inout [(key: String, message: String)]
    ) -> [StackFrame] {
        // The iOS 14/15 quirk, decided per binary: a field larger than `address − field` is the
        // image's load address, not an offset (a real offset is smaller than the image, and a
        // 64-bit image loads at 4 GB or above).
        var loadAddressByBinary = [UInt64?](repeating: nil, count: binaryCount)
        var quirkByBinary = [Bool?](repeating: nil, count: binaryCount)
        for frame in path {
            guard let address = frame.address, let field = frame.field else { continue }
            let binary = frame.binary
            let looksLikeLoadAddress = field <= address && field > address - field
            quirkByBinary[binary] = (quirkByBinary[binary] ?? true) && looksLikeLoadAddress
        }
        for frame in path {
            guard let address = frame.address, let field = frame.field else { continue }
            let binary = frame.binary
            if loadAddressByBinary[binary] == nil {
                loadAddressByBinary[binary] = quirkByBinary[binary] == true ? field : (field <= address ? address - field : nil)
            }
        }
        var frames: [StackFrame] = []
        var unusable = 0
        for frame in path {
            let binary = frame.binary
            var offset: UInt64?
            if let field = frame.field, let address = frame.address, quirkByBinary[binary] == true {
                offset = address - field
            } else if let field = frame.field {
                offset = field
            } else if let address = frame.address, let load = loadAddressByBinary[binary], address >= load {
                offset = address - load
            }
            guard let offset else {
                unusable += 1
                continue
            }
            frames.append(StackFrame(image: frame.image, uuid: frame.uuid, offset: offset))
            if frames.count == maxFrames { break }
        }
        if unusable > 0 {
            warnings.append((stackKey, "\(unusable) frame(s) without a usable offset or address skipped"))
        }
        if frames.isEmpty {
            warnings.append((stackKey, "no usable frame; stack left null"))
        }
        return frames
    }

    /// Reads one frame's fields (and finds its `subFrames`) in one pass over its members; a key
    /// given twice counts with its last value, as `JSONDocument.member` reads it.
    static func readFrame(
        _ document: JSONDocument, _ node: Int, key: () -> String, warnings: inout [(key: String, message: String)],
        names: inout TextCache, uuids: inout TextCache, binaries: inout [String: Int]
    ) -> (RawFrame, Int?) {
        var nameIndex: Int?
        var uuidIndex: Int?
        var addressIndex: Int?
        var fieldIndex: Int?
        var subFrames: Int?
        document.forEachMember(node) { keyIndex, value in
            let length = document.nodes[keyIndex].length
            // Told apart by length first: 10 binaryName and binaryUUID, 7 address, 27 the offset, 9 subFrames.
            switch length {
            case 10:
                if document.keyIs(keyIndex, "binaryName") {
                    nameIndex = value
                } else if document.keyIs(keyIndex, "binaryUUID") {
                    uuidIndex = value
                }
            case 7: if document.keyIs(keyIndex, "address") { addressIndex = value }
            case 27: if document.keyIs(keyIndex, "offsetIntoBinaryTextSegment") { fieldIndex = value }
            case 9: if document.keyIs(keyIndex, "subFrames") { subFrames = value }
            default:
                // An escaped key has its raw length; compare it decoded.
                if document.nodes[keyIndex].flag {
                    if document.keyIs(keyIndex, "binaryName") { nameIndex = value }
                    if document.keyIs(keyIndex, "binaryUUID") { uuidIndex = value }
                    if document.keyIs(keyIndex, "address") { addressIndex = value }
                    if document.keyIs(keyIndex, "offsetIntoBinaryTextSegment") { fieldIndex = value }
                    if document.keyIs(keyIndex, "subFrames") { subFrames = value }
                }
            }
        }
        var frame = RawFrame()
        var imageBinary = -1
        var uuidBinary = -1
        if let name = nameIndex {
            if document.kind(name) == .string {
                (frame.image, imageBinary) = names.text(document, name, binaries: &binaries) { ColumnPatterns.imageName($0) }
            } else {
                warnings.append(("\(key()).binaryName", "not a string; image left null"))
            }
        }
        if let uuid = uuidIndex {
            if document.kind(uuid) == .string,
                case let (text?, binary) = uuids.text(document, uuid, binaries: &binaries, make: { ColumnPatterns.canonicalUUID(bytes: $0) })
            {
                frame.uuid = text
                uuidBinary = binary
            } else {
                warnings.append(("\(key()).binaryUUID", "not a UUID; uuid left null"))
            }
        }
        // The binary: its UUID, else its image name, else the unnamed binary.
        frame.binary = uuidBinary >= 0 ? uuidBinary : imageBinary >= 0 ? imageBinary : number(of: "", in: &binaries)
        func unsigned(_ value: Int?, _ field: StaticString) -> UInt64? {
            guard let value else { return nil }
            switch document.unsignedInteger(value) {
            case .value(let number): return number
            case .negative: warnings.append(("\(key()).\(field)", "negative; frame field ignored"))
            case .tooLarge: warnings.append(("\(key()).\(field)", "past 2^64 − 1; frame field ignored"))
            case .notInteger: warnings.append(("\(key()).\(field)", "not an integer; frame field ignored"))
            case .notANumber: warnings.append(("\(key()).\(field)", "not a number; frame field ignored"))
            }
            return nil
        }
        frame.address = unsigned(addressIndex, "address")
        frame.field = unsigned(fieldIndex, "offsetIntoBinaryTextSegment")
        return (frame, subFrames)
    }
}
