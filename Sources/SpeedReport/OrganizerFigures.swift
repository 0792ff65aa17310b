import PayloadDecode

/// What the report shows of Organizer's panes beyond the seed's figures: terminations by reason
/// and disk writes (docs/report.md, "Organizer's panes").
public enum OrganizerFigures {
    /// The exit row names either build has, foreground first, each in `ExitReason`'s order.
    public static func exitNames(_ report: SpeedReport) -> [String] {
        let seen = Set((report.current.exits ?? [:]).keys).union((report.previous?.exits ?? [:]).keys)
        return [false, true].flatMap { background in
            ExitReason.allCases.map { $0.rowName(background: background) }.filter(seen.contains)
        }
    }

    /// Exits per foreground hour that end the app against its will: every reason but normal exits
    /// and the background's memory-pressure exits (the terminations tile).
    public static func unwantedExitRate(_ figures: BuildFigures) -> Double? {
        guard let exits = figures.exits, figures.foregroundHours > 0 else { return nil }
        let count = exits.filter { name, _ in ExitReason.of(rowName: name).map { $0.reason.isUnwanted(background: $0.background) } ?? false }
            .values.reduce(0, +)
        return Double(count) / figures.foregroundHours
    }
}
