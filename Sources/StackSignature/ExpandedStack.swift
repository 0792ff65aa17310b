import Foundation
import PayloadDecode
import StackSymbolize
import SystemIO

/// One frame of a stack after symbolication and inline expansion: an address inside inlined code
/// becomes one `ExpandedFrame` per inlined call, innermost first.
public struct ExpandedFrame: Sendable, Hashable, Codable {
    /// The simplified name (`YuiLines.parse`), or `image+0xOFFSET` when the frame has no name.
    public var name: String
    /// The demangled full name, `nil` when the frame has no name.
    public var function: String?
    public var image: String?
    /// The stack frame's offset into its image's text segment, as the row holds it.
    public var offset: UInt64
    public var file: String?
    public var line: Int?
    /// True for a function inlined into the next frame of the same address.
    public var isInlined: Bool
    /// True when the image is not one of Apple's (`SystemImages`) or is named by `--app-image`;
    /// for a frame without an image name, when the build has a debug file for its UUID.
    public var isApp: Bool

    public init(
        name: String, function: String?, image: String?, offset: UInt64, file: String?, line: Int?,
        isInlined: Bool, isApp: Bool
    ) {
        self.name = name
        self.function = function
        self.image = image
        self.offset = offset
        self.file = file
        self.line = line
        self.isInlined = isInlined
        self.isApp = isApp
    }

    /// The name of a frame nothing could be said about, as docs/design.md, "Signatures" writes it. The image
    /// falls back to the UUID, then to `?`, so two unnamed images never read alike by accident.
    static func unnamed(image: String?, uuid: String?, offset: UInt64) -> String {
        "\(image ?? uuid ?? "?")+0x\(String(offset, radix: 16))"
    }
}

/// A row's stack, symbolicated and inline-expanded, innermost first.
public struct ExpandedStack: Sendable, Hashable {
    public var frames: [ExpandedFrame]
    /// UUIDs (with their image names) that had no debug file, so the caller can say what it missed.
    public var missingDebugFiles: [MissingDebugFile]

    public init(frames: [ExpandedFrame], missingDebugFiles: [MissingDebugFile] = []) {
        self.frames = frames
        self.missingDebugFiles = missingDebugFiles
    }
}

/// An image whose UUID had no debug file in the build's folder.
public struct MissingDebugFile: Sendable, Hashable, Comparable {
    public var uuid: String
    public var image: String?

    public init(uuid: String, image: String?) {
        self.uuid = uuid
        self.image = image
    }

    public static func < (lhs: MissingDebugFile, rhs: MissingDebugFile) -> Bool {
        (lhs.image ?? "", lhs.uuid) < (rhs.image ?? "", rhs.uuid)
    }
}

/// Turns a row's stack into an `ExpandedStack` with one build's debug files.
public struct StackExpander {
    public let symbolizer: any FrameSymbolizing
    /// Image names given with `--app-image`: app frames even without a debug file.
    public let appImages: Set<String>
    /// Image names given with `--system-image`: Apple's, whatever the store knows.
    public let systemImages: Set<String>

    public init(symbolizer: any FrameSymbolizing, appImages: Set<String> = [], systemImages: Set<String> = []) {
        self.symbolizer = symbolizer
        self.appImages = appImages
        self.systemImages = systemImages
    }

    /// App or Apple's (docs/top.md, "App frames"): `--app-image`, then `--system-image`, then what
    /// the store knows (an imported file's UUID or image name is the app's; once it knows any of
    /// the app's images, an image it does not know is Apple's: iOS 26 stacks run through private
    /// frameworks no list keeps up with, ColorSync and UpdateCycle), and only when the store knows
    /// nothing, the shipped list of Apple's images (`SystemImages`).
    func isAppFrame(image: String?, uuid: String?) -> Bool {
        if let image, appImages.contains(image) { return true }
        if let image, systemImages.contains(image) { return false }
        if let known = symbolizer.appImage(uuid: uuid, name: image) { return known }
        return image.map { !SystemImages.contains($0) } ?? false
    }

    /// Symbolicates `stack` (innermost first, as the `stack` column holds it). Frame 0 is the
    /// interrupted instruction; every other frame is a return address (docs/design.md, "Symbolication").
    public func expand(_ stack: [StackFrame]) -> ExpandedStack {
        expand(stacks: [stack])[0]
    }

    /// `expand(_:)` for many stacks at once: identical stacks are symbolicated once, and the
    /// others together, so each debug file answers its distinct addresses in one batch.
    public func expand(stacks: [[StackFrame]]) -> [ExpandedStack] {
        let (distinct, slots) = expandDistinct(stacks: stacks)
        return slots.map { distinct[$0] }
    }

    /// `expand(stacks:)` as the distinct stacks, expanded, and for each stack given its slot among
    /// them: a caller that derives something from each stack (a signature) does it once per slot.
    public func expandDistinct(stacks: [[StackFrame]]) -> (stacks: [ExpandedStack], slots: [Int]) {
        let (requests, answers, slots, isApp) = symbolicatedDistinct(stacks)
        return (requests.indices.map { Self.expand(requests[$0], answers: answers[$0], isApp: isApp) }, slots)
    }

    /// `expandDistinct`, each distinct stack also tallied (`TalliedStack`: its signature and folded
    /// frames). Many stacks are expanded and tallied in two halves on two threads: after the
    /// lookups, which use both, making 20,000 stacks' frames and signatures on one thread was a
    /// seventh of `top` over 20,000 rows (docs/speed.md).
    public func talliedDistinct(stacks: [[StackFrame]]) -> (stacks: [TalliedStack], slots: [Int]) {
        prepareFiles(stacks)
        let (requests, answers, slots, isApp) = symbolicatedDistinct(stacks)
        let tallied = SecondThread<Void>.mapInHalves(requests.count, minimum: Self.stacksForTwoThreads) { range in
            range.map { TalliedStack(StackExpander.expand(requests[$0], answers: answers[$0], isApp: isApp)) }
        }
        // The answers' frames and strings go on the other core while the caller tallies: freed
        // here, on the thread that tallies next, they were a tenth of `top` over 20,000 rows.
        if requests.count >= Self.stacksForTwoThreads { SecondThread<Void>.release((requests, answers)) }
        return (tallied, slots)
    }

