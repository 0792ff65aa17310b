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
        var conversion = options.conversion
        conversion.frameNames = reading.ranking.frameNames
        let inputs = InputList.expand(options.inputs, fromLists: options.fromLists, standardInput: stdin)
        let allRead = readEveryInput(inputs, options: conversion, stdin: stdin, stderr: &stderr) { row, source, messages in
            reading.add(row, from: source, stderr: &messages)
        }
        if !allRead { failed = true }
        var database: ReportDatabase?
        if let url = options.databaseURL, let user = options.conversion.userID {
            do {
                let rows = try ReportDatabase(url: url, userID: user)
                database = rows
                try rows.readWindow(days: options.days, newestElsewhere: reading.tally.newestPeriodEnd) { row in
                    reading.add(row, from: "--db", stderr: &stderr)
                }
            } catch {
                database?.takeMessages().forEach { stderr.write($0) }
                stderr.write("error: --db: \(error)\n")
                failed = true
                database = nil
            }
            database?.takeMessages().forEach { stderr.write($0) }
        }
        for note in reading.apps.notes { stderr.write("note: \(note)\n") }
        if let conflict = reading.apps.conflict {
            stderr.write("error: \(conflict)\n")
            return PayloadTool.exitFailure
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
            summaries = try BuildSummaries(
                path: options.summariesPath ?? ReportOptions.defaultSummariesPath(bundleID: reading.apps.bundleID))
        } catch {
            stderr.write("warning: \(error)\n")
        }
        let made = reading.report(summaries: &summaries, more: database, stderr: &stderr)
        database?.takeMessages().forEach { stderr.write($0) }
        if database?.failed == true { failed = true }
        guard let report = made else {
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
    var tally: ReportTally
    /// The symbolicated hangs and crashes per build and hour, so the worst stacks cover the window.
    var stacks: [HourOfBuild: WorstStacksTally] = [:]
    var ranking: TopRanking
    /// With `--html`: the hang stacks per build and hour, as one tree per signature.
    var flames: [HourOfBuild: [String: FlameTree]] = [:]
    /// (user, row key) of every row counted: a dump given twice, or a dump and the
    /// row file made from it, counts once, as the table stores it once.
    private var counted = CountedRows()
    private(set) var duplicates = 0
    /// The app the rows belong to: one, or `--bundle-id`'s.
    private(set) var apps: AppChoice

    struct HourOfBuild: Hashable {
        var build: Int
        var hour: Int64
    }

    init(options: ReportOptions) {
        self.options = options
        tally = ReportTally(keepsBreakdowns: options.htmlPath != nil)
        ranking = TopRanking(options: options.ranking)
        apps = AppChoice(wanted: options.bundleID)
    }

    mutating func add(_ row: Row, from source: String, stderr: inout some TextOutputStream) {
        guard apps.admits(row) else { return }
        guard counted.insert(row) else {
            duplicates += 1
            return
        }
        tally.add(row)
        guard WorstStackKind(row: row) != nil else { return }
        pendingStacks.append((row, source))
        pendingFrames += row.stack?.count ?? 0
        if TopRanking.batchIsFull(rows: pendingStacks.count, frames: pendingFrames) { flushStacks(stderr: &stderr) }
    }

    /// Hang and crash rows whose stacks are not yet symbolicated: a batch, as `top` keeps.
    private var pendingStacks: [(row: Row, source: String)] = []
    private var pendingFrames = 0

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
        pendingFrames = 0
    }

    /// The first hour (since 1970) of the window of `days` days that ends with the hour of
    /// `newestPeriodEnd` (seconds since 1970).
    static func firstHour(newestPeriodEnd: Int64, days: Int) -> Int64 {
        newestPeriodEnd / 3600 - Int64(days) * 24 + 1
    }

    /// Picks the build and the one before it, and offers the figures of every build read whole to
    /// the summaries. With `more` (`--db`), the rows given so far are the window's (and the files'):
    /// the rest of each build the report needs whole is read from it first (`readMoreRows`).
    mutating func report(
        summaries: inout BuildSummaries?, more: (any ReportMoreRows)? = nil, stderr: inout some TextOutputStream
    ) -> SpeedReport? {
        let lastHour = (tally.newestPeriodEnd ?? 0) / 3600
        let firstHour = Self.firstHour(newestPeriodEnd: tally.newestPeriodEnd ?? 0, days: options.days)
        var wholeBuilds: Set<Int>?
        if let more {
            wholeBuilds = readMoreRows(from: more, firstHour: firstHour, summaries: summaries, stderr: &stderr)
        }
        tally.finish()
        let builds = tally.builds
        var known: [Int: BuildFigures] = summaries?.builds ?? [:]
        for build in builds where wholeBuilds?.contains(build) ?? true {
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
        let fromHour = window == nil ? nil : firstHour
        // Hour by hour: merged in the table's hash order, a signature whose heaviest rows tie
        // across hours kept another hour's stack (its file and line on the page) from run to run.
        for hourTally in Self.hours(of: stacks, build: chosen, fromHour: fromHour) {
            worst.merge(hourTally)
        }
        var report = SpeedReport(
            current: current, previous: previous, history: history, days: options.days, window: window,
            coverage: coverage, budgets: options.budgets, worstStacks: worst.ranked(build: chosen, limit: 3),
            appName: options.appName ?? apps.appName ?? SpeedReport.defaultAppName, bundleID: apps.bundleID,
            phones: previous.map { (phones(of: current, fromHour: fromHour), phones(of: $0, fromHour: nil)) },
            minConfidence: options.minConfidence)
        if coverage != "stored summary" { report.crashCauses = tally.crashCauses(build: chosen, fromHour: fromHour) }
        if options.htmlPath != nil {
            var all = FlameTree(rootName: "build \(chosen)")
            var bySignature: [String: FlameTree] = [:]
            // Hour by hour, each hour's signatures in order: merged in the tables' hash order, the
            // page's frames, their order and the file and line each keeps changed from run to run.
            for trees in Self.hours(of: flames, build: chosen, fromHour: fromHour) {
                for (signature, tree) in trees.sorted(by: { $0.key < $1.key }) {
                    all.merge(tree)
                    bySignature[signature, default: FlameTree(rootName: "build \(chosen)")].merge(tree)
                }
            }
            report.flames = ReportFlames(all: all, bySignature: bySignature)
            report.breakdown = tally.breakdown(build: chosen, fromHour: fromHour)
        }
        return report
    }

    /// A build's values of a table by hour, from `firstHour` on (every hour when `nil`), earliest first.
    private static func hours<Value>(of table: [HourOfBuild: Value], build: Int, fromHour firstHour: Int64?) -> [Value] {
        table.filter { $0.key.build == build && $0.key.hour >= (firstHour ?? Int64.min) }.sorted { $0.key.hour < $1.key.hour }.map(\.value)
    }

    /// A build's figures phone by phone for `RegressionConfidence`, when they are the rows' (from
    /// `firstHour` on); a stored summary, which keeps no phones, stays whole.
    private func phones(of figures: BuildFigures, fromHour firstHour: Int64?) -> RegressionConfidence.Phones {
        let byPhone = tally.figuresByPhone(build: figures.build, fromHour: firstHour)
        guard byPhone.reduce(0, { $0 + $1.rows }) == figures.rows, figures.rows > 0 else { return .fixed(figures) }
        return .byPhone(byPhone)
    }

    /// Reads from `more` the rest of the builds the report needs whole: the reported build when it
    /// has no row in the window, and the builds before it, newest first, down to the first with
    /// enough data (the fourth, when the output draws the last five builds), as `report` then picks
    /// them. Enough data is a matter of sample counts and foreground time, which `ReportTally` sums
    /// as rows come, so the choice is made before `finish()`.
    /// - Returns: the builds read whole.
    private mutating func readMoreRows(
        from more: any ReportMoreRows, firstHour: Int64, summaries: BuildSummaries?, stderr: inout some TextOutputStream
    ) -> Set<Int> {
        var whole: Set<Int> = []
        func readWhole(_ build: Int) {
            guard whole.insert(build).inserted else { return }
            more.readRest(of: build) { row in add(row, from: "--db", stderr: &stderr) }
            flushStacks(stderr: &stderr)
        }
        let inWindow = tally.builds.filter { tally.figures(build: $0, fromHour: firstHour) != nil }
        let enoughInWindow = inWindow.filter { tally.figures(build: $0, fromHour: firstHour)?.hasEnoughData ?? false }
        guard let chosen = options.build ?? enoughInWindow.max() ?? inWindow.max() else { return whole }
        let current: BuildFigures?
        if inWindow.contains(chosen) {
            current = tally.figures(build: chosen, fromHour: firstHour)
        } else {
            readWhole(chosen)
            current = tally.figures(build: chosen) ?? summaries?.builds[chosen]
        }
        guard current?.hasEnoughData ?? false else { return whole }
        // The text and the briefing compare with one build; JSON, the panel lines and the page
        // also show the four before it.
        let drawsHistory = options.htmlPath != nil || options.output == .json || options.output == .panel
        let wanted = drawsHistory ? 4 : 1
        var found = 0
        var below = chosen
        while found < wanted {
            let candidates = [
                more.newestBuild(below: below), tally.builds.filter { $0 < below }.max(),
                summaries?.builds.keys.filter { $0 < below }.max(),
            ]
            guard let build = candidates.compactMap({ $0 }).max() else { break }
            readWhole(build)
            // As `report` decides: the summary when it covers more rows than the build's rows here.
            let all = tally.figures(build: build).flatMap { $0.hasEnoughData ? $0 : nil }
            let summary = summaries?.builds[build]
            let figures = all.map { all in summary.map { $0.rows > all.rows ? $0 : all } ?? all } ?? summary
            if figures?.hasEnoughData ?? false { found += 1 }
            below = build
        }
        return whole
    }
}
