import Foundation
import PayloadDecode
import RowStore
import SpeedReport
import StackSignature
import SystemIO

/// One run of `payload-tool report`: reads every row once into per-build, per-hour sums (and the
/// hangs and crashes, symbolicated, into per-hour tallies), cuts the window, picks the build and
/// the one it is compared with, and writes the report the way the options ask.
struct ReportRun {
    let options: ReportOptions

    func run(stdin: FileHandle, stdout: inout some TextOutputStream, stderr: inout some TextOutputStream) -> Int32 {
        var reading = ReportReading(options: options)
        var failed = false
        let allRead = readEveryInput(options.inputs, options: options.conversion, stdin: stdin, stderr: &stderr) { row, source, messages in
            reading.add(row, from: source, stderr: &messages)
        }
        if !allRead { failed = true }
        if let url = options.databaseURL, let user = options.conversion.userID {
            do {
                let database = try RowDatabase(url: url)
                // A bad row is an error, as a bad line of a row file is: named, passed over, exit 1.
                try database.forEachRowAsConnector(
                    userID: user,
                    skipped: { skipped in
                        stderr.write("error: --db: \(skipped)\n")
                        failed = true
                    }
                ) { row in reading.add(row, from: "--db", stderr: &stderr) }
            } catch {
                stderr.write("error: --db: \(error)\n")
                failed = true
            }
        }
        reading.flushStacks(stderr: &stderr)
        reading.ranking.reportMissingDebugFiles(stderr: &stderr)
        if reading.ranking.brokenDebugFiles > 0 { failed = true }
        if reading.duplicates > 0 {
            let rows = reading.duplicates == 1 ? "1 row" : "\(reading.duplicates) rows"
            stderr.write("note: \(rows) read more than once (same user and row key), counted once\n")
        }

        var summaries: BuildSummaries?
        do {
            summaries = try BuildSummaries(path: options.summariesPath)
        } catch {
            stderr.write("warning: \(error)\n")
        }
        guard let report = reading.report(summaries: &summaries, stderr: &stderr) else {
            stderr.write("note: no rows to report on\n")
            return failed ? PayloadTool.exitFailure : PayloadTool.exitSuccess
        }
        if let summaries {
            do {
                // The temporary file is removed if the run is interrupted while it is written.
                try summaries.save(
                    tracking: TemporaryFileTracking(register: { TemporaryFiles.register($0) }, unregister: { TemporaryFiles.unregister($0) }))
            } catch {
                stderr.write("warning: \(error)\n")
            }
        }
        if let path = options.htmlPath {
            if let problem = Self.write(ReportHTML.render(report), to: path) {
                stderr.write("error: --html: \(problem)\n")
                failed = true
            }
        }
        switch options.output {
        case .text: stdout.write(ReportText.render(report))
        case .json: stdout.write(ReportJSON.render(report))
        case .briefing: if let line = report.briefing { stdout.write(line + "\n") }
        case .panel: stdout.write(PanelLines.render(report))
        }
        return failed ? PayloadTool.exitFailure : PayloadTool.exitSuccess
    }
}

extension ReportRun {
    /// Writes the page beside `path` and renames it into place, so a failed run leaves nothing half-written.
    static func write(_ page: String, to path: String) -> String? {
        let file: AtomicOutputFile
        do {
            file = try AtomicOutputFile(path: path)
        } catch {
            return "\(error)"
        }
        if let problem = file.write(Array(page.utf8)) {
            file.discard()
            return problem
        }
        return file.commit()
    }
}

/// What `report` keeps while rows stream in: sums, never the rows.
struct ReportReading {
    let options: ReportOptions
    var tally = ReportTally()
    /// The symbolicated hangs and crashes per build and hour, so the worst stacks cover the window.
    var stacks: [HourOfBuild: WorstStacksTally] = [:]
    var ranking: TopRanking
    /// With `--html`: the hang stacks per build and hour, as one tree per signature.
    var flames: [HourOfBuild: [String: FlameTree]] = [:]
    /// (user, row key) of every row counted: a dump given twice, or a dump and the
    /// row file made from it, counts once, as the table stores it once.
    private var counted = CountedRows()
    private(set) var duplicates = 0

    struct HourOfBuild: Hashable {
        var build: Int
        var hour: Int64
    }

    init(options: ReportOptions) {
        self.options = options
        ranking = TopRanking(options: options.ranking)
    }

    mutating func add(_ row: Row, from source: String, stderr: inout some TextOutputStream) {
        guard counted.insert(row) else {
            duplicates += 1
            return
        }
        tally.add(row)
        guard WorstStackKind(row: row) != nil else { return }
        pendingStacks.append((row, source))
        if pendingStacks.count >= TopRanking.batchRows { flushStacks(stderr: &stderr) }
    }

