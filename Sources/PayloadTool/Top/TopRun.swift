import Foundation
import PayloadDecode
import StackSignature
import StackSymbolize
import Synchronization

/// One run of `payload-tool top`: reads every input, symbolicates each hang and crash with its
/// build's debug files, and writes the ranking.
struct TopRun {
    let options: TopOptions

    private static let lastRanking = Mutex<KeptRanking?>(nil)

    private struct KeptRanking: @unchecked Sendable {
        let ranking: TopRanking
    }

    func run(stdin: FileHandle, stdout: inout some TextOutputStream, stderr: inout some TextOutputStream) -> Int32 {
        var ranking = TopRanking(options: options)
        var failed = false
        var conversion = ConversionOptions(userID: options.userID)
        conversion.frameNames = ranking.frameNames
        // A bare call-stack tree names no build: `--build` gives it one.
        conversion.treeBuild = options.build

        let inputs = InputList.expand(options.inputs, fromLists: options.fromLists, standardInput: stdin)
        let allRead = readEveryInput(inputs, options: conversion, stdin: stdin, stderr: &stderr) { row, source, messages in
            ranking.add(row, from: source, stderr: &messages)
        }
        if !allRead { failed = true }
        if let url = options.databaseURL {
            do {
                // A bad row is an error, as a bad line of a row file is: named, passed over, exit 1.
                let builds = try TopDatabase.forEachDiagnosticRow(
                    url: url, options: options,
                    skipped: { skipped in
                        stderr.write("error: --db: \(skipped)\n")
                        failed = true
                    }
                ) { row in
                    ranking.add(row, from: "--db", stderr: &stderr)
                }
                for build in builds { ranking.noteBuild(build) }
            } catch {
                stderr.write("error: --db: \(error)\n")
                failed = true
            }
        }

        ranking.flush(stderr: &stderr, isLast: true)
        ranking.reportMissingDebugFiles(stderr: &stderr)
        if ranking.brokenDebugFiles > 0 { failed = true }
        if ranking.duplicates > 0 {
            let rows = ranking.duplicates == 1 ? "1 hang or crash row" : "\(ranking.duplicates) hang or crash rows"
            stderr.write("note: \(rows) read more than once (same user and row key), counted once\n")
        }
        var builds = ranking.tally.builds
        for note in ranking.apps.notes { stderr.write("note: \(note)\n") }
        if let conflict = ranking.apps.conflict {
            stderr.write("error: \(conflict)\n")
            return PayloadTool.exitFailure
        }
        if let build = options.build {
            if builds.isEmpty { stderr.write("note: no rows of build \(build) in the inputs\n") }
            builds = [build]
        }
        switch options.output {
        case .text:
            stdout.write(WorstStacksReport.text(ranking.tally, builds: builds, count: options.count))
        case .json:
            stdout.write(
                WorstStacksReport.json(ranking.tally, builds: builds, count: options.count, crashWeight: options.crashWeight))
        case .folded:
            stdout.write(WorstStacksReport.folded(ranking.tally, builds: builds))
        }
        // Kept rather than torn down: the process ends right after, and freeing every group, row
        // key and expanded stack exit drops anyway was a twentieth of a run (as `symbolicate` keeps
        // its last batch). At most one is kept, so tests in one process do not pile them up.
        Self.lastRanking.withLock { $0 = KeptRanking(ranking: ranking) }
        return failed ? PayloadTool.exitFailure : PayloadTool.exitSuccess
    }
}

