import Foundation

/// The per-build summaries file (`~/.yui-perf-builds.json`, docs/report.md): every build's
/// figures as the report last saw them with the most rows, so a build stays comparable after its
/// rows are deleted at 90 days.
///
/// The file is only ever replaced whole (written beside it and renamed), and merged: a run keeps
/// every build it did not see, and a build's entry is replaced only by figures from at least as
/// many rows (a report on a short window or after retention never thins a summary).
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

    /// Reads the file; a missing file is an empty set of summaries.
    public init(path: String) throws(FileError) {
        self.path = path
        guard FileManager.default.fileExists(atPath: path) else { return }
        let data: Data
        do {
            data = try Data(contentsOf: URL(fileURLWithPath: path))
        } catch {
            throw FileError(description: "\(path): cannot read the build summaries: \(error.localizedDescription)")
        }
        do {
            let document = try JSONDecoder().decode(Document.self, from: data)
            guard document.version == 1 else {
                throw FileError(description: "\(path): build summaries of version \(document.version), this tool reads version 1")
            }
            for (key, figures) in document.builds {
                guard let build = Int(key), build == figures.build else {
                    throw FileError(description: "\(path): build summaries: key \(key) does not match its build \(figures.build)")
                }
                builds[build] = figures
            }
        } catch let error as FileError {
            throw error
        } catch {
            throw FileError(description: "\(path): not a build summaries file (\(error)); it is left as it is")
        }
    }

    /// Keeps `figures` for its build when it covers at least as many rows as the stored entry.
    /// - Returns: whether the entry changed.
    @discardableResult
    public mutating func offer(_ figures: BuildFigures) -> Bool {
        if let stored = builds[figures.build], stored.rows > figures.rows || stored == figures { return false }
        builds[figures.build] = figures
        return true
    }

    /// Writes every summary: re-reads the file first and merges with what another run may have
    /// written meanwhile, then replaces it atomically.
    public func save() throws(FileError) {
        var merged = self
        if let onDisk = try? BuildSummaries(path: path) {
            for figures in onDisk.builds.values where merged.builds[figures.build].map({ $0.rows < figures.rows }) ?? true {
                merged.builds[figures.build] = figures
            }
        }
        let document = Document(version: 1, builds: Dictionary(uniqueKeysWithValues: merged.builds.map { (String($0.key), $0.value) }))
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.prettyPrinted, .sortedKeys]
        do {
            let data = try encoder.encode(document)
            try data.write(to: URL(fileURLWithPath: path), options: .atomic)
        } catch {
            throw FileError(description: "\(path): cannot write the build summaries: \(error.localizedDescription)")
        }
    }
}
