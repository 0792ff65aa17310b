import SymbolNames

/// Answers read in place from one debug file's symbol index, for output written straight from the
/// index's bytes: simplified names and source paths as the index stores them, nothing demangled,
/// no `String` made (`symbolicate --object` text output; at a million distinct addresses, turning
/// every answer into `SymbolicatedFrame`s and demangling its names was four fifths of the run).
///
/// The frames and their order are the ones `BuildSymbolizer.lookup(addresses:uuid:offsets:)` gives
/// for the same file, each with its `simplifiedName`.
///
/// Sendable, checked by hand: several threads may use it once `readThroughMapping()` was called
/// (reading the mapping changes nothing in the index; each thread keeps its own `Cache`). Before
/// that, it reads the index's pages into buffers of its own, as a short run should, on one thread.
public struct IndexedFrames: @unchecked Sendable {
    public enum Status: Sendable {
        /// Frames from DWARF.
        case symbolicated
        /// The symbol table's nearest symbol.
        case symbolTable
        /// Nothing at the address.
        case notFound
    }

    /// One source frame: its bytes are valid only inside the visitor they are given to.
    public struct Frame {
        /// `Type.member`, as `SourceFrame.simplifiedName`.
        public var simplifiedName: UnsafeRawBufferPointer
        /// The full source path, as `SourceFrame.file`.
        public var file: UnsafeRawBufferPointer?
        public var line: Int?
        public var isInlined: Bool
        /// The name is the symbol table's (status `symbolTable`), not DWARF's.
        public var isFromSymbolTable: Bool
    }

    /// What one thread remembers between lookups (stacks repeat their hot addresses).
    public struct Cache: Sendable {
        fileprivate var places = SymbolIndex.PlaceCache()
        public init() {}
    }

    private let index: SymbolIndex
    /// The simplified name of a frame DWARF gave no name (`??`).
    private let unnamed: [UInt8]
    public let textBase: UInt64
    /// Path of the debug file the index was built from.
    public let debugFile: String

    init(index: SymbolIndex, debugFile: String) {
        self.index = index
        self.debugFile = debugFile
        textBase = index.textBase
        unnamed = Array(SymbolName.simplifiedName("??").utf8)
    }

    /// Reads the index through its mapping from now on: for a batch that reads much of it, and
    /// before it is used from several threads.
    public func readThroughMapping() { index.readThroughMapping() }

    /// Calls `visit` for each frame at `address` (in the debug file's address space), innermost
    /// first, with the outermost function's start (`SymbolicatedFrame.functionStart`); returns the
    /// answer's status. A status other than `notFound` with no frame visited answers nothing, as
    /// a `SymbolicatedFrame` without frames does.
    public func frames(at address: UInt64, cache: inout Cache, _ visit: (Frame, _ functionStart: UInt64?) -> Void) -> Status {
        let place = index.place(of: address, using: &cache.places)
        let status: Status
        switch place {
        case .location: status = .symbolicated
        case .symbol: status = .symbolTable
        case .nothing: return .notFound
        }
        unnamed.withUnsafeBytes { unnamed in
            index.visitFrames(at: place) { frame, start in
                visit(
                    Frame(
                        simplifiedName: frame.simplifiedName ?? unnamed, file: frame.file, line: frame.line.map { Int($0) },
                        isInlined: frame.isInlined, isFromSymbolTable: status == .symbolTable), start)
            }
        }
        return status
    }

    /// True when the index file changed after it was opened: what was read is not to be trusted.
    public var hasChanged: Bool { index.hasChanged }

    /// What `hasChanged` reports, as the error `lookup` throws.
    public var changedError: SymbolizeError { SymbolizeError.changedWhileRead(path: index.path) }
}
