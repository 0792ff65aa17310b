import Foundation
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
///
/// One batch is stored on a worker thread while the next one is read, collected and written as COPY
/// text: the client's reading and the server's work overlap, as in `psql \copy` (about a third of a
/// load's CPU time is the client's). At most one batch is in flight; results are taken in batch order.
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

    /// The batch being stored, and the signal that it is done.
    private var inFlight: (job: BatchJob, done: DispatchSemaphore)?

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

    /// Sends what is collected and waits for every batch in flight; call once the input has no
    /// more rows (and before reading `tally`, `failed` or `fatalError` for the last time).
    func flush() {
        send()
        collect()
    }

    /// Hands the collected batch to a worker thread, after the batch before it is done.
    private func send() {
        guard !batch.isEmpty else { return }
        defer {
            batch = []
            batchRowNumbers = []
        }
        batchNumber += 1
        collect()
        guard fatalError == nil else {
            tally.notStored += batch.count
            return
        }
        var newUsers: Set<String> = []
        if createUsers {
            newUsers = Set(batch.compactMap(\.user_id)).subtracting(knownUsers)
            knownUsers.formUnion(newUsers)
        }
        // Written as COPY text here, on the reading thread: the worker only sends.
        let job = BatchJob(
            database: database, rows: RowDatabase.prepare(batch), rowNumbers: batchRowNumbers, number: batchNumber,
            newUsers: newUsers)
        let done = DispatchSemaphore(value: 0)
        let thread = Thread {
            job.run()
            done.signal()
        }
        thread.start()
        inFlight = (job, done)
    }

    /// Waits for the batch in flight and takes its outcome.
    private func collect() {
        guard let (job, done) = inFlight else { return }
        done.wait()
        inFlight = nil
        let place = "batch \(job.number) (rows \(job.rowNumbers.first!)-\(job.rowNumbers.last!))"
        switch job.outcome {
        case .stored(let inserted, let duplicates):
            tally.inserted += inserted
            tally.duplicates += duplicates
        case .refused(let refusals):
            tally.notStored += job.rows.count
            failed = true
            for refusal in refusals {
                report("error: \(file): \(place): \(describe(refusal, in: job))")
            }
            report("error: \(file): \(place): rolled back, none of its \(job.rows.count) rows stored")
        case .none:
            fatalError = job.error
            tally.notStored += job.rows.count
            failed = true
        }
    }

    private func describe(_ refusal: RefusedRow, in job: BatchJob) -> String {
        guard let index = refusal.index else { return refusal.message }
        var text = "\(refusal.message) (row \(job.rowNumbers[index]), row_key \(job.rows[index].row_key))"
        if refusal.sqlState == "23503" {  // foreign_key_violation: the only foreign key is the owner
            text += "; user \(job.rows[index].user_id ?? "") is not in yui_users"
                + (createUsers ? "" : " (on a test database, --create-users adds it)")
        }
        return text
    }
}

/// One batch stored on a worker thread. Safe to share because of how it is handed over: the
/// collecting thread writes it before starting the worker and reads it only after the worker's
/// semaphore signal; the worker is the only one touching it (and the database) in between.
private final class BatchJob: @unchecked Sendable {
    let database: RowDatabase
    let prepared: RowDatabase.PreparedRows
    var rows: [Row] { prepared.rows }
    let rowNumbers: [Int]
    let number: Int
    let newUsers: Set<String>
    private(set) var outcome: BatchOutcome?
    private(set) var error: RowStoreError?

    init(database: RowDatabase, rows: RowDatabase.PreparedRows, rowNumbers: [Int], number: Int, newUsers: Set<String>) {
        self.database = database
        self.prepared = rows
        self.rowNumbers = rowNumbers
        self.number = number
        self.newUsers = newUsers
    }

    func run() {
        do {
            if !newUsers.isEmpty { try database.createUsers(newUsers) }
            outcome = try database.insert(prepared)
        } catch {
            self.error = error
        }
    }
}
