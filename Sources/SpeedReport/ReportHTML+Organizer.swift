import PayloadDecode

extension ReportHTML {
    /// Organizer's Terminations and Disk Writes panes, for an app whose payloads carry them: a table
    /// of every exit reason either build saw, per foreground hour, and the disk writes a day.
    static func organizer(_ report: SpeedReport, into page: inout HTMLText) {
        let names = OrganizerFigures.exitNames(report)
        let current = report.current
        let previous = report.previous
        let disk = current.diskWritesPerDay != nil || previous?.diskWritesPerDay != nil
        guard !names.isEmpty || disk else { return }
        page.raw("<section aria-labelledby=\"exits-title\">\n<h2 id=\"exits-title\">Terminations and disk writes</h2>\n")
        if !names.isEmpty {
            page.raw("<table class=\"intervals exits\">\n<thead><tr><th scope=\"col\">reason</th><th scope=\"col\">count</th>")
            page.raw("<th scope=\"col\">per fg hour</th>")
            if let previous { page.raw("<th scope=\"col\">build \(previous.build)</th>") }
            page.raw("<th scope=\"col\"></th></tr></thead>\n<tbody>\n")
            func rate(_ figures: BuildFigures?, _ name: String) -> String {
                guard let rate = figures?.countedExitRate(name) else { return "-" }
                return Format.hundredths(rate)
            }
            for name in names {
                guard let (reason, background) = ExitReason.of(rowName: name) else { continue }
                let worse = report.isWorse("exit:\(name)")
                page.raw("<tr\(worse ? " class=\"worse\"" : "")><th scope=\"row\">")
                page.text("\(background ? "background" : "foreground") \(reason.words)")
                page.raw("</th><td>\(current.exits?[name] ?? 0)</td><td>\(rate(current, name))</td>")
                if previous != nil { page.raw("<td>\(rate(previous, name))</td>") }
                page.raw("<td>\(worse ? worseBadge(report, "exit:\(name)") : "")</td></tr>\n")
            }
            page.raw("</tbody>\n</table>\n")
        }
        if disk {
            page.raw("<p class=\"disk\">")
            var text = "Disk writes: " + (current.diskWritesPerDay.map { "\(Format.tenths($0)) MB a day per phone" } ?? "-")
            if let previous, let old = previous.diskWritesPerDay { text += " (build \(previous.build): \(Format.tenths(old)))" }
            page.text(text)
            page.raw("</p>\n")
        }
        page.raw("</section>\n")
    }
}
