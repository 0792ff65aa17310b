import PayloadDecode
import RowStore

/// `report --db URL --user UUID`: the rows the report needs from PostgreSQL, not the user's whole
/// history. First the window's rows (every build's: the newest build with enough data in the window
/// is the one reported), then, as `ReportReading.report` asks, the rest of each build it compares
/// or reports over all its rows, down to the first earlier build with enough data (four of them when
/// the output draws the last five builds). Every read goes through the owner's connector
/// (`RowDatabase.forEachRowAsConnector`), so row level security still decides what comes back.
///
/// Before this, `report --days 1 --db` read every row the user had: 15.0 s on 90 days of one user's
/// rows against 0.79 s from a table of only the rows it needs (docs/history.md, "A report at
/// history scale").
final class ReportDatabase: ReportMoreRows {
    private let database: RowDatabase
    private let userID: String
    /// Where the window starts (seconds since 1970): rows before it are read per build on demand.
    private(set) var windowStart: Int64?
    /// Whether a read failed or passed over a bad row; the run then exits 1.
    private(set) var failed = false
    /// Their messages, not yet written (`takeMessages`).
    private var messages: [String] = []

    init(url: String, userID: String) throws(RowStoreError) {
        database = try RowDatabase(url: url)
        self.userID = userID
    }

    /// The messages of the reads since the last call, for stderr.
    func takeMessages() -> [String] {
        defer { messages = [] }
        return messages
    }

    /// Reads the rows of the window that ends with the hour of the newest row, here or in
    /// `newestElsewhere` (the files read before), into `add`.
    func readWindow(days: Int, newestElsewhere: Int64?, _ add: (Row) -> Void) throws(RowStoreError) {
        guard let newest = [try database.newestPeriodEndAsConnector(userID: userID), newestElsewhere].compactMap({ $0 }).max()
        else { return }
        let start = ReportReading.firstHour(newestPeriodEnd: newest, days: days) * 3600
        windowStart = start
        try read(RowRange(periodEndFrom: start), add)
    }

    func newestBuild(below build: Int) -> Int? {
        do {
            return try database.newestBuildAsConnector(userID: userID, below: build)
        } catch {
            report(error)
            return nil
        }
    }

    func readRest(of build: Int, _ add: (Row) -> Void) {
        guard let windowStart else { return }
        do {
            try read(RowRange(build: build, periodEndBefore: windowStart), add)
        } catch {
            report(error)
        }
    }

    private func read(_ range: RowRange, _ add: (Row) -> Void) throws(RowStoreError) {
        // A bad row is an error, as a bad line of a row file is: named, passed over, exit 1.
        try database.forEachRowAsConnector(
            userID: userID, range: range,
            skipped: { skipped in
                messages.append("error: --db: \(skipped)\n")
                failed = true
            }
        ) { row in add(row) }
    }

    private func report(_ error: RowStoreError) {
        messages.append("error: --db: \(error)\n")
        failed = true
    }
}

/// Where `ReportReading.report` finds rows it has not been given yet: the database's rows outside
/// the window, one build at a time.
protocol ReportMoreRows: AnyObject {
    /// The highest build below `build` with rows there.
    func newestBuild(below build: Int) -> Int?
    /// Hands `add` the build's rows that were not read with the window.
    func readRest(of build: Int, _ add: (Row) -> Void)
}