    /// Hang and crash rows whose stacks are not yet symbolicated: a batch, as `top` keeps.
    private var pendingStacks: [(row: Row, source: String)] = []

    /// Symbolicates the kept rows' stacks in one batch and ranks them per build and hour.
    mutating func flushStacks(stderr: inout some TextOutputStream) {
        guard !pendingStacks.isEmpty else { return }
        var uuids = UUIDStrings()
        let ranked = pendingStacks.compactMap { RankedRow($0.row, source: $0.source, uuids: &uuids) }
        for (entry, found) in zip(pendingStacks, ranking.occurrences(of: ranked, stderr: &stderr)) {
            guard let occurrence = found else { continue }
            let row = entry.row
            let part = HourOfBuild(build: row.app_build, hour: ReportTally.hour(of: row))
            stacks[part, default: WorstStacksTally()].add(occurrence)
            let signature = occurrence.tallied.signature.text
            if occurrence.kind == .crash { tally.addCrashSignature(signature, of: row) }
            if options.htmlPath != nil, occurrence.kind == .hang {
                let frames = occurrence.stack.frames.reversed().lazy.map { frame in
                    (name: frame.name, location: frame.file.map { file in frame.line.map { "\(file):\($0)" } ?? file })
                }
                flames[part, default: [:]][signature, default: FlameTree(rootName: "build \(row.app_build)")].add(
                    frames, seconds: occurrence.weight)
            }
        }
        pendingStacks.removeAll(keepingCapacity: true)
    }

    /// Picks the build and the one before it, and offers every build's figures to the summaries.
    mutating func report(summaries: inout BuildSummaries?, stderr: inout some TextOutputStream) -> SpeedReport? {
        tally.finish()
        let builds = tally.builds
        let lastHour = (tally.newestPeriodEnd ?? 0) / 3600
        let firstHour = lastHour - Int64(options.days) * 24 + 1
        var known: [Int: BuildFigures] = summaries?.builds ?? [:]
        for build in builds {
            guard let all = tally.figures(build: build), all.hasEnoughData else { continue }
            if summaries?.offer(all) ?? false || known[build].map({ $0.rows <= all.rows }) ?? true { known[build] = all }
        }
        let inWindow = Dictionary(
            uniqueKeysWithValues: builds.compactMap { build in
                tally.figures(build: build, fromHour: firstHour).map { (build, $0) }
            })
        let chosen: Int
        if let build = options.build {
            chosen = build
        } else if let newest = inWindow.values.filter(\.hasEnoughData).map(\.build).max() ?? inWindow.keys.max() {
            chosen = newest
        } else {
            return nil
        }
        let current: BuildFigures
        let coverage: String
        var window: ClosedRange<Int64>? = firstHour * 3600...(lastHour * 3600 + 3599)
        if let figures = inWindow[chosen] {
            current = figures
            coverage = options.days == 1 ? "last 24 h" : "last \(options.days) days"
        } else if let figures = tally.figures(build: chosen) {
            current = figures
            coverage = "all its rows"
            window = nil
            stderr.write("note: build \(chosen) has no rows in the window; the report covers all its rows\n")
        } else if let figures = summaries?.builds[chosen] {
            current = figures
            coverage = "stored summary"
            window = nil
            stderr.write("note: build \(chosen) has no rows; the report shows its stored summary\n")
        } else {
            stderr.write("note: no rows of build \(chosen) in the inputs or the summaries\n")
            return nil
        }
        let earlier = known.values.filter { $0.build < chosen && $0.hasEnoughData }.sorted { $0.build < $1.build }
        let previous = current.hasEnoughData ? earlier.last : nil
        let history = current.hasEnoughData ? Array(earlier.suffix(4)) + [current] : [current]
        var worst = WorstStacksTally()
        for (part, hourTally) in stacks where part.build == chosen && (window == nil || part.hour >= firstHour) {
            worst.merge(hourTally)
        }
        var report = SpeedReport(
            current: current, previous: previous, history: history, days: options.days, window: window,
            coverage: coverage, budgets: options.budgets, worstStacks: Array(worst.ranked(build: chosen).prefix(3)))
        if options.htmlPath != nil {
            var all = FlameTree(rootName: "build \(chosen)")
            var bySignature: [String: FlameTree] = [:]
            for (part, trees) in flames where part.build == chosen && (window == nil || part.hour >= firstHour) {
                for (signature, tree) in trees {
                    all.merge(tree)
                    bySignature[signature, default: FlameTree(rootName: "build \(chosen)")].merge(tree)
                }
            }
            report.flames = ReportFlames(all: all, bySignature: bySignature)
        }
        return report
    }

}
