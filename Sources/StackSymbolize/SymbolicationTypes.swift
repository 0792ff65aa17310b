/// One frame to symbolicate: an image offset as MetricKit reports it.
public struct FrameRequest: Sendable, Hashable, Codable {
    public var image: String?
    /// Canonical upper-case 8-4-4-4-12 UUID, or `nil` when the payload had none.
    public var uuid: String?
    /// Offset into the image's text segment.
    public var offset: UInt64
    /// True for every stack frame but the innermost: the address is a return address, so the
    /// caller's instruction is looked up instead (docs/design.md, "Symbolication").
    public var isReturnAddress: Bool

    public init(image: String?, uuid: String?, offset: UInt64, isReturnAddress: Bool) {
        self.image = image
        self.uuid = uuid
        self.offset = offset
        self.isReturnAddress = isReturnAddress
    }
}

/// One source-level function at an address. An address inside inlined code yields several,
/// innermost first; every one but the last is `isInlined`.
public struct SourceFrame: Sendable, Hashable, Codable {
    /// The symbol as stored (`$s6YuiApp8YuiLinesV5parse...`), `nil` when DWARF gave only a plain name.
    public var linkageName: String?
    /// The demangled full name, or the raw name when it cannot be demangled.
    public var function: String
    /// `Type.member` form (docs/design.md, "Symbolication"), e.g. `YuiLines.parse`, `closure in ThreadView.body`.
    public var simplifiedName: String
    public var file: String?
    public var line: Int?
    public var isInlined: Bool

    public init(linkageName: String?, function: String, simplifiedName: String, file: String?, line: Int?, isInlined: Bool) {
        self.linkageName = linkageName
        self.function = function
        self.simplifiedName = simplifiedName
        self.file = file
        self.line = line
        self.isInlined = isInlined
    }
}

/// The answer for one `FrameRequest`.
public struct SymbolicatedFrame: Sendable, Hashable, Codable {
    public enum Status: String, Sendable, Codable {
        /// Function, file and line from DWARF.
        case symbolicated
        /// No DWARF covers the address; the name is the symbol table's nearest symbol.
        case symbolTable
        /// No debug file for the image's UUID: the frame stays `image + offset`.
        case missingDebugFile
        /// The debug file exists but knows nothing at this address.
        case notFound
        /// No debug file of ours answers, and the crash report the frame came from names it (the
        /// phone names system frames, Xcode and TestFlight the app's): its name, file and line.
        case report
    }

    public var request: FrameRequest
    public var status: Status
    /// The address looked up in the debug file's address space (text base + offset, caller-adjusted).
    public var lookupAddress: UInt64?
    /// Path of the debug file used.
    public var debugFile: String?
    /// Innermost first; empty unless `status` is `symbolicated` or `symbolTable`.
    public var frames: [SourceFrame]
    /// Start address of the outermost function (DWARF range or symbol), for `function + offset`.
    public var functionStart: UInt64?

    public init(
        request: FrameRequest, status: Status, lookupAddress: UInt64?, debugFile: String?, frames: [SourceFrame],
        functionStart: UInt64? = nil
    ) {
        self.request = request
        self.status = status
        self.lookupAddress = lookupAddress
        self.debugFile = debugFile
        self.frames = frames
        self.functionStart = functionStart
    }
}

/// A batch's answers as `symbolicate --object` text output needs them
/// (`BuildSymbolizer.lookupForText`): per answer its status and addresses, and its frames, kept
/// flat, each with its simplified name and its file as bytes in `text` (each name and path kept
/// once): no string per frame, so writing them out retains and releases nothing.
public struct DirectAnswers: Sendable {
    public struct Answer: Sendable {
        public var status: SymbolicatedFrame.Status
        /// The offset from the image's text base (`FrameRequest.offset`).
        public var offset: UInt64
        public var lookupAddress: UInt64?
        public var functionStart: UInt64?
        /// Its frames in `DirectAnswers.frames`, innermost first.
        public var frames: Range<Int32>
    }

    public struct Frame: Sendable {
        /// The simplified name's bytes in `text`.
        public var name: Range<Int32>
        /// The full source path's bytes in `text`; nil for a frame without one.
        public var file: Range<Int32>?
        public var line: Int?
        public var isInlined: Bool
    }

    /// The names and paths the frames point into.
    public var text: [UInt8] = []

    /// The debug file the answers come from.
    public var debugFile: String
    public var answers: [Answer] = []
    public var frames: [Frame] = []
    /// The lookups the answers were made from (a batch of threads), dropped with them rather than
    /// when the lookup returns: a command keeps its last answers until the process ends, and
    /// freeing every frame's strings and arrays just before that was 4% of a cold batch.
    var lookups: [[RawLookup]] = []

    /// Where `text` holds `bytes`, appended now.
    mutating func keep(_ bytes: UnsafeRawBufferPointer) -> Range<Int32> {
        let start = Int32(text.count)
        text.append(contentsOf: bytes)
        return start..<Int32(text.count)
    }

    /// `keep` for a string.
    mutating func keep(_ string: String) -> Range<Int32> {
        var string = string
        return string.withUTF8 { keep(UnsafeRawBufferPointer($0)) }
    }

    public init(debugFile: String) {
        self.debugFile = debugFile
    }
}

/// A batch of stacks' answers as text output needs them (`BuildSymbolizer.symbolicateForText`):
/// each debug file's answers as `lookupForText` keeps them, and for each frame of each stack
/// where its answer is.
public struct StackTextAnswers: Sendable {
    public enum Place: Sendable, Hashable {
        /// No usable debug file answers the frame's UUID: the frame stays `image + offset`.
        case missingDebugFile
        /// `files[file].answers[slot]`.
        case answer(file: Int32, slot: Int32)
    }

    /// The answers of each debug file the stacks' frames were looked up in.
    public var files: [DirectAnswers] = []
    /// Per stack, per frame (innermost first), where its answer is.
    public var places: [[Place]]

    public init(places: [[Place]]) {
        self.places = places
    }
}
