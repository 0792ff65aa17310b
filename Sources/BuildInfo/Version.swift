/// What `payload-tool --version` says: the release's version, and the checkout it was built from.
public enum BuildInfo {
    /// The release's version, the one place a release changes it (docs/command-line.md, "Versions").
    public static let release = "0.1.0"

    /// `git describe --tags --always --dirty` of the checkout this binary was built from
    /// (`36651ef`, `v0.1.0-3-g36651ef-dirty`), written by the GitDescribe plugin at build time;
    /// nil when it was built outside a git checkout.
    public static var gitDescription: String? { gitDescribe }
}
