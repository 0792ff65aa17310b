import Foundation
import Synchronization
import SystemIO

/// Where indexes live: `<cache>/<UUID>-<size>-<mtime>.yuisym`. A changed debug file has another
/// size or mtime, so its stale index is simply never found again.
///
/// Any number of runs may share one folder, on one machine or over NFS (docs/scale.md):
/// - an index is only ever put in place whole, by a rename (`SymbolIndexBuilder`), so a reader
///   opens either nothing or a whole file, and a rename under an open index leaves it whole;
/// - one run builds a given index at a time, under `.locks/<index>.lock`; the others wait for it (at most
///   `lockWait`, then they answer from the debug file directly) and open what it built;
/// - a folder the run cannot write (read-only, no such folder and none can be made, a file system
///   without locks) means answers from the debug file directly, with one warning;
/// - temporary files are `<index>.tmp-<host>-<pid>-<n>`: removed on SIGINT/SIGTERM/SIGHUP, and
///   those of processes that no longer run (on this host; on another host, untouched for an hour)
///   by the first run that opens an index in the folder.
enum SymbolIndexCache {
    static func defaultFolder() -> String {
        if let folder = ProcessInfo.processInfo.environment["YUI_SYMBOL_CACHE"], !folder.isEmpty { return folder }
        let base =
            ProcessInfo.processInfo.environment["XDG_CACHE_HOME"].flatMap { $0.isEmpty ? nil : $0 }
            ?? HomeFolder.appending(".cache")
        return (base as NSString).appendingPathComponent("yui-perf/symbol-index")
    }

    /// How long a run waits for another that builds the same index before it answers directly:
    /// `$YUI_INDEX_LOCK_WAIT` seconds, else 10 minutes (the largest build measured took 10 s; a
    /// wait that long means a holder stuck on a hung mount, not a slow build).
    static var lockWait: Duration {
        if let text = ProcessInfo.processInfo.environment["YUI_INDEX_LOCK_WAIT"], let seconds = Double(text), seconds >= 0, seconds < 1e9 {
            return .milliseconds(Int64(seconds * 1000))
        }
        return .seconds(600)
    }

    static func path(folder: String, for info: DebugFileInfo) -> String? {
        guard case .success(let status) = FileIO.status(of: info.path, retryOnInterrupt: false),
            let uuid = info.uuids.first.flatMap(UUIDText.normalized)
        else { return nil }
        let name = "\(uuid)-\(status.size)-\(status.modifiedSeconds).\(status.modifiedNanoseconds).yuisym"
        return (folder as NSString).appendingPathComponent(name)
    }

    /// The lock file of the index at `path`: `<folder>/.locks/<index name>.lock`, apart so that a
    /// listing of the folder shows the indexes alone.
    static func lockPath(for path: String) -> String {
        let folder = (path as NSString).deletingLastPathComponent
        return ((folder as NSString).appendingPathComponent(".locks") as NSString).appendingPathComponent(
            (path as NSString).lastPathComponent + ".lock")
    }

    /// What `open` gives: the index, or why the debug file is to be answered directly.
    enum Opened {
        case index(SymbolIndex)
        /// The folder cannot hold the index (not writable, or another run held its lock too long):
        /// the reason, for the one warning.
        case direct(reason: String)
    }

