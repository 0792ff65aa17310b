import Foundation

/// The user's home folder for every default path (`~/.yui-dsyms`, `~/.cache/yui-perf`,
/// `~/.yui-perf-builds.json`): `$HOME` first, then the password database.
///
/// Why not `NSHomeDirectory()` alone: on Linux it reads the password database, and containers and
/// CI runners often run under a user id with no entry there, or with `$HOME` pointed at a
/// writable folder that the database does not know; shells and every Unix tool honour `$HOME`.
public enum HomeFolder {
    public static var path: String {
        if let home = ProcessInfo.processInfo.environment["HOME"], !home.isEmpty { return home }
        return NSHomeDirectory()
    }

    /// `path` joined with `relative`.
    public static func appending(_ relative: String) -> String {
        (path as NSString).appendingPathComponent(relative)
    }
}
