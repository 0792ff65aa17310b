import StackSignature
import StackSymbolize

/// Opens a build's debug files for `top` and `report`.
enum TopDebugFiles {
    /// The symbolizer of `build` in the store (`--dsyms ROOT`, `YUI_DSYMS`, `$HOME/.yui-dsyms`):
    /// the build's folder, then every other build by UUID, then `systemSymbols`; and the files that
    /// looked like debug files but could not be read. `hasFolder` is false when the build has no
    /// folder of its own (its frames are then found in other builds or not at all).
    ///
    /// With `indexFolder`, frames are answered from symbol indexes kept there (built on first use).
    /// With `fullNames` false, frames carry their simplified names and the stored one as
    /// `function` (JSON output prints full names; text and folded output only simplified ones).
    ///
    /// - Throws: `SymbolizeError` when the build is no folder name.
    static func open(
        store: DebugFileStore, build: Int, systemSymbols: [String] = [], indexFolder: String? = nil, fullNames: Bool = true
    ) throws -> (symbolizer: any FrameSymbolizing, problems: [any Error], hasFolder: Bool) {
        let symbolizer = try BuildSymbolizer(build: String(build), store: store, indexFolder: indexFolder, systemSymbols: systemSymbols)
        symbolizer.makesFullNames = fullNames
        let hasFolder = !symbolizer.debugFiles.isEmpty || !symbolizer.problems.isEmpty || store.hasBuildFolder(String(build))
        return (symbolizer, symbolizer.problems, hasFolder)
    }
}
