extension ReportHTML {
    /// The interval table's badge: `WORSE`, with its confidence as the badge's title, and `WORSE?`
    /// when it is below `--min-confidence`.
    static func worseBadge(_ report: SpeedReport, _ what: String) -> String {
        guard let regression = report.regressions.first(where: { $0.what == what }) else { return "" }
        let title = regression.confidence.map { " title=\"confidence \(ConfidenceWords.number($0))\"" } ?? ""
        let word = regression.isConfident(report.minConfidence) ? "WORSE" : "WORSE?"
        return "<span class=\"badge worse\"\(title)>\(word)</span>"
    }

    /// The list of what got worse, each with how sure it is (the share of resamples by phone in
    /// which the rule still fires).
    static func worseList(_ report: SpeedReport, into page: inout HTMLText) {
        page.raw("<h3>Worse</h3>\n")
        guard !report.regressions.isEmpty else {
            page.text(report.previous.map { "Nothing got worse than build \($0.build)." } ?? "No earlier build with enough data to compare with.")
            page.raw("\n")
            return
        }
        page.raw("<ul class=\"worse-list\">\n")
        for regression in report.regressions {
            page.raw("<li>")
            page.text("Build \(report.build) \(regression.text)")
            if let confidence = regression.confidence {
                page.raw(" <span class=\"confidence\">")
                page.text("confidence \(ConfidenceWords.number(confidence))")
                if !regression.isConfident(report.minConfidence) {
                    page.text(", under --min-confidence \(ConfidenceWords.number(report.minConfidence)): not in the briefing")
                }
                page.raw("</span>")
            }
            page.raw("</li>\n")
        }
        page.raw("</ul>\n")
    }
}
