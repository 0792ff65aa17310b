import Foundation
import TestSupport
import Testing

/// How sure each WORSE is, as the command shows it (docs/report.md, "Confidence"), on the shipped
/// report sample: build 125 against 124, three phones each, `arrive_drawn` worse.
@Suite struct ReportConfidence {
    /// JSON carries each worse item's confidence, the same in every run (each run is its own
    /// process, so its own hashing seed: nothing may depend on a dictionary's order).
    @Test func jsonCarriesTheConfidenceAndEveryRunGivesTheSame() throws {
        let sample = try ReportSample()
        defer { sample.remove() }
        var outputs: [String] = []
        for _ in 0..<3 {
            try? FileManager.default.removeItem(atPath: sample.summaries)
            let run = sample.run(["--json"])
            #expect(run.status == 0, "\(run.stderr)")
            outputs.append(run.stdout)
        }
        #expect(Set(outputs).count == 1)
        let document = try #require(try JSONSerialization.jsonObject(with: Data(outputs[0].utf8)) as? [String: Any])
        let worse = try #require(document["worse"] as? [[String: Any]])
        #expect(worse.map { $0["what"] as? String } == ["interval:arrive_drawn"])
        // Three phones a build: a build's resample is empty e^-3 of the time, so about 0.90 is
        // as sure as three phones can make anything.
        let confidence = try #require(worse.first?["confidence"] as? Double)
        #expect(confidence >= 0.88 && confidence <= 0.92, "\(confidence)")
        #expect(document["min_confidence"] as? Double == 0)
    }

    /// `--min-confidence 0.9` keeps the sample's arrive_drawn line; the text then shows each item's
    /// confidence. Without the option, the text is the seed's (ReportGolden).
    @Test func atNinetyTheSamplesLineIsKept() throws {
        let sample = try ReportSample()
        defer { sample.remove() }
        let briefing = sample.run(["--briefing", "--min-confidence", "0.9"])
        #expect(briefing.status == 0)
        #expect(briefing.stdout == (try ReportSample.expected("build-125.briefing")))
        let text = sample.run(["--min-confidence", "0.9"])
        #expect(text.stdout.contains("arrive_drawn         198   38     172   150  OVER    p95 +44  WORSE\n"), "\(text.stdout)")
        #expect(text.stdout.contains("\n  arrive_drawn p95              0.90\n"), "\(text.stdout)")
    }

    /// Above what three phones can give, the item stays in the report marked WORSE? and leaves the
    /// briefing, which then prints nothing (exit 0, as on a good day).
    @Test func aboveItTheItemIsMarkedAndLeavesTheBriefing() throws {
        let sample = try ReportSample()
        defer { sample.remove() }
        let briefing = sample.run(["--briefing", "--min-confidence", "0.95"])
        #expect(briefing.status == 0)
        #expect(briefing.stdout.isEmpty)
        let text = sample.run(["--min-confidence", "0.95"])
        #expect(text.stdout.contains("p95 +44  WORSE?\n"), "\(text.stdout)")
        #expect(text.stdout.contains("0.90  WORSE?: not in the briefing"), "\(text.stdout)")
        let json = sample.run(["--json", "--min-confidence", "0.95"])
        let document = try #require(try JSONSerialization.jsonObject(with: Data(json.stdout.utf8)) as? [String: Any])
        #expect(document["briefing"] is NSNull)
        #expect((document["worse"] as? [Any])?.count == 1)
    }

    /// The page shows the confidence beside each WORSE.
    @Test func thePageShowsIt() throws {
        let sample = try ReportSample()
        defer { sample.remove() }
        let page = sample.folder.appendingPathComponent("report.html").path
        let run = sample.run(["--html", page, "--min-confidence", "0.95"])
        #expect(run.status == 0, "\(run.stderr)")
        let html = try String(contentsOfFile: page, encoding: .utf8)
        #expect(html.contains("<span class=\"badge worse\" title=\"confidence 0.90\">WORSE?</span>"))
        #expect(html.contains("<span class=\"confidence\">confidence 0.90, under --min-confidence 0.95: not in the briefing</span>"))
    }

    @Test(arguments: ["2", "-0.1", "nan", "x", ""])
    func aShareOutsideZeroToOneIsAUsageError(value: String) {
        let run = ToolRun.run(["report", "--min-confidence", value, ReportSample.rows])
        #expect(run.status == 64)
        #expect(run.stderr.contains("--min-confidence"), "\(run.stderr)")
    }
}
