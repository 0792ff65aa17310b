import Foundation
import SystemIO

/// The store's temporary names and their cleanup. A run writes `<name>.tmp-PID[-N]` files beside
/// what it places, `dsyms import` unpacks zips into `<root>/.import-PID/`, and a run fetching
/// from symbol servers downloads into `<root>/.fetch-PID/` (never into a build folder, where another
/// run would meet half a file); a run that ends
/// normally or by SIGINT, SIGTERM or SIGHUP removes its own. One killed harder (SIGKILL, a power
/// cut) leaves them: the next import removes those whose process is gone.
public enum StoreTemporaryFiles {
    /// `.tmp-PID`, put after the name of the file being replaced.
    public static func suffix(for pid: pid_t) -> String { ".tmp-\(pid)" }

    /// The staging folder of an import run: `<root>/.import-PID`.
    public static func stagingFolder(root: String, pid: pid_t) -> String {
        (root as NSString).appendingPathComponent(".import-\(pid)")
    }

    /// The download folder of a run fetching from symbol servers: `<root>/.fetch-PID`.
    public static func downloadFolder(root: String, pid: pid_t) -> String {
        (root as NSString).appendingPathComponent(".fetch-\(pid)")
    }

    /// Removes the temporary files and staging folders of processes that no longer run, in the root
    /// and in its build folders; returns what it removed.
    @discardableResult
    public static func removeStale(root: String) -> [String] {
        var removed: [String] = []
        let names = (try? FileManager.default.contentsOfDirectory(atPath: root)) ?? []
        for name in names {
            let path = (root as NSString).appendingPathComponent(name)
            if let pid = owner(name, marker: ".import-", atStart: true) ?? owner(name, marker: ".fetch-", atStart: true),
                !isRunning(pid)
            {
                if (try? FileManager.default.removeItem(atPath: path)) != nil { removed.append(path) }
                continue
            }
            if let pid = owner(name, marker: ".tmp-", atStart: false), !isRunning(pid) {
                if FileIO.remove(path) { removed.append(path) }
                continue
            }
            guard StoreBuild.number(fromVersion: name) != nil else { continue }
            for inner in (try? FileManager.default.contentsOfDirectory(atPath: path)) ?? [] {
                if let pid = owner(inner, marker: ".tmp-", atStart: false), !isRunning(pid) {
                    let innerPath = (path as NSString).appendingPathComponent(inner)
                    if FileIO.remove(innerPath) { removed.append(innerPath) }
                }
            }
        }
        return removed
    }

    /// The PID in `name` after `marker` (`.import-123`, `x.tmp-123`, `x.tmp-123-9`), if it has one.
    static func owner(_ name: String, marker: String, atStart: Bool) -> pid_t? {
        let range: Range<String.Index>?
        if atStart {
            range = name.hasPrefix(marker) ? name.startIndex..<name.index(name.startIndex, offsetBy: marker.count) : nil
        } else {
            range = name.range(of: marker, options: .backwards)
        }
        guard let range else { return nil }
        let digits = name[range.upperBound...].prefix { $0.isASCII && $0.isNumber }
        let rest = name[range.upperBound...].dropFirst(digits.count)
        guard !digits.isEmpty, rest.isEmpty || rest.first == "-", let pid = pid_t(digits), pid > 0 else { return nil }
        return pid
    }

    /// Whether a process with this PID exists (one of another user's counts: it may be writing).
    static func isRunning(_ pid: pid_t) -> Bool { Processes.isRunning(pid) }
}
