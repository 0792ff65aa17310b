import Foundation
import PayloadDecode
import RowStore
import SystemIO

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
/// Batches are stored by one worker thread, in order, while this thread reads, collects and writes the
/// next ones as COPY text: the client's reading and the server's work overlap, as in `psql \copy`.
/// The worker takes the next batch as soon as it has committed one (at most two wait for it), so the
/// server is not left idle waiting for this thread to wake up; results are taken in batch order.
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

    /// The worker and the batches handed to it.
    private let pipeline = StorePipeline()

    init(database: RowDatabase, file: String, batchSize: Int, createUsers: Bool) {
        self.database = database
        self.file = file
        self.batchSize = batchSize
        self.createUsers = createUsers
    }

    deinit { pipeline.close() }

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
            report(
                "error: \(file): row \(rowNumber): no user_id (convert payload dumps with --user UUID) "
                    + "(row_key \(row.row_key))")
            tally.notStored += 1
            failed = true
            return
        }
        batch.append(row)
        batchRowNumbers.append(rowNumber)
        // send, not flush: the batch goes to the worker and this thread reads on meanwhile
        // (waiting here for the batch just sent would leave the server idle while the next is read).
        if batch.count >= batchSize { send() }
    }

    /// Sends what is collected and waits for every batch in flight; call once the input has no
    /// more rows (and before reading `tally`, `failed` or `fatalError` for the last time).
    func flush() {
        send()
        pipeline.waitUntilIdle()
        collect()
    }

    /// Hands the collected batch to the worker (waiting while two batches already wait for it).
    private func send() {
        guard !batch.isEmpty else { return }
        defer {
            batch = []
            batchRowNumbers = []
        }
        batchNumber += 1
        // Written as COPY text here, on the reading thread, while the batch before is still being
        // stored: the worker only sends.
        let prepared = fatalError == nil ? RowDatabase.prepare(batch) : nil
        collect()
        guard fatalError == nil, !pipeline.isStopped, let prepared else {
            tally.notStored += batch.count
            return
        }
        var newUsers: Set<String> = []
        if createUsers {
            newUsers = Set(batch.compactMap(\.user_id)).subtracting(knownUsers)
            knownUsers.formUnion(newUsers)
        }
        let job = BatchJob(
            database: database, rows: prepared, rowNumbers: batchRowNumbers, number: batchNumber,
            newUsers: newUsers)
        pipeline.enqueue(job)
        collect()
    }

    /// Takes the outcomes of the batches the worker has finished, in batch order.
    private func collect() {
        for job in pipeline.takeFinished() { take(job) }
    }

    private func take(_ job: BatchJob) {
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
            // The failure itself, or a batch the worker skipped after it.
            if fatalError == nil { fatalError = job.error }
            tally.notStored += job.rows.count
            failed = true
        }
    }

    private func describe(_ refusal: RefusedRow, in job: BatchJob) -> String {
        guard let index = refusal.index else { return refusal.message }
        var text = "\(refusal.message) (row \(job.rowNumbers[index]), row_key \(job.rows[index].row_key))"
        if refusal.sqlState == "23503" {  // foreign_key_violation: the only foreign key is the owner
            text +=
                "; user \(job.rows[index].user_id ?? "") is not in yui_users"
                + (createUsers ? "" : " (on a test database, --create-users adds it)")
        }
        return text
    }
}

/// One worker thread that stores batches in the order they are handed over, one at a time, until it
/// is closed. After a batch fails as a whole (`BatchJob.error`: the database itself failed), the
/// batches still waiting are not tried: they come back with neither outcome nor error.
///
/// Safe to share: every field is read and written under `condition`'s lock; a `BatchJob` belongs to
/// the worker from `enqueue` until it is in `finished`, then to the thread that takes it.
private final class StorePipeline: @unchecked Sendable {
    private let condition = NSCondition()
    private var waiting: [BatchJob] = []
    private var running = false
    private var finished: [BatchJob] = []
    private var stopped = false
    private var closed = false
    /// The worker, started with the first batch and joined by `close()`.
    private var worker: SecondThread<Void>?
    /// Batches handed over and not yet started, at most: enough to keep the worker busy.
    private let depth = 2

    /// Whether a batch failed as a whole, so later ones are not worth sending.
    var isStopped: Bool {
        condition.lock()
        defer { condition.unlock() }
        return stopped
    }

    func enqueue(_ job: BatchJob) {
        condition.lock()
        defer { condition.unlock() }
        if worker == nil {
            worker = SecondThread { [self] in work() }
        }
        while waiting.count >= depth { condition.wait() }
        waiting.append(job)
        condition.broadcast()
    }

    /// The batches finished since the last call, in the order they were handed over.
    func takeFinished() -> [BatchJob] {
        condition.lock()
        defer { condition.unlock() }
        defer { finished.removeAll() }
        return finished
    }

    func waitUntilIdle() {
        condition.lock()
        defer { condition.unlock() }
        while !waiting.isEmpty || running { condition.wait() }
    }

    /// Lets the worker end once nothing waits, and waits for it.
    func close() {
        condition.lock()
        closed = true
        condition.broadcast()
        let running = worker
        worker = nil
        condition.unlock()
        running?.join()
    }

    private func work() {
        while true {
            condition.lock()
            while waiting.isEmpty && !closed { condition.wait() }
            if waiting.isEmpty {
                condition.unlock()
                return
            }
            let job = waiting.removeFirst()
            running = true
            let skip = stopped
            condition.broadcast()
            condition.unlock()

            if !skip { job.run() }

            condition.lock()
            running = false
            if job.error != nil { stopped = true }
            finished.append(job)
            condition.broadcast()
            condition.unlock()
        }
    }
}

/// One batch stored on the worker thread. Safe to share because of how it is handed over (see
/// `StorePipeline`): one thread at a time touches it.
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
