import StackSignature
import StackSymbolize

/// Opens a build's debug files for `top`.
enum TopDebugFiles {
    struct Unavailable: Error, CustomStringConvertible {
        var description: String { "symbolication is not built yet (StackSymbolize.BuildSymbolizer has not landed)" }
    }

    static func open(root: String?, build: Int) throws -> any FrameSymbolizing {
        // Replaced by `BuildSymbolizer(buildFolder: BuildSymbolizer.buildFolder(root:build:))` when it lands.
        throw Unavailable()
    }
}
