/// Turns a diagnostic's `callStackTree` into the `stack` column (SPEC section 5): one path,
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

    /// One frame as the payload wrote it, numbers checked.
    private struct RawFrame {
        var image: String?
        var uuid: String?
        var address: UInt64?
        var field: UInt64?
    }

    static func normalize(_ document: JSONDocument, tree: Int, orientation: Orientation, keyPath: String) -> Outcome {
        var outcome = Outcome(frames: [])
        guard document.kind(tree) == .object else {
            outcome.warnings.append((keyPath, "callStackTree is not an object; no stack"))
            return outcome
        }
        let stacks = document.member(tree, "callStacks").map { document.elements($0) } ?? []
        guard !stacks.isEmpty else {
            outcome.warnings.append(("\(keyPath).callStacks", "no call stack; stack left null"))
            return outcome
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
            outcome.warnings.append((stackKey, "no root frame; stack left null"))
            return outcome
        }
        func sampleCount(_ frame: Int) -> UInt64 {
            guard let value = document.member(frame, "sampleCount"), case .value(let count) = document.unsignedInteger(value)
            else { return 0 }
            return count
        }
        func heaviest(_ frames: [Int]) -> Int {
            var best = 0
            var bestCount: UInt64 = 0
            for (position, frame) in frames.enumerated() {
                let count = sampleCount(frame)
                if position == 0 || count > bestCount {
                    best = position
                    bestCount = count
                }
            }
            return best
        }
        // Walk one path root → leaf without recursion; the depth limit is checked per step.
        var path: [RawFrame] = []
        var position = orientation == .sampleTree ? heaviest(roots) : 0
        var node = roots[position]
        // The key path of the current frame, built only when a message needs it.
        var positions = [position]
        func keyOfCurrentFrame() -> String {
            stackKey + "[\(positions[0])]" + positions.dropFirst().map { ".subFrames[\($0)]" }.joined()
        }
        while true {
            if path.count >= maxDepth {
                outcome.error = (keyOfCurrentFrame(), "subFrames nested deeper than \(maxDepth) frames (MetricKit writes at most \(maxDepth))")
                return outcome
            }
            guard document.kind(node) == .object else {
                outcome.warnings.append((keyOfCurrentFrame(), "frame is not an object; skipped"))
                break
            }
            path.append(readFrame(document, node, key: keyOfCurrentFrame, warnings: &outcome.warnings))
            let children = document.member(node, "subFrames").map { document.elements($0) } ?? []
            if children.isEmpty { break }
            position = orientation == .sampleTree ? heaviest(children) : 0
            node = children[position]
            positions.append(position)
        }
        if orientation == .sampleTree { path.reverse() }

        // The iOS 14/15 quirk, decided per binary: a field larger than `address − field` is the
        // image's load address, not an offset (a real offset is smaller than the image, and a
        // 64-bit image loads at 4 GB or above).
        var loadAddressByBinary: [String: UInt64] = [:]
        var quirkByBinary: [String: Bool] = [:]
        for frame in path {
            guard let address = frame.address, let field = frame.field else { continue }
            let binary = frame.uuid ?? frame.image ?? ""
            let looksLikeLoadAddress = field <= address && field > address - field
            quirkByBinary[binary] = (quirkByBinary[binary] ?? true) && looksLikeLoadAddress
        }
        for frame in path {
            guard let address = frame.address, let field = frame.field else { continue }
            let binary = frame.uuid ?? frame.image ?? ""
            if loadAddressByBinary[binary] == nil {
                loadAddressByBinary[binary] = quirkByBinary[binary] == true ? field : (field <= address ? address - field : nil)
            }
        }
        var frames: [StackFrame] = []
        var unusable = 0
        for frame in path {
            let binary = frame.uuid ?? frame.image ?? ""
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
            outcome.warnings.append((stackKey, "\(unusable) frame(s) without a usable offset or address skipped"))
        }
        if frames.isEmpty {
            outcome.warnings.append((stackKey, "no usable frame; stack left null"))
        }
        outcome.frames = frames
        return outcome
    }

    private static func readFrame(
        _ document: JSONDocument, _ node: Int, key: () -> String, warnings: inout [(key: String, message: String)]
    ) -> RawFrame {
        var frame = RawFrame()
        if let name = document.member(node, "binaryName") {
            if document.kind(name) == .string {
                frame.image = document.withStringBytes(name) { bytes -> String? in
                    var kept: [UInt8] = []
                    kept.reserveCapacity(bytes.count)
                    for c in bytes
                    where (c >= 0x61 && c <= 0x7a) || (c >= 0x41 && c <= 0x5a) || (c >= 0x30 && c <= 0x39) || c == 0x5f || c == 0x2e
                        || c == 0x2b || c == 0x2d
                    {
                        kept.append(c)
                    }
                    return kept.isEmpty ? nil : String(decoding: kept, as: UTF8.self)
                }
            } else {
                warnings.append(("\(key()).binaryName", "not a string; image left null"))
            }
        }
        if let uuid = document.member(node, "binaryUUID") {
            if document.kind(uuid) == .string, let canonical = document.withStringBytes(uuid, { ColumnPatterns.canonicalUUID(bytes: $0) }) {
                frame.uuid = canonical
            } else {
                warnings.append(("\(key()).binaryUUID", "not a UUID; uuid left null"))
            }
        }
        func unsigned(_ field: StaticString) -> UInt64? {
            guard let value = document.member(node, field) else { return nil }
            switch document.unsignedInteger(value) {
            case .value(let number): return number
            case .negative: warnings.append(("\(key()).\(field)", "negative; frame field ignored"))
            case .tooLarge: warnings.append(("\(key()).\(field)", "past 2^64 − 1; frame field ignored"))
            case .notInteger: warnings.append(("\(key()).\(field)", "not an integer; frame field ignored"))
            case .notANumber: warnings.append(("\(key()).\(field)", "not a number; frame field ignored"))
            }
            return nil
        }
        frame.address = unsigned("address")
        frame.field = unsigned("offsetIntoBinaryTextSegment")
        return frame
    }
}
