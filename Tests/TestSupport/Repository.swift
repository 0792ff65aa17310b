import Foundation

/// The repository's root and its folders the tests read. Test targets find files through these
/// instead of walking up from their own `#filePath`.
public enum Repository {
    /// The repository's root (this file is `Tests/TestSupport/Repository.swift`).
    public static let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent()

    /// `samples/`: the shipped payload samples, the report sample and its debug files.
    public static let samples = root.appendingPathComponent("samples")

    /// `dsyms-fixtures/` as checked in (see `dsymsFixtures` for the overridable one).
    public static let checkedInDsymsFixtures = root.appendingPathComponent("dsyms-fixtures")

    /// The debug-file fixtures: `YUI_DSYMS_FIXTURES` when set (e.g. a fixture checkout being
    /// rebuilt), else `dsyms-fixtures/`.
    public static var dsymsFixtures: URL {
        if let override = ProcessInfo.processInfo.environment["YUI_DSYMS_FIXTURES"] {
            return URL(fileURLWithPath: override)
        }
        return checkedInDsymsFixtures
    }

    /// `Tests/Fixtures/`: expected outputs and inputs made for the tests.
    public static let testFixtures = root.appendingPathComponent("Tests/Fixtures")

    /// `Tests/BadInputTests/Corpus/`: the bad-input corpus.
    public static let badInputCorpus = root.appendingPathComponent("Tests/BadInputTests/Corpus")
}
