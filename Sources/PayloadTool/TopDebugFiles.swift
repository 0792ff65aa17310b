import StackSignature
import StackSymbolize

/// Opens a build's debug files for `top`.
enum TopDebugFiles {
    /// The symbolizer of `build`'s folder (`--dsyms ROOT`, `YUI_DSYMS`, `~/.yui-dsyms`), and the
    /// files in it that looked like debug files but could not be read.
    ///
    /// - Throws: `SymbolizeError` when the folder is missing or holds no readable debug file.
    static func open(root: String?, build: Int, systemSymbols: [String] = []) throws -> (symbolizer: any FrameSymbolizing, problems: [any Error]) {
        let folder = try BuildSymbolizer.buildFolder(root: root, build: String(build))
        let symbolizer = try BuildSymbolizer(buildFolder: folder, indexFolder: nil, systemSymbols: systemSymbols)
        return (symbolizer, symbolizer.problems)
    }
}