/// What `top` has counted so far: the tally, and per build the debug files it opened and the UUIDs
/// it missed. Rows from files and from the database go through the same `add`.
struct TopRanking {
    let options: TopOptions
    private(set) var tally = WorstStacksTally()
    private var expanders: [Int: StackExpander] = [:]
    /// The names the crash reports read give their frames: what a frame no debug file answers is
    /// called (docs/crash-reports.md, "The report's own names").
    let frameNames = ReportFrameNames()
    /// The debug-file store every build's frames are looked up in (one UUID index per run).
    private let store: DebugFileStore
    private var missingByBuild: [Int: Set<MissingDebugFile>] = [:]
    /// Builds whose folder could not be opened: already warned about as a whole.
    private var buildsWithoutFolder: Set<Int> = []
    /// Why a build's debug file for a UUID could not be opened (corrupt DWARF, a cut file), so the
    /// note about missing debug files can say it instead of just "no debug file".
    private var openFailures: [Int: (String) -> String?] = [:]
    /// Debug files that looked like debug files but could not be read: reported as errors, exit 1.
    private(set) var brokenDebugFiles = 0
    /// The builds' symbolizers, asked at the end for their index-folder warnings.
    private var indexedSymbolizers: [BuildSymbolizer] = []
    /// (user, row key) of every hang and crash counted: a row read twice (a dump given twice, or
    /// a dump and the row file made from it) counts once, as the table stores it once.
    private var counted = CountedRows()
    private(set) var duplicates = 0
    /// The app the rows belong to: one, or `--bundle-id`'s.
    private(set) var apps: AppChoice

    /// Where UUIDs the store lacks are fetched from, shared by every build's symbolizer.
    private let symbolServers: SymbolServerFetcher?

    init(options: TopOptions) {
        store = DebugFileStore(root: options.dsymsRoot)
        symbolServers = options.symbolServers.map(SymbolServerFetcher.init)
        self.options = options
        apps = AppChoice(wanted: options.bundleID)
    }

    /// A build that has rows, ranked or not (metric rows only: "no hangs or crashes").
    mutating func noteBuild(_ build: Int) {
        if let chosen = options.build, build != chosen { return }
        tally.noteBuild(build)
    }

    mutating func add(_ row: Row, from source: String, stderr: inout some TextOutputStream) {
        guard apps.admits(row) else { return }
        if let build = options.build, row.app_build != build { return }
        tally.noteBuild(row.app_build)
        guard let kind = WorstStackKind(row: row) else { return }
        guard counted.insert(row) else {
            duplicates += 1
            return
        }
        // A stack an earlier batch symbolicated is tallied at once, batch skipped, when no row
        // waits before it (the order rows are tallied in picks the heaviest row key among ties).
        // A month of rows repeats the same stacks: batched too, `add` and the batch work under it
        // were 31% of `top`'s samples over rows of ten stacks (perf), against 19% now.
        if pending.isEmpty, let known = seenStacks[row.app_build]?[StackKey(row.stack ?? [])] {
            tally.add(
                occurrence(
                    build: row.app_build, kind: kind, rowKey: row.row_key, value: row.value, source: source,
                    phone: row.phoneName, cause: CrashCause(row: row), tallied: known, stderr: &stderr))
            return
        }
        guard let ranked = RankedRow(row, source: source, uuids: &uuids) else { return }
        pending.append(ranked)
        pendingFrames += ranked.stack.count
        if Self.batchIsFull(rows: pending.count, frames: pendingFrames) { flush(stderr: &stderr) }
    }

    /// Hang and crash rows not yet symbolicated: a batch, bounded so memory stays flat.
    private var pending: [RankedRow] = []
    /// The last batch's occurrences, kept as its rows are (`flush`).
    private var lastOccurrences: [StackOccurrence?] = []
    /// Each image UUID once across the kept stacks.
    private var uuids = UUIDStrings()
    /// The frames of `pending`.
    private var pendingFrames = 0
    /// Per build, the stacks symbolicated so far, so a later batch takes them as they are: a month
    /// of rows repeats the same stacks, and looking them up again in every batch made each batch's
    /// lookups come on top of the tally, `top`'s peak 1.23x at four times the rows (docs/history.md).
    private var seenStacks: [Int: [StackKey: TalliedStack]] = [:]
    private var seenStackCount = 0
    /// At most this many distinct stacks are kept for later batches (beyond it they are looked up
    /// again, as before), so the kept stacks cannot outgrow a batch.
    static let seenStacksKept = 65_536

    /// A batch ends at `symbolicate`'s bounds (`StackRun.batchRows`, `batchFrames`): counting rows
    /// only, a batch of five-frame rows held 163,840 frames, and `top`'s peak grew 1.23x from
    /// 20,000 rows (one batch of 100,000 frames) to 80,000 of the same stacks.
    static func batchIsFull(rows: Int, frames: Int) -> Bool {
        rows >= StackRun.batchRows || frames >= StackRun.batchFrames
    }

