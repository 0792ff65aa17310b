import Foundation
import PayloadDecode
import SystemIO

/// The per-build summaries file (`~/.yui-perf-builds.json`, docs/report.md): every build's
/// figures as the report last saw them with the most rows, so a build stays comparable after its
/// rows are deleted at 90 days.
///
/// Any number of runs may share the file. It is only ever replaced whole (written beside it and
/// renamed, through a symbolic link to its target, keeping its mode), and merged under a lock: a
/// run keeps every build another run wrote, and a build's entry is replaced only by figures from
/// at least as many rows (a report on a short window or after retention never thins a summary).
public struct BuildSummaries: Sendable {
    public let path: String
    public private(set) var builds: [Int: BuildFigures] = [:]

    /// An error naming the file; the report goes on without summaries and leaves the file alone.
    public struct FileError: Error, CustomStringConvertible {
        public let description: String
    }

    private struct Document: Codable {
        var version: Int
        var builds: [String: BuildFigures]
    }

    /// The largest count the file may hold (rows, histogram counts, samples, crashes): 2^53, far
    /// past any real sum (a row's count is at most 2^31 − 1), and small enough that the sums the
    /// report makes of them (18 buckets, a merge) stay far from 2^63, where Swift traps.
    public static let largestCount = 1 << 53

    /// A larger file is not read: thousands of builds take a few megabytes.
    public static let largestFileBytes = 64 << 20

    /// How long `save` waits for another run's lock before it gives up (the report is printed anyway).
    public static let lockWait = Duration.seconds(30)

    /// Reads the file; a missing file is an empty set of summaries.
    public init(path: String) throws(FileError) {
        self.path = path
        builds = try Self.read(path, named: path) ?? [:]
    }

    /// Summaries already read, for `path` (nothing is read; the fuzz entry's way in).
    init(path: String, builds: [Int: BuildFigures]) {
        self.path = path
        self.builds = builds
    }

    /// The file's contents, `nil` when there is no file; `named` is the path messages show.
    private static func read(_ file: String, named path: String) throws(FileError) -> [Int: BuildFigures]? {
        let size: Int64
        switch FileIO.status(of: file) {
        case .success(let info): size = info.size
        case .failure(let failure) where failure.code == ENOENT: return nil
        case .failure(let failure): throw FileError(description: "\(path): cannot read the build summaries: \(failure.text)")
        }
        guard size <= largestFileBytes else {
            throw FileError(
                description: "\(path): not a build summaries file (\(size) bytes, more than \(largestFileBytes >> 20) MiB); it is left as it is")
        }
        let data: Data
        do {
            data = try Data(contentsOf: URL(fileURLWithPath: file))
        } catch {
            throw FileError(description: "\(path): cannot read the build summaries: \(error.localizedDescription)")
        }
        return try decode(data, path: path)
    }

    /// The summaries held in `data` (a file's contents), every count checked: a forged or damaged
    /// file is refused whole, naming the build and the field, rather than trapping the report on
    /// a sum past 2^63 or printing a name that carries terminal controls. `path` names the file.
    public static func decode(_ data: Data, path: String) throws(FileError) -> [Int: BuildFigures] {
        let document: Document
        do {
            document = try JSONDecoder().decode(Document.self, from: data)
        } catch {
            throw FileError(description: "\(path): not a build summaries file (\(InputText.escaped("\(error)"))); it is left as it is")
        }
        guard document.version == 1 else {
            throw FileError(description: "\(path): build summaries of version \(document.version), this tool reads version 1")
        }
        var builds: [Int: BuildFigures] = [:]
        for (key, figures) in document.builds {
            guard let build = Int(key), build == figures.build else {
                throw FileError(description: "\(path): build summaries: key \(InputText.quoted(key)) does not match its build \(figures.build)")
            }
            if let problem = figures.problem(largestCount: largestCount) {
                throw FileError(description: "\(path): build summaries: build \(build): \(problem); the file is left as it is")
            }
            builds[build] = figures
        }
        return builds
    }

    /// Keeps `figures` for its build when it covers at least as many rows as the stored entry.
    /// - Returns: whether the entry changed.
    @discardableResult
    public mutating func offer(_ figures: BuildFigures) -> Bool {
        if let stored = builds[figures.build], stored.rows > figures.rows || stored == figures { return false }
        builds[figures.build] = figures
        return true
    }

    /// Writes every summary, merged with what other runs wrote meanwhile.
    ///
    /// Takes an exclusive lock on `TARGET.lock` beside the file (through a symbolic link, beside
    /// its target), waiting at most `lockWait`; re-reads the file under the lock and merges; writes
    /// `.NAME.tmp-PID` beside it, flushes it, gives it the file's mode and renames it over the file;
    /// then lets the lock go. Without the lock, runs at once each wrote what they had read and the
    /// last rename won: five runs of one build each kept one to four of the five builds.
    ///
    /// - Parameter tracking: registers the temporary file for removal on SIGINT and SIGTERM.
    /// - Throws: `FileError` naming the file; the file is then left as it was.
    public func save(lockWait: Duration = lockWait, tracking: TemporaryFileTracking = .none) throws(FileError) {
        func failure(_ reason: String) -> FileError {
            FileError(description: "\(path): cannot write the build summaries: \(reason); it is left as it is")
        }
        let file: ReplacedFile
        do {
            // Refused before the lock: a read-only file gets no lock file beside it either.
            file = try ReplacedFile(path: path)
        } catch {
            throw failure(error.reason)
        }
        let lock: FileLock
        do {
            lock = try FileLock(exclusive: file.lockPath, mode: (file.existingMode ?? 0o666) & 0o666, wait: lockWait)
        } catch {
            throw failure(error.description)
        }
        defer { lock.release() }
        // Checked again under the lock: the file may have changed while this run waited.
        let now: ReplacedFile
        do {
            now = try ReplacedFile(path: path)
        } catch {
            throw failure(error.reason)
        }
        guard now.targetPath == file.targetPath else { throw failure("the link changed while this run waited for the lock") }
        var merged = builds
        // What another run wrote since this one read the file; a file that is no longer a
        // summaries file is left as it is (the error says so), not overwritten.
        for figures in try Self.read(file.targetPath, named: path)?.values ?? [:].values
        where merged[figures.build].map({ $0.rows < figures.rows }) ?? true {
            merged[figures.build] = figures
        }
        let document = Document(version: 1, builds: Dictionary(uniqueKeysWithValues: merged.map { (String($0.key), $0.value) }))
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.prettyPrinted, .sortedKeys]
        let bytes: [UInt8]
        do {
            bytes = [UInt8](try encoder.encode(document))
        } catch {
            throw failure("\(error)")
        }
        file.removeStaleTemporaryFiles()
        do {
            try file.replace(with: bytes, tracking: tracking)
        } catch {
            throw failure(error.reason)
        }
    }
}
