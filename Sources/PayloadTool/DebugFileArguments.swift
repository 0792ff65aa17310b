/// The options that say where debug files are, declared once for `symbolicate`, `dsyms`, `top`
/// and `report`.
enum DebugFileArguments {
    static let dsyms = CommandOption(
        "--dsyms", "ROOT", parser: .text,
        help: ["Folder of per-build debug-file folders (default: $YUI_DSYMS,", "else ~/.yui-dsyms)."])
    /// `top` and `report` refuse an empty root rather than fall back to the default.
    static let dsymsNotEmpty = dsyms.parsed(by: .nonEmpty(.takesNonEmpty("a folder")))
    static let symbols = CommandOption(
        "--symbols", "DIR", parser: .text, repeatable: true,
        help: [
            "System images' symbol files (Xcode's iOS DeviceSupport/<version>/",
            "Symbols), searched by UUID for images without a debug file in the",
            "build's folder (repeatable; default: $YUI_SYSTEM_SYMBOLS, folders",
            "separated by ':', else <ROOT>/system when it exists).",
        ])
    static let appImage = CommandOption(
        "--app-image", "NAME", parser: .nonEmpty(.takesNonEmpty("an image name")), repeatable: true,
        help: [
            "Count frames of image NAME as app frames even where its name is",
            "one of Apple's system images (repeatable). Every other image",
            "is the app's, with or without a debug file.",
        ])
    static let crashWeight = CommandOption(
        "--crash-weight", "SECONDS", parser: .seconds, help: ["What one crash weighs (default: 1)."])
}
