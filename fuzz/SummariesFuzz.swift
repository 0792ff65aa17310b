// libFuzzer entry for the build summaries reader, compiled into the SpeedReport module by
// `fuzz/run`: whatever the bytes, `BuildSummaries.decode` refuses them with a `FileError` or gives
// figures that every output of the report can be made from without a trap (docs/report.md, "Build
// summaries"). Each build is reported against the one before it, as `report` does after the rows of
// both are gone, in text, JSON, the panel's lines and the page.
import Foundation

@_cdecl("LLVMFuzzerTestOneInput")
public func summariesFuzz(_ data: UnsafePointer<UInt8>, _ size: Int) -> CInt {
    let bytes = Data(bytes: data, count: size)
    guard let builds = try? BuildSummaries.decode(bytes, path: "fuzz-input") else { return 0 }
    // The newest 16 builds are plenty for the outputs; a file of thousands would only be slow.
    let figures = builds.values.sorted { $0.build < $1.build }.suffix(16)
    var summaries = BuildSummaries(path: "fuzz-input", builds: [:])
    var earlier: [BuildFigures] = []
    for current in figures {
        _ = summaries.offer(current)
        let previous = earlier.last { $0.hasEnoughData }
        let report = SpeedReport(
            current: current, previous: current.hasEnoughData ? previous : nil, history: Array(earlier.suffix(4)) + [current],
            days: 1, window: nil, coverage: "stored summary", budgets: .seed, worstStacks: [])
        _ = ReportText.render(report)
        _ = ReportJSON.render(report)
        _ = PanelLines.render(report)
        _ = ReportHTML.render(report)
        // Figures merge by adding (another hour, another input): the checked counts leave room.
        var merged = current
        if let previous { merged.merge(previous) }
        _ = merged.intervals.values.map { ($0.n, $0.p50, $0.p95) }
        earlier.append(current)
    }
    return 0
}
