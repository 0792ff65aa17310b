/// The options that say where debug files are, declared once for `symbolicate`, `dsyms`, `top`
/// and `report`.
enum DebugFileArguments {
    static let index = CommandFlag(
        "--index",
        help: [
            "Answer from on-disk symbol indexes, built on first use of each debug",
            "file (in $YUI_SYMBOL_CACHE, else ~/.cache/yui-perf/symbol-index).",
        ])
    static let indexFolder = CommandOption(
        "--index-folder", "DIR", parser: .text, help: ["As --index, keeping the indexes in DIR."])
    static let dsyms = CommandOption(
        "--dsyms", "ROOT", parser: .text,
        help: ["Folder of per-build debug-file folders (default: $YUI_DSYMS,", "else ~/.yui-dsyms)."])
    /// `top` and `report` refuse an empty root rather than fall back to the default.
    static let dsymsNotEmpty = dsyms.parsed(by: .nonEmpty(.takesNonEmpty("a folder")))
    static let symbols = CommandOption(
        "--symbols", "DIR", parser: .text, repeatable: true,
        help: [
            "System images' symbol files (Xcode's iOS DeviceSupport/VERSION/",
            "Symbols), searched by UUID for images without a debug file in the",
            "build's folder (repeatable; default: $YUI_SYSTEM_SYMBOLS, folders",
            "separated by ':', else ROOT/system when it exists).",
        ])
    static let appImage = CommandOption(
        "--app-image", "NAME", parser: .nonEmpty(.takesNonEmpty("an image name")), repeatable: true,
        help: [
            "Count frames of image NAME as app frames, whatever the store and",
            "the list of Apple's images say (repeatable).",
        ])
    static let systemImage = CommandOption(
        "--system-image", "NAME", parser: .nonEmpty(.takesNonEmpty("an image name")), repeatable: true,
        help: [
            "Count frames of image NAME as Apple's (repeatable). Without either",
            "option: an image the store knows (an imported file's UUID or name)",
            "is the app's, others are Apple's; with an empty store, images not",
            "in the shipped list of Apple's images are the app's.",
        ])
    static let crashWeight = CommandOption(
        "--crash-weight", "SECONDS", parser: .seconds, help: ["What one crash weighs (default: 1)."])
}