    /// Symbolicates the rows kept so far and adds them to the tally, in the order they came.
    /// With `isLast`, the rows stay (the run is about to end: see `TopRun`).
    mutating func flush(stderr: inout some TextOutputStream, isLast: Bool = false) {
        guard !pending.isEmpty else { return }
        let batch = occurrences(of: pending, keepingStacks: !isLast, stderr: &stderr)
        tally.reserve(batch.count)
        for occurrence in batch {
            if let occurrence { tally.add(occurrence) }
        }
        // The last batch's stacks stay with the rows, for the same reason.
        if isLast { lastOccurrences = batch }
        if !isLast { pending.removeAll(keepingCapacity: true) }
        pendingFrames = 0
    }

    /// Hang and crash rows symbolicated with their builds' debug files and weighed (docs/design.md,
    /// "Signatures"), `nil` for other rows: every build's stacks in one batch. `report` ranks these
    /// per hour; `top` adds them to its tally. `keepingStacks` false (the last batch) keeps no
    /// stacks for later batches, as there are none.
    mutating func occurrences(
        of rows: [RankedRow], keepingStacks: Bool = true, stderr: inout some TextOutputStream
    ) -> [StackOccurrence?] {
        // The stacks of each build, builds in the order their rows come.
        var positionsOfBuild: [Int: [Int]] = [:]
        var buildOrder: [Int] = []
        for position in rows.indices {
            let build = rows[position].build
            if positionsOfBuild[build] == nil { buildOrder.append(build) }
            positionsOfBuild[build, default: []].append(position)
        }
        var stacks = [TalliedStack?](repeating: nil, count: rows.count)
        for build in buildOrder {
            let expander = expanders[build] ?? makeExpander(build: build, stderr: &stderr)
            expanders[build] = expander
            // Stacks an earlier batch symbolicated are taken as they were; only the others are looked up.
            var positions: [Int] = []
            for position in positionsOfBuild[build]! {
                if let known = seenStacks[build]?[StackKey(rows[position].stack)] {
                    stacks[position] = known
                } else {
                    positions.append(position)
                }
            }
            guard !positions.isEmpty else { continue }
            let (tallied, slots) = expander.talliedDistinct(stacks: positions.map { rows[$0].stack })
            for stack in tallied where !stack.stack.missingDebugFiles.isEmpty {
                missingByBuild[build, default: []].formUnion(stack.stack.missingDebugFiles)
            }
            for (position, slot) in zip(positions, slots) {
                stacks[position] = tallied[slot]
                if keepingStacks, seenStackCount < Self.seenStacksKept,
                    seenStacks[build, default: [:]].updateValue(tallied[slot], forKey: StackKey(rows[position].stack)) == nil
                {
                    seenStackCount += 1
                }
            }
        }
        // Fields read in place: a copy of each row (five references) was 4% of `top`'s CPU.
        return rows.indices.map { position in
            guard let stack = stacks[position] else { return nil }
            return occurrence(
                build: rows[position].build, kind: rows[position].kind, rowKey: rows[position].rowKey, value: rows[position].value,
                source: rows[position].source, phone: rows[position].phone, cause: rows[position].cause, tallied: stack,
                stderr: &stderr)
        }
    }

    /// A row weighed: a hang by its duration, a crash by `--crash-weight`.
    private func occurrence(
        build: Int, kind: WorstStackKind, rowKey: String, value: Double?, source: String, phone: String, cause: CrashCause?,
        tallied: TalliedStack, stderr: inout some TextOutputStream
    ) -> StackOccurrence {
        let weight: Double
        switch kind {
        case .crash:
            weight = options.crashWeight
        case .hang:
            if let seconds = value, seconds.isFinite, seconds >= 0 {
                weight = seconds
            } else {
                weight = 0
                stderr.write("warning: \(source): row \(rowKey): hang without a usable duration counts as 0 s\n")
            }
        }
        return StackOccurrence(build: build, kind: kind, rowKey: rowKey, weight: weight, tallied: tallied, phone: phone, cause: cause)
    }

