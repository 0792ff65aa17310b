import Foundation
import TestSupport
import Testing

/// The build summaries file as users share it (docs/report.md, "Build summaries"): real
/// `payload-tool report` processes, run at once, through links, on files with their own modes,
/// and on files a forger wrote.
@Suite struct SummariesFileTests {
    /// One folder per test, with the report sample's rows split by build.
    struct Folder {
        let url: URL
        var path: String { url.path }

        init() throws {
            url = FileManager.default.temporaryDirectory.appendingPathComponent("yui-summaries-\(UUID().uuidString)")
            try FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
        }

        func remove() { try? FileManager.default.removeItem(at: url) }

        func path(_ name: String) -> String { url.appendingPathComponent(name).path }

        /// The sample's rows of one build (121 to 125 each have enough data), as a file of this folder.
        func rows(of build: Int) throws -> String {
            let path = path("rows-\(build).jsonl")
            if !FileManager.default.fileExists(atPath: path) {
                let lines = try String(contentsOfFile: ReportSample.rows, encoding: .utf8).split(separator: "\n")
                    .filter { $0.contains("\"app_build\":\(build),") }
                try (lines.joined(separator: "\n") + "\n").write(toFile: path, atomically: true, encoding: .utf8)
            }
            return path
        }

        /// Names in the folder that look like a summaries run's leftovers.
        func temporaryFiles(in folder: String? = nil) throws -> [String] {
            try FileManager.default.contentsOfDirectory(atPath: folder ?? path).filter { $0.contains(".tmp-") }
        }
    }

    static func report(_ summaries: String, rows: String, _ extra: [String] = []) throws -> (status: Int32, stdout: String, stderr: String) {
        try ToolBinary.run(["report", "--dsyms", ReportSample.dsyms, "--summaries", summaries] + extra + [rows])
    }

    /// The run's own warnings and errors: the lines of standard error but the loader's, which on
    /// some systems warns about the executable's fixed address (`direct reference to protected function`).
    static func messages(_ stderr: String) -> [Substring] {
        stderr.split(separator: "\n").filter { !$0.contains("direct reference to protected function") }
    }

    /// The builds a summaries file holds.
    static func builds(in path: String) throws -> [Int] {
        let object = try #require(try JSONSerialization.jsonObject(with: Data(contentsOf: URL(fileURLWithPath: path))) as? [String: Any])
        let builds = try #require(object["builds"] as? [String: Any])
        return builds.keys.compactMap { Int($0) }.sorted()
    }

    static func mode(of path: String) -> mode_t? {
        var info = stat()
        return lstat(path, &info) == 0 ? info.st_mode : nil
    }

    /// Five runs at once, each on one build's rows, into one new file: every build is in it
    /// afterwards, trial after trial. Without the lock each run wrote what it had read, and the
    /// last rename won: 1 to 4 builds were lost in every trial.
    @Test func runsAtOnceLoseNoBuild() throws {
        let folder = try Folder()
        defer { folder.remove() }
        let builds = [121, 122, 123, 124, 125]
        let inputs = try builds.map { try folder.rows(of: $0) }
        for trial in 1...8 {
            let summaries = folder.path("builds-\(trial).json")
            let results = try Self.concurrently(inputs.map { ["report", "--dsyms", ReportSample.dsyms, "--summaries", summaries, $0] })
            for result in results {
                #expect(result.status == 0, "trial \(trial): \(result.stderr)")
                #expect(Self.messages(result.stderr).isEmpty, "trial \(trial): \(result.stderr)")
            }
            #expect(try Self.builds(in: summaries) == builds, "trial \(trial)")
        }
        #expect(try folder.temporaryFiles().isEmpty)
    }

    /// The shipped sample's rows, reported six times into six new files: one file, byte for byte.
    /// Summed in the tally's hash order (which changes with each process), the rates' sums
    /// differed in their last digits: 5 distinct files in 6 runs.
    @Test func theSameRowsWriteTheSameFileOnEveryRun() throws {
        let folder = try Folder()
        defer { folder.remove() }
        var files: Set<Data> = []
        for run in 1...6 {
            let summaries = folder.path("builds-\(run).json")
            let result = try Self.report(summaries, rows: ReportSample.rows)
            #expect(result.status == 0, "run \(run): \(result.stderr)")
            files.insert(try Data(contentsOf: URL(fileURLWithPath: summaries)))
        }
        #expect(files.count == 1)
        #expect(try Self.builds(in: folder.path("builds-1.json")) == [121, 122, 123, 124, 125])
    }

