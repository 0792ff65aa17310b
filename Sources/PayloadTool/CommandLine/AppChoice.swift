import PayloadDecode

/// Which app's rows a `top` or `report` run counts (docs/report.md, "One app"): two apps' builds
/// are never one app's, so a run over rows of several bundle identifiers needs `--bundle-id`.
///
/// Rows that name no app (iOS 14 and 15 payloads, the phone's own interval and memory rows, row
/// files written before the column) count when the rows name at most one app: they cannot be told
/// apart, and leaving them out would leave the seed's phone rows out of its own report. With
/// `--bundle-id` (several apps) they are left out: they may be another app's.
struct AppChoice {
    static let option = CommandOption(
        "--bundle-id", "ID",
        parser: .accepting(refusal: .invalidValue(detail: ": a bundle identifier, 1 to 255 letters, digits, '-' and '.'.")) { text in
            ColumnPatterns.isBundleID(text) ? text : nil
        },
        help: ["Only this app's rows (its bundle identifier, as the payloads name", "it); needed when the inputs hold several apps."])

    /// `--bundle-id`, or nil: every row counts, as long as they name one app.
    let wanted: String?
    /// Rows counted, by the app they name.
    private(set) var rowsOfApp: [String: Int] = [:]
    /// Rows that name no app: counted without `wanted`, left out with it.
    private(set) var rowsWithoutApp = 0
    /// Rows of other apps than `wanted`, left out.
    private(set) var leftOut: [String: Int] = [:]

    init(wanted: String?) { self.wanted = wanted }

    /// Whether `row` counts: it names `wanted`, or there is no `wanted`.
    mutating func admits(_ row: Row) -> Bool {
        guard let bundle = row.bundle_id else {
            rowsWithoutApp += 1
            return wanted == nil
        }
        if let wanted, bundle != wanted {
            leftOut[bundle, default: 0] += 1
            return false
        }
        rowsOfApp[bundle, default: 0] += 1
        return true
    }

    /// The reported app's bundle identifier: `wanted`, else the one app the rows named (nil for none).
    var bundleID: String? { wanted ?? (rowsOfApp.count == 1 ? rowsOfApp.keys.first : nil) }

    /// The app's name for titles when `--app-name` is not given: the last part of its bundle
    /// identifier (`com.bedroomcode.Splash` is `Splash`), nil without one.
    var appName: String? {
        guard let bundle = bundleID else { return nil }
        let last = bundle.split(separator: ".").last.map(String.init) ?? ""
        return last.isEmpty ? bundle : last
    }

    /// The error when the rows name several apps and none was chosen: no ranking or report of
    /// them is printed, as it would compare one app's builds with another's.
    var conflict: String? {
        guard wanted == nil, rowsOfApp.count > 1 else { return nil }
        let apps = rowsOfApp.sorted { $0.value != $1.value ? $0.value > $1.value : $0.key < $1.key }
        let list = apps.map { "\($0.key) (\(Self.rows($0.value)))" }.joined(separator: ", ")
        return "the inputs hold the rows of \(apps.count) apps: \(list); give --bundle-id ID for one of them"
    }

    /// What the run left out or counted without knowing its app, for stderr.
    var notes: [String] {
        var notes: [String] = []
        if !leftOut.isEmpty {
            let list = leftOut.sorted { $0.key < $1.key }.map { "\($0.key) \(Self.rows($0.value))" }.joined(separator: ", ")
            notes.append("rows of other apps left out: \(list)")
        }
        if let wanted, rowsOfApp[wanted] == nil { notes.append("no row names \(wanted)") }
        if wanted != nil, rowsWithoutApp > 0 {
            notes.append("\(Self.rows(rowsWithoutApp)) that name no app left out (they may be another app's; without --bundle-id they count)")
        }
        return notes
    }

    private static func rows(_ count: Int) -> String { count == 1 ? "1 row" : "\(count) rows" }
}