    /// One line per build naming the images whose frames stayed `image+0xOFFSET` (docs/design.md, "Symbolication":
    /// the tool says which UUID it missed).
    func reportMissingDebugFiles(stderr: inout some TextOutputStream) {
        // Said once per reason across builds: a read-only index folder is one warning, not one a build.
        var warned: Set<String> = []
        for symbolizer in indexedSymbolizers {
            for warning in symbolizer.takeWarnings() where warned.insert(warning).inserted { stderr.write("warning: \(warning)\n") }
        }
        for (build, missing) in missingByBuild.sorted(by: { $0.key > $1.key }) where !buildsWithoutFolder.contains(build) {
            let list = missing.sorted().map { "\($0.image ?? "?") \($0.uuid)" }.joined(separator: ", ")
            let images = missing.count == 1 ? "1 image" : "\(missing.count) images"
            stderr.write("note: build \(build): no debug file for \(images), shown as image+0xOFFSET: \(list)\n")
            for file in missing.sorted() {
                if let failure = openFailures[build]?(file.uuid) { stderr.write("warning: build \(build): \(failure)\n") }
            }
        }
    }

    /// The expander for one build: its debug files, or none (with a warning) when the build's
    /// folder cannot be opened, so the ranking still comes out with `image+0xOFFSET` frames.
    private mutating func makeExpander(build: Int, stderr: inout some TextOutputStream) -> StackExpander {
        let symbolizer: any FrameSymbolizing
        do {
            let opened = try TopDebugFiles.open(
                store: store, build: build, systemSymbols: options.systemSymbols, indexFolder: options.indexFolder,
                fullNames: options.output == .json)
            symbolizer = opened.symbolizer
            (opened.symbolizer as? BuildSymbolizer)?.symbolServers = symbolServers
            if !opened.hasFolder, store.isEmpty, symbolServers == nil {
                // An empty store: nothing to look up anywhere, as before there was a store.
                let folder = (store.root as NSString).appendingPathComponent(String(build))
                stderr.write("warning: build \(build): \(folder): no such build folder; its frames stay image+0xOFFSET\n")
                buildsWithoutFolder.insert(build)
            } else if !opened.hasFolder, symbolServers == nil {
                let folder = (store.root as NSString).appendingPathComponent(String(build))
                stderr.write("warning: build \(build): no folder \(folder); its frames are looked up by UUID in the store's other builds\n")
            }
            if let files = opened.symbolizer as? BuildSymbolizer {
                openFailures[build] = { uuid in files.openFailure(uuid: uuid).map(String.init(describing:)) }
                indexedSymbolizers.append(files)
            }
            // A broken debug file is an error (exit 1); the build's other files still name their frames.
            for problem in opened.problems {
                stderr.write("error: build \(build): \(problem)\n")
                brokenDebugFiles += 1
            }
        } catch {
            stderr.write("warning: build \(build): \(error); its frames stay image+0xOFFSET\n")
            buildsWithoutFolder.insert(build)
            symbolizer = NoDebugFiles()
        }
        return StackExpander(
            symbolizer: ReportNamedFrames(base: symbolizer, names: frameNames), appImages: options.appImages,
            systemImages: options.systemImages)
    }
}

/// What ranking needs of a hang or crash row: a whole row kept per batch entry was most of a
/// batch's memory.
struct RankedRow {
    var build: Int
    var kind: WorstStackKind
    var rowKey: String
    var value: Double?
    var stack: [StackFrame]
    var source: String
    /// `user/device model`, as the report counts phones.
    var phone: String
    var cause: CrashCause?

    /// Nil for a row `top` does not rank.
    init?(_ row: Row, source: String, uuids: inout UUIDStrings) {
        guard let kind = WorstStackKind(row: row) else { return nil }
        build = row.app_build
        self.kind = kind
        rowKey = row.row_key
        value = row.value
        stack = uuids.sharing(row.stack ?? [])
        self.source = source
        phone = row.phoneName
        cause = CrashCause(row: row)
    }
}