    /// Runs the executable once per argument list, all started before any is waited for.
    static func concurrently(_ runs: [[String]]) throws -> [(status: Int32, stdout: String, stderr: String)] {
        let executable = try ToolBinary.executable()
        let scratch = FileManager.default.temporaryDirectory.appendingPathComponent("yui-concurrent-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: scratch, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: scratch) }
        var processes: [(Process, URL, URL)] = []
        for (index, arguments) in runs.enumerated() {
            let out = scratch.appendingPathComponent("\(index).out")
            let err = scratch.appendingPathComponent("\(index).err")
            try Data().write(to: out)
            try Data().write(to: err)
            let process = Process()
            process.executableURL = executable
            process.arguments = arguments
            process.standardInput = FileHandle.nullDevice
            process.standardOutput = try FileHandle(forWritingTo: out)
            process.standardError = try FileHandle(forWritingTo: err)
            processes.append((process, out, err))
        }
        for (process, _, _) in processes { try process.run() }
        return try processes.map { process, out, err in
            process.waitUntilExit()
            let status = process.terminationReason == .exit ? process.terminationStatus : 128 + process.terminationStatus
            return (
                status, String(decoding: try Data(contentsOf: out), as: UTF8.self),
                String(decoding: try Data(contentsOf: err), as: UTF8.self)
            )
        }
    }

    /// `--summaries LINK`: the link stays a link, its target gets the merged contents, and the lock
    /// and the temporary file live beside the target (a rename beside the link would replace it).
    @Test func aSymbolicLinkStaysALinkAndItsTargetIsUpdated() throws {
        let folder = try Folder()
        defer { folder.remove() }
        let shared = folder.path("shared")
        try FileManager.default.createDirectory(atPath: shared, withIntermediateDirectories: true)
        let target = shared + "/builds.json"
        #expect(try Self.report(target, rows: try folder.rows(of: 121)).status == 0)
        let link = folder.path("link.json")
        // Relative, as `ln -s shared/builds.json link.json` makes it: resolved from the link's folder.
        try FileManager.default.createSymbolicLink(atPath: link, withDestinationPath: "shared/builds.json")

        let run = try Self.report(link, rows: try folder.rows(of: 122))
        #expect(run.status == 0, "\(run.stderr)")
        #expect(Self.messages(run.stderr).isEmpty, "\(run.stderr)")
        #expect(Self.mode(of: link).map { $0 & S_IFMT } == S_IFLNK)
        #expect(try FileManager.default.destinationOfSymbolicLink(atPath: link) == "shared/builds.json")
        #expect(try Self.builds(in: target) == [121, 122])
        #expect(FileManager.default.fileExists(atPath: target + ".lock"))
        #expect(!FileManager.default.fileExists(atPath: link + ".lock"))
        #expect(try folder.temporaryFiles().isEmpty)
        #expect(try folder.temporaryFiles(in: shared).isEmpty)
    }

    /// The file keeps its mode: a private file stays private (the rename used to leave 0644).
    @Test(arguments: [0o600, 0o640] as [mode_t])
    func theFilesModeIsKept(mode: mode_t) throws {
        let folder = try Folder()
        defer { folder.remove() }
        let summaries = folder.path("builds.json")
        #expect(try Self.report(summaries, rows: try folder.rows(of: 121)).status == 0)
        #expect(chmod(summaries, mode) == 0)
        let run = try Self.report(summaries, rows: try folder.rows(of: 122))
        #expect(run.status == 0, "\(run.stderr)")
        #expect(Self.mode(of: summaries).map { $0 & 0o7777 } == mode)
        #expect(try Self.builds(in: summaries) == [121, 122])
    }

    /// A file without write permission for anyone is refused, also as root (whom `access(2)` and
    /// `rename(2)` let through): the report still comes out, the run says why the file was not
    /// written, and the file is left exactly as it was. So is a file in a folder the run may not
    /// write into (checked as `nobody` when the tests run as root).
    @Test func aFileItMayNotWriteIsRefusedAndLeftAsItIs() throws {
        let folder = try Folder()
        defer { folder.remove() }
        let summaries = folder.path("builds.json")
        #expect(try Self.report(summaries, rows: try folder.rows(of: 121)).status == 0)
        #expect(chmod(summaries, 0o444) == 0)
        let before = try Data(contentsOf: URL(fileURLWithPath: summaries))
        var info = stat()
        #expect(stat(summaries, &info) == 0)
        let inode = info.st_ino

        let run = try Self.report(summaries, rows: try folder.rows(of: 122))
        #expect(run.status == 0)
        #expect(run.stdout.hasPrefix("Yui speed, build 122 vs 121 "), "\(run.stdout)")
        #expect(run.stderr.contains("warning: \(summaries): cannot write the build summaries: the file is read-only"), "\(run.stderr)")
        #expect(try Data(contentsOf: URL(fileURLWithPath: summaries)) == before)
        #expect(stat(summaries, &info) == 0)
        #expect(info.st_ino == inode)
        #expect(info.st_mode & 0o7777 == 0o444)
        #expect(try folder.temporaryFiles().isEmpty)

        // A folder the run may not write into: a writable file in a root-owned 0755 folder, as nobody.
        guard getuid() == 0, FileManager.default.isExecutableFile(atPath: "/usr/bin/setpriv") else { return }
        let closed = folder.path("closed")
        try FileManager.default.createDirectory(atPath: closed, withIntermediateDirectories: true)
        let inClosed = closed + "/builds.json"
        try before.write(to: URL(fileURLWithPath: inClosed))
        #expect(chmod(inClosed, 0o666) == 0)
        #expect(chmod(closed, 0o755) == 0)
        #expect(chmod(folder.path, 0o755) == 0)
        let rows = try folder.rows(of: 122)
        #expect(chmod(rows, 0o644) == 0)
        let asNobody = try ToolBinary.run(
            [
                "--reuid=65534", "--regid=65534", "--clear-groups", "--", try ToolBinary.executable().path, "report", "--dsyms",
                ReportSample.dsyms, "--summaries", inClosed, rows,
            ], environment: ["HOME": closed], executable: URL(fileURLWithPath: "/usr/bin/setpriv"))
        #expect(asNobody.status == 0, "\(asNobody.stderr)")
        #expect(asNobody.stdout.hasPrefix("Yui speed, build 122 vs 121 "), "\(asNobody.stdout)")
        #expect(asNobody.stderr.contains("warning: \(inClosed): cannot write the build summaries"), "\(asNobody.stderr)")
        #expect(try Data(contentsOf: URL(fileURLWithPath: inClosed)) == before)
        #expect(try folder.temporaryFiles(in: closed).isEmpty)
    }

    /// Counts no reading can hold (2^63 − 1 in a histogram, the rows, the samples, the crashes):
    /// the report comes out and the file is named with the build, where a histogram count of
    /// 2^63 − 1 used to end the run with SIGILL (an overflowing sum).
    @Test func hugeCountsInTheFileGiveAReportNotATrap() throws {
        let folder = try Folder()
        defer { folder.remove() }
        let seed = folder.path("seed.json")
        #expect(try Self.report(seed, rows: ReportSample.rows).status == 0)
        let original = try #require(try JSONSerialization.jsonObject(with: Data(contentsOf: URL(fileURLWithPath: seed))) as? [String: Any])
        let huge = Int.max
        let forgeries: [(String, (inout [String: Any]) -> Void)] = [
            (
                "intervals.arrive_drawn.counts[6]",
                { figures in
                    var intervals = figures["intervals"] as! [String: Any]
                    var arrive = intervals["arrive_drawn"] as! [String: Any]
                    var counts = arrive["counts"] as! [Int]
                    counts[6] = huge
                    counts[9] = huge
                    arrive["counts"] = counts
                    intervals["arrive_drawn"] = arrive
                    figures["intervals"] = intervals
                }
            ),
            ("rows", { $0["rows"] = huge }),
            ("memorySamples", { $0["memorySamples"] = huge }),
            ("crashes", { $0["crashes"] = huge }),
        ]
        for (field, forge) in forgeries {
            var document = original
            var builds = try #require(document["builds"] as? [String: Any])
            var figures = try #require(builds["124"] as? [String: Any])
            forge(&figures)
            builds["124"] = figures
            document["builds"] = builds
            let summaries = folder.path("forged.json")
            let bytes = try JSONSerialization.data(withJSONObject: document)
            try bytes.write(to: URL(fileURLWithPath: summaries))
            // Build 125's rows alone: build 124 comes from the file, as after the 90 days.
            for mode in [[], ["--json"], ["--yl"], ["--briefing"], ["--build", "124"]] {
                let run = try Self.report(summaries, rows: try folder.rows(of: 125), mode)
                #expect(run.status == 0, "\(field) \(mode): status \(run.status), \(run.stderr)")
                #expect(run.stderr.contains("warning: \(summaries): build summaries: build 124: \(field)"), "\(field): \(run.stderr)")
                // The file is refused whole, so build 124 is not known at all to `--build 124`.
                if mode == ["--build", "124"] {
                    #expect(run.stderr.contains("note: no rows of build 124 in the inputs or the summaries"), "\(run.stderr)")
                } else if mode != ["--briefing"] {
                    #expect(run.stdout.contains(mode == ["--json"] ? "\"build\" : 125" : "build 125"), "\(field) \(mode): \(run.stdout)")
                }
            }
            #expect(try Data(contentsOf: URL(fileURLWithPath: summaries)) == bytes, "\(field): the file was changed")
        }
    }

    /// A temporary file a killed run left beside the file (`.builds.json.tmp-PID`, its process
    /// gone) is removed by the next run that writes the file; one of a live process is not.
    @Test func aDeadRunsTemporaryFileIsRemoved() throws {
        let folder = try Folder()
        defer { folder.remove() }
        let summaries = folder.path("builds.json")
        let gone = Process()
        gone.executableURL = URL(fileURLWithPath: "/bin/true")
        try gone.run()
        gone.waitUntilExit()
        let stale = folder.path(".builds.json.tmp-\(gone.processIdentifier)")
        let live = folder.path(".builds.json.tmp-1")
        try Data("{half a file".utf8).write(to: URL(fileURLWithPath: stale))
        try Data("{another run".utf8).write(to: URL(fileURLWithPath: live))
        let run = try Self.report(summaries, rows: try folder.rows(of: 121))
        #expect(run.status == 0, "\(run.stderr)")
        #expect(try Self.builds(in: summaries) == [121])
        #expect(!FileManager.default.fileExists(atPath: stale))
        #expect(FileManager.default.fileExists(atPath: live))
    }
}
