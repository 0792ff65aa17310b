import StackSignature
import StackSymbolize

/// Opens a build's debug files for `top`.
enum TopDebugFiles {
    struct Unavailable: Error, CustomStringConvertible {
        var description: String { "symbolication is not built yet (StackSymbolize.BuildSymbolizer has not landed)" }
    }

    /// The symbolizer of `build`'s folder, and the files in it that could not be read.
    static func open(root: String?, build: Int) throws -> (symbolizer: any FrameSymbolizing, problems: [any Error]) {
        // Replaced by `BuildSymbolizer(buildFolder: BuildSymbolizer.buildFolder(root:build:))` when it lands.
        throw Unavailable()
    }
}
