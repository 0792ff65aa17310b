import PayloadDecode

// A batch the table refused: which of its rows it refuses, each tried alone.
extension RowDatabase {
    /// Tries each row alone inside a savepoint of a transaction that is then rolled back, and lists
    /// the ones the table refuses.
    func diagnose(_ rows: [Row]) throws(RowStoreError) -> [RefusedRow] {
        var refused: [RefusedRow] = []
        do {
            try run("begin")
            for (index, row) in rows.enumerated() {
                let values: [String?]
                do {
                    values = try RowColumns.parameters(of: row)
                } catch {
                    refused.append(RefusedRow(index: index, message: error.message, constraint: nil, sqlState: ""))
                    continue
                }
                if let error = try insertAlone(values) {
                    refused.append(
                        RefusedRow(
                            index: index, message: Self.namingTheTable(url.scrub(error.message)),
                            constraint: error.constraint, sqlState: error.sqlState))
                }
            }
            try run("rollback")
        } catch {
            try? run("rollback")
            throw failure("cannot insert rows", error)
        }
        if refused.isEmpty {
            // Each row passes alone, so the batch failed as a whole; say so rather than nothing.
            refused.append(
                RefusedRow(
                    index: nil, message: "the batch was refused, but no row is refused on its own",
                    constraint: nil, sqlState: ""))
        }
        return refused
    }

    /// Inserts one row inside a savepoint; returns the server's objection to the row, if any.
    /// - Throws: the errors that are not about the row.
    func insertAlone(_ values: [String?]) throws(ServerError) -> ServerError? {
        try run("savepoint yui_perf_row")
        do {
            _ = try connection.execute(Self.insertStatement(rowCount: 1), parameters: values)
        } catch  where error.isAboutTheRow {
            try run("rollback to savepoint yui_perf_row")
            return error
        }
        try run("release savepoint yui_perf_row")
        return nil
    }
}