    /// Lets a large batch's debug files start reading what their lookups read first on the other
    /// core while this one finds the batch's distinct stacks (`BuildSymbolizer.prepareForBatch`).
    private func prepareFiles(_ stacks: [[StackFrame]]) {
        let (uuids, frameCount) = Self.imageUUIDs(stacks)
        symbolizer.prepareForBatch(uuids: uuids, frameCount: frameCount)
    }

    /// The distinct image UUIDs of `stacks`' frames, and how many frames they have.
    public static func imageUUIDs(_ stacks: some Sequence<[StackFrame]>) -> (uuids: Set<String>, frameCount: Int) {
        var uuids: Set<String> = []
        var frameCount = 0
        // A row's frames mostly share one UUID string: comparing with the last is cheaper than hashing.
        var last: String?
        for stack in stacks {
            frameCount += stack.count
            for frame in stack {
                guard let uuid = frame.uuid, uuid != last else { continue }
                uuids.insert(uuid)
                last = uuid
            }
        }
        return (uuids, frameCount)
    }

    /// Below this many distinct stacks a second thread costs more than it saves.
    static let stacksForTwoThreads = 2_000

    /// The distinct stacks of `stacks` as requests, their answers (looked up together), each
    /// stack's slot among them, and whether each image of theirs is the app's.
    private func symbolicatedDistinct(
        _ stacks: [[StackFrame]]
    ) -> (requests: [[FrameRequest]], answers: [[SymbolicatedFrame]], slots: [Int], isApp: [FrameImage: Bool]) {
        var slotOfStack: [StackKey: Int] = [:]
        slotOfStack.reserveCapacity(stacks.count)
        var distinct: [[StackFrame]] = []
        let slots = stacks.map { stack in
            if let known = slotOfStack[StackKey(stack)] { return known }
            slotOfStack[StackKey(stack)] = distinct.count
            distinct.append(stack)
            return distinct.count - 1
        }
        let requests = distinct.map(Self.requests)
        var answers = symbolizer.symbolicate(stacks: requests)
        // One answer list per stack, whatever the symbolizer gave (a stack without answers keeps
        // its frames unnamed).
        if answers.count < requests.count { answers += Array(repeating: [], count: requests.count - answers.count) }
        // Asked once per image, here: the symbolizer answers on this thread only. The frame
        // before's image is compared first, as most frames share it (hashing both strings for
        // every frame was 1% of `top`).
        var isApp: [FrameImage: Bool] = [:]
        var previous: FrameImage?
        for request in requests.joined() {
            let key = FrameImage(image: request.image, uuid: request.uuid)
            guard key != previous else { continue }
            previous = key
            if isApp[key] == nil { isApp[key] = isAppFrame(image: request.image, uuid: request.uuid) }
        }
        return (requests, answers, slots, isApp)
    }

    /// A stack's requests: frame 0 is the interrupted instruction, the others return addresses.
    static func requests(_ stack: [StackFrame]) -> [FrameRequest] {
        stack.enumerated().map { index, frame in
            FrameRequest(image: frame.image, uuid: frame.uuid, offset: frame.offset, isReturnAddress: index > 0)
        }
    }

    /// One stack's frames from its answers, inline chains expanded, app frames marked.
    private static func expand(_ requests: [FrameRequest], answers: [SymbolicatedFrame], isApp appByImage: [FrameImage: Bool]) -> ExpandedStack {
        var frames: [ExpandedFrame] = []
        frames.reserveCapacity(requests.count)
        var missing: Set<MissingDebugFile> = []
        var previous: (key: FrameImage, isApp: Bool)?
        for (index, request) in requests.enumerated() {
            let answer = index < answers.count ? answers[index] : nil
            let key = FrameImage(image: request.image, uuid: request.uuid)
            let isApp: Bool
            if let previous, previous.key == key {
                isApp = previous.isApp
            } else {
                isApp = appByImage[key] ?? false
                previous = (key, isApp)
            }
            if let answer, answer.status == .missingDebugFile, let uuid = request.uuid {
                missing.insert(MissingDebugFile(uuid: uuid, image: request.image))
            }
            // Made only for a frame that needs it: most frames have a name.
            var unnamed: String { ExpandedFrame.unnamed(image: request.image, uuid: request.uuid, offset: request.offset) }
            let sourceFrames = answer?.frames ?? []
            if sourceFrames.isEmpty {
                frames.append(
                    ExpandedFrame(
                        name: unnamed, function: nil, image: request.image, offset: request.offset, file: nil,
                        line: nil, isInlined: false, isApp: isApp))
                continue
            }
            for source in sourceFrames {
                let name = source.simplifiedName.isEmpty ? source.function : source.simplifiedName
                frames.append(
                    ExpandedFrame(
                        name: name.isEmpty ? unnamed : name, function: source.function, image: request.image,
                        offset: request.offset, file: source.file, line: source.line, isInlined: source.isInlined,
                        isApp: isApp))
            }
        }
        return ExpandedStack(frames: frames, missingDebugFiles: missing.sorted())
    }
}

/// An image as a frame names it, the key of the app-or-Apple's answer.
struct FrameImage: Hashable, Sendable {
    var image: String?
    var uuid: String?
}