    /// The index for `info`, built from `image()` and stored when absent.
    static func open(
        folder: String, for info: DebugFileInfo, image: () throws(SymbolizeError) -> DebugImage
    ) throws(SymbolizeError) -> Opened {
        guard let path = path(folder: folder, for: info) else {
            throw SymbolizeError.fileSystem(path: info.path, "cannot key a symbol index for this file")
        }
        removeStaleOnce(folder: folder)
        if let index = try? SymbolIndex(path: path) { return .index(index) }
        if let failure = FileIO.makeFolders(folder) {
            return .direct(reason: "\(folder): cannot create the symbol index folder (\(failure.text)); answering from the debug files directly")
        }
        let lockPath = self.lockPath(for: path)
        let lock: FileLock
        do throws(FileLock.Failure) {
            if let failure = FileIO.makeFolders((lockPath as NSString).deletingLastPathComponent) {
                throw .system(FileError(path: lockPath, action: "cannot create", errno: failure))
            }
            lock = try FileLock(exclusive: lockPath, mode: 0o666, wait: lockWait)
        } catch {
            switch error {
            case .timedOut:
                return .direct(
                    reason:
                        "\(lockPath): another run has held this lock for \(lockWait) (building the same symbol index); answering from the debug file directly"
                )
            case .system(let failure):
                return .direct(
                    reason: "\(folder): cannot write in the symbol index folder (\(failure.reason)); answering from the debug files directly")
            }
        }
        defer { withExtendedLifetime(lock) {} }
        // Whoever held the lock before may have built it meanwhile.
        if let index = try? SymbolIndex(path: path) { return .index(index) }
        do {
            try SymbolIndexBuilder.build(try image(), to: path)
        } catch {
            // The index could not be written (no space, a folder that became read-only): the debug
            // file itself is fine, so it answers directly. Errors about the debug file stay errors.
            if case .indexNotWritten(_, let reason) = error {
                return .direct(reason: "\(folder): \(reason); answering from the debug files directly")
            }
            throw error
        }
        return .index(try SymbolIndex(path: path))
    }

    // MARK: Temporary files

    /// This machine's name as it goes into temporary names: letters, digits, `.` and `_` (a `-`
    /// would blur the `<host>-<pid>` split, so it becomes `_`).
    static let hostName: String = {
        let name = Processes.hostName ?? "host"
        return String(
            String.UnicodeScalarView(
                name.unicodeScalars.map { scalar in
                    scalar.isASCII && (CharacterSet.alphanumerics.contains(scalar) || scalar == ".") ? scalar : "_"
                }))
    }()

    /// A fresh temporary name for the index at `path`.
    static func temporaryPath(for path: String) -> String {
        path + ".tmp-\(hostName)-\(Processes.currentID)-\(UInt64.random(in: 0...UInt64.max))"
    }

    /// Who wrote temporary file `name`: its host (nil in names of earlier versions,
    /// `<index>.tmp-<pid>-<n>`, written on this host) and PID; nil for any other name.
    static func temporaryOwner(_ name: String) -> (host: String?, pid: pid_t)? {
        guard let marker = name.range(of: ".yuisym.tmp-", options: .backwards) else { return nil }
        let parts = name[marker.upperBound...].split(separator: "-", omittingEmptySubsequences: false)
        guard parts.count >= 2, parts.last!.allSatisfy(\.isNumber) else { return nil }
        guard let pid = pid_t(parts[parts.count - 2]), pid > 0 else { return nil }
        let host = parts.count == 2 ? nil : parts[..<(parts.count - 2)].joined(separator: "-")
        return (host, pid)
    }

    /// An hour: a builder writes its temporary file in seconds, so one from another machine left
    /// that long is a dead run's.
    static let foreignTemporaryAge: TimeInterval = 3600

    private static let cleanedFolders = Mutex<Set<String>>([])

    private static func removeStaleOnce(folder: String) {
        guard cleanedFolders.withLock({ $0.insert(folder).inserted }) else { return }
        removeStaleTemporaryFiles(folder: folder)
    }

    /// Removes temporary index files whose writer is gone; returns their paths.
    @discardableResult
    static func removeStaleTemporaryFiles(folder: String) -> [String] {
        var removed: [String] = []
        for name in (try? FileManager.default.contentsOfDirectory(atPath: folder)) ?? [] {
            guard let owner = temporaryOwner(name) else { continue }
            let path = (folder as NSString).appendingPathComponent(name)
            let stale: Bool
            if owner.host == nil || owner.host == hostName {
                stale = !Processes.isRunning(owner.pid)
            } else {
                let modified = (try? FileManager.default.attributesOfItem(atPath: path)[.modificationDate] as? Date) ?? nil
                stale = modified.map { Date().timeIntervalSince($0) > foreignTemporaryAge } ?? false
            }
            if stale, FileIO.remove(path) { removed.append(path) }
        }
        return removed
    }
}
