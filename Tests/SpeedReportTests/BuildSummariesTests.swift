import Foundation
import Testing

@testable import SpeedReport

/// The summaries file's reader and writer on their own: what a forged file is refused for, and
/// what `save` does while another run holds the lock or has rewritten the file.
@Suite struct BuildSummariesTests {
    let folder: URL
    var path: String { folder.appendingPathComponent("builds.json").path }

    init() throws {
        folder = FileManager.default.temporaryDirectory.appendingPathComponent("yui-summaries-unit-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
    }

    static func figures(_ build: Int, rows: Int = 10) -> BuildFigures {
        var figures = BuildFigures(build: build)
        figures.rows = rows
        figures.intervals["arrive_drawn"] = IntervalFigures(counts: [0, 0, 0, 0, 0, 0, 12, 3] + [Int](repeating: 0, count: 10), max: 60)
        return figures
    }

    /// A file of one build, with `figures` as the JSON object of that build.
    static func document(build: Int, _ edit: (inout [String: Any]) -> Void) throws -> Data {
        var object = try #require(try JSONSerialization.jsonObject(with: JSONEncoder().encode(figures(build))) as? [String: Any])
        edit(&object)
        return try JSONSerialization.data(withJSONObject: ["version": 1, "builds": [String(build): object]])
    }

    @Test(arguments: [
        ("counts[6] 2^63 − 1", "intervals.arrive_drawn.counts[6] is 9223372036854775807, not a count from 0 to 2^53"),
        ("counts[0] negative", "intervals.arrive_drawn.counts[0] is -1, not a count from 0 to 2^53"),
        ("17 counts", "intervals.arrive_drawn.counts has 17 counts, not 18"),
        ("rows 2^53 + 1", "rows is 9007199254740993, not a count from 0 to 2^53"),
        ("crashes negative", "crashes is -3, not a count from 0 to 2^53"),
        ("an interval name with ESC", #"intervals: 'arrive\u{1B}]0;x\u{7}' is not an interval name"#),
    ])
    func aForgedFigureIsRefusedNamingTheBuildAndTheField(forgery: String, message: String) throws {
        let data = try Self.document(build: 124) { object in
            var intervals = object["intervals"] as! [String: Any]
            var arrive = intervals["arrive_drawn"] as! [String: Any]
            var counts = arrive["counts"] as! [Int]
            switch forgery {
            case "counts[6] 2^63 − 1": counts[6] = Int.max
            case "counts[0] negative": counts[0] = -1
            case "17 counts": counts.removeLast()
            case "rows 2^53 + 1": object["rows"] = (1 << 53) + 1
            case "crashes negative": object["crashes"] = -3
            default:
                intervals["arrive\u{1B}]0;x\u{7}"] = intervals["arrive_drawn"]
                intervals["arrive_drawn"] = nil
            }
            arrive["counts"] = counts
            if intervals["arrive_drawn"] != nil { intervals["arrive_drawn"] = arrive }
            object["intervals"] = intervals
        }
        let error = try #require(throws: BuildSummaries.FileError.self) { try BuildSummaries.decode(data, path: "S") }
        #expect(error.description.hasPrefix("S: build summaries: build 124: \(message)"), "\(error)")
        #expect(!error.description.contains("\u{1B}"))
    }

    @Test func theLargestCountIsRead() throws {
        let data = try Self.document(build: 124) { object in object["rows"] = 1 << 53 }
        #expect(try BuildSummaries.decode(data, path: "S")[124]?.rows == 1 << 53)
    }

    /// Another run holds the lock: `save` waits, then gives up with an error naming the file, and
    /// the file is left as it was.
    @Test func aLockHeldTooLongIsAnErrorNamingTheFile() throws {
        defer { try? FileManager.default.removeItem(at: folder) }
        var summaries = try BuildSummaries(path: path)
        summaries.offer(Self.figures(121))
        try summaries.save()
        let before = try Data(contentsOf: URL(fileURLWithPath: path))

        let holder = open(path + ".lock", O_RDWR | O_CLOEXEC)
        try #require(holder >= 0)
        defer { close(holder) }
        #expect(flock(holder, LOCK_EX) == 0)
        summaries.offer(Self.figures(122))
        let started = ContinuousClock.now
        let error = try #require(throws: BuildSummaries.FileError.self) { try summaries.save(lockWait: .milliseconds(300)) }
        let waited = ContinuousClock.now - started
        #expect(waited >= .milliseconds(300) && waited < .seconds(10), "\(waited)")
        #expect(error.description.hasPrefix("\(path): cannot write the build summaries: \(path).lock: another run held the lock"), "\(error)")
        #expect(try Data(contentsOf: URL(fileURLWithPath: path)) == before)

        // Let go, and the same save goes through.
        #expect(flock(holder, LOCK_UN) == 0)
        try summaries.save(lockWait: .milliseconds(300))
        #expect(try BuildSummaries(path: path).builds.keys.sorted() == [121, 122])
    }

    /// The file became something else after this run read it (a user's edit gone wrong): the save,
    /// which re-reads it under the lock, refuses it and leaves it, where it used to overwrite it.
    @Test func aFileThatIsNoLongerASummariesFileIsNotOverwritten() throws {
        defer { try? FileManager.default.removeItem(at: folder) }
        var summaries = try BuildSummaries(path: path)
        summaries.offer(Self.figures(121))
        try Data("{not json".utf8).write(to: URL(fileURLWithPath: path))
        let error = try #require(throws: BuildSummaries.FileError.self) { try summaries.save() }
        #expect(error.description.hasPrefix("\(path): not a build summaries file"), "\(error)")
        #expect(try String(contentsOfFile: path, encoding: .utf8) == "{not json")
    }

    /// Saves merge: a build another run saved with more rows keeps that entry.
    @Test func saveKeepsWhatAnotherRunWroteWithMoreRows() throws {
        defer { try? FileManager.default.removeItem(at: folder) }
        var mine = try BuildSummaries(path: path)
        var theirs = try BuildSummaries(path: path)
        mine.offer(Self.figures(121, rows: 5))
        theirs.offer(Self.figures(121, rows: 50))
        theirs.offer(Self.figures(122))
        try theirs.save()
        try mine.save()
        let stored = try BuildSummaries(path: path).builds
        #expect(stored.keys.sorted() == [121, 122])
        #expect(stored[121]?.rows == 50)
    }
}
