import PayloadDecode
import RowStore

/// Counts of one `load` input (or of the whole run), for the summary line.
struct LoadTally {
    var rows = 0
    var inserted = 0
    var duplicates = 0
    /// Rows not stored because of themselves or their batch: refused by the table, without a
    /// user_id, or in a batch that rolled back.
    var notStored = 0

    static func += (total: inout LoadTally, part: LoadTally) {
        total.rows += part.rows
        total.inserted += part.inserted
        total.duplicates += part.duplicates
        total.notStored += part.notStored
    }

    /// `120 rows: 118 inserted, 2 duplicate, 0 not stored`
    var summary: String {
        "\(rows) row\(rows == 1 ? "" : "s"): \(inserted) inserted, \(duplicates) duplicate, \(notStored) not stored"
    }
}

/// Collects one input's rows into batches and stores each batch in its own transaction, reporting every
/// row the table refuses as `FILE: batch N (rows a-b): <server message> (row R, row_key K)`.
///
/// Rows are numbered from 1 in the order the input yields them, so a row number points into the row
/// file (or the conversion of the dump) whatever the batch size.
final class LoadBatcher {
    private let database: RowDatabase
    private let file: String
    private let batchSize: Int
    private let createUsers: Bool
    /// Error lines not yet written, so the command can write them as they come.
    private var messages: [String] = []

    private var batch: [Row] = []
    private var batchRowNumbers: [Int] = []
    private var batchNumber = 0
    private var knownUsers: Set<String> = []

    private(set) var tally = LoadTally()
    /// Whether any row of this input was not stored.
    private(set) var failed = false
    /// A failure of the database as a whole; once set, nothing more is sent.
    private(set) var fatalError: RowStoreError?

    init(database: RowDatabase, file: String, batchSize: Int, createUsers: Bool) {
        self.database = database
        self.file = file
        self.batchSize = batchSize
        self.createUsers = createUsers
    }

    /// The error lines reported since the last call, each without its newline.
    func takeMessages() -> [String] {
        defer { messages.removeAll() }
        return messages
    }

    private func report(_ message: String) { messages.append(message) }

    func add(_ row: Row) {
        tally.rows += 1
        let rowNumber = tally.rows
        guard fatalError == nil else {
            tally.notStored += 1
            return
        }
        guard let userID = row.user_id, !userID.isEmpty else {
            // The table needs an owner for every row; a row file written without --user has none.
            report("error: \(file): row \(rowNumber): no user_id (convert payload dumps with --user UUID) "
                + "(row_key \(row.row_key))")
            tally.notStored += 1
            failed = true
            return
        }
        batch.append(row)
        batchRowNumbers.append(rowNumber)
        if batch.count >= batchSize { flush() }
    }

    /// Stores what is left; call once the input has no more rows.
    func flush() {
        guard !batch.isEmpty else { return }
        defer {
            batch.removeAll(keepingCapacity: true)
            batchRowNumbers.removeAll(keepingCapacity: true)
        }
        batchNumber += 1
        guard fatalError == nil else {
            tally.notStored += batch.count
            return
        }
        let place = "batch \(batchNumber) (rows \(batchRowNumbers.first!)-\(batchRowNumbers.last!))"
        do {
            if createUsers {
                let newUsers = Set(batch.compactMap(\.user_id)).subtracting(knownUsers)
                try database.createUsers(newUsers)
                knownUsers.formUnion(newUsers)
            }
            switch try database.insert(batch) {
            case let .stored(inserted, duplicates):
                tally.inserted += inserted
                tally.duplicates += duplicates
            case let .refused(refusals):
                tally.notStored += batch.count
                failed = true
                for refusal in refusals {
                    report("error: \(file): \(place): \(describe(refusal))")
                }
                report("error: \(file): \(place): rolled back, none of its \(batch.count) rows stored")
            }
        } catch {
            fatalError = error
            tally.notStored += batch.count
            failed = true
        }
    }

    private func describe(_ refusal: RefusedRow) -> String {
        guard let index = refusal.index else { return refusal.message }
        var text = "\(refusal.message) (row \(batchRowNumbers[index]), row_key \(batch[index].row_key))"
        if refusal.sqlState == "23503" {  // foreign_key_violation: the only foreign key is the owner
            text += "; user \(batch[index].user_id ?? "") is not in yui_users"
                + (createUsers ? "" : " (on a test database, --create-users adds it)")
        }
        return text
    }
}
