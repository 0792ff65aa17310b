import StackSymbolize

/// What signatures need from symbolication. `BuildSymbolizer` is the real one; tests feed canned
/// frames through it so the signature rules can be checked without debug files.
public protocol FrameSymbolizing {
    /// Symbolicates one stack, innermost first; one answer per request, in order.
    func symbolicate(_ stack: [FrameRequest]) -> [SymbolicatedFrame]
    /// Symbolicates many stacks at once; the same answers as one by one. `BuildSymbolizer` looks up
    /// each debug file's distinct addresses in one batch.
    func symbolicate(stacks: [[FrameRequest]]) -> [[SymbolicatedFrame]]
    /// Whether the build's folder holds a debug file for this image UUID (canonical upper case).
    /// This is what makes a frame an app frame (docs/design.md, "Signatures").
    func hasDebugFile(uuid: String) -> Bool
    /// Whether the store knows this image as the app's (its UUID or its name): true or false, or
    /// nil when the store knows nothing and the shipped list of Apple's images decides.
    func appImage(uuid: String?, name: String?) -> Bool?
    /// Told before a batch of `frameCount` frames naming `uuids` is symbolicated, so the files it
    /// needs can start being read meanwhile (`BuildSymbolizer.prepareForBatch`).
    func prepareForBatch(uuids: Set<String>, frameCount: Int)
}

extension FrameSymbolizing {
    /// By default, one stack after the other.
    public func symbolicate(stacks: [[FrameRequest]]) -> [[SymbolicatedFrame]] { stacks.map(symbolicate) }

    /// By default nothing is read ahead.
    public func prepareForBatch(uuids: Set<String>, frameCount: Int) {}

    /// By default only a debug file for the UUID says so; nothing is known about names.
    public func appImage(uuid: String?, name: String?) -> Bool? {
        guard let uuid, hasDebugFile(uuid: uuid) else { return nil }
        return true
    }
}

/// A build without debug files: every frame stays `image+0xOFFSET` and no image counts as the
/// app's unless `--app-image` names it.
public struct NoDebugFiles: FrameSymbolizing {
    public init() {}

    public func symbolicate(_ stack: [FrameRequest]) -> [SymbolicatedFrame] {
        stack.map {
            SymbolicatedFrame(request: $0, status: .missingDebugFile, lookupAddress: nil, debugFile: nil, frames: [])
        }
    }

    public func hasDebugFile(uuid: String) -> Bool { false }
}

/// The real symbolizer: one build's debug files, matched by UUID.
extension BuildSymbolizer: FrameSymbolizing {}
