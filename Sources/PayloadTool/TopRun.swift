import Foundation
import PayloadDecode
import StackSignature
import StackSymbolize

/// One run of `payload-tool top`: reads every input, symbolicates each hang and crash with its
/// build's debug files, and writes the ranking.
struct TopRun {
    let options: TopOptions

    func run(stdin: FileHandle, stdout: inout some TextOutputStream, stderr: inout some TextOutputStream) -> Int32 {
        var tally = WorstStacksTally()
        var expanders: [Int: StackExpander] = [:]
        var missingByBuild: [Int: Set<MissingDebugFile>] = [:]
        var failed = false
        let conversion = ConversionOptions(userID: options.userID)

        for path in options.inputs {
            let ok = RowSource.readRows(
                path: path, options: conversion, standardInput: stdin,
                report: { diagnostic in stderr.write("\(diagnostic.severity.rawValue): \(diagnostic)\n") },
                emit: { row in
                    if let build = options.build, row.app_build != build { return }
                    tally.noteBuild(row.app_build)
                    guard let kind = WorstStackKind(row: row) else { return }
                    let expander = expanders[row.app_build] ?? {
                        let made = makeExpander(build: row.app_build, stderr: &stderr)
                        expanders[row.app_build] = made
                        return made
                    }()
                    let stack = expander.expand(row.stack ?? [])
                    missingByBuild[row.app_build, default: []].formUnion(stack.missingDebugFiles)
                    let weight: Double
                    switch kind {
                    case .crash:
                        weight = options.crashWeight
                    case .hang:
                        if let seconds = row.value, seconds.isFinite, seconds >= 0 {
                            weight = seconds
                        } else {
                            weight = 0
                            stderr.write(
                                "warning: \(displayName(path)): row \(row.row_key): hang without a usable duration counts as 0 s\n")
                        }
                    }
                    tally.add(StackOccurrence(build: row.app_build, kind: kind, rowKey: row.row_key, weight: weight, stack: stack))
                })
            if !ok { failed = true }
        }

        for (build, missing) in missingByBuild.sorted(by: { $0.key > $1.key }) where !missing.isEmpty {
            let list = missing.sorted().map { "\($0.image ?? "?") \($0.uuid)" }.joined(separator: ", ")
            stderr.write(
                "note: build \(build): no debug file for \(missing.count) image\(missing.count == 1 ? "" : "s"), shown as image+0xOFFSET: \(list)\n")
        }

        var builds = tally.builds
        if let build = options.build {
            if builds.isEmpty { stderr.write("note: no rows of build \(build) in the inputs\n") }
            builds = [build]
        }
        switch options.output {
        case .text:
            stdout.write(WorstStacksReport.text(tally, builds: builds, count: options.count))
        case .json:
            stdout.write(WorstStacksReport.json(tally, builds: builds, count: options.count, crashWeight: options.crashWeight))
        case .folded:
            stdout.write(WorstStacksReport.folded(tally, builds: builds))
        }
        return failed ? PayloadTool.exitFailure : PayloadTool.exitSuccess
    }

    /// The expander for one build: its debug files, or none (with a warning) when the build's
    /// folder cannot be opened, so the ranking still comes out with `image+0xOFFSET` frames.
    private func makeExpander(build: Int, stderr: inout some TextOutputStream) -> StackExpander {
        let symbolizer: any FrameSymbolizing
        do {
            symbolizer = try TopDebugFiles.open(root: options.dsymsRoot, build: build)
        } catch {
            stderr.write("warning: build \(build): \(error); its frames stay image+0xOFFSET\n")
            symbolizer = NoDebugFiles()
        }
        return StackExpander(symbolizer: symbolizer, appImages: options.appImages)
    }

    private func displayName(_ path: String) -> String { path == "-" ? "<stdin>" : path }
}
