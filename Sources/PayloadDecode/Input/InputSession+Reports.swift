import Foundation

// The inputs that are not MetricKit payloads: Apple crash reports and bare call-stack trees.
extension InputSession {
    // MARK: Crash reports

    /// Apple crash reports (`.ips` or `.crash` text): one crash row per report (docs/crash-reports.md).
    func convertCrashReports(_ bytes: UnsafeRawBufferPointer, form: CrashReportForm) {
        let problem = { (problem: IPSReader.Problem) in
            if problem.severity == .error { self.failed = true }
            self.report(InputDiagnostic(severity: problem.severity, file: self.file, place: problem.place, message: problem.message))
        }
        // A row keeps one stack and no names: the rest of a report is read only when names are wanted.
        let reports = CrashReports.read(bytes, form: form, parser: parser, detail: options.frameNames == nil ? .row : .full, problem: problem)
        for crashReport in reports {
            options.frameNames?.add(crashReport)
            guard
                let row = CrashReportRow.row(
                    crashReport, ordinal: crashReport.position - 1, options: options, place: "report \(crashReport.position)",
                    problem: problem)
            else { continue }
            emit(row)
        }
    }

    // MARK: Bare call-stack trees

    /// A bare call-stack tree's paths as in-memory diagnostic rows of `options.treeBuild` (never a
    /// row of the table: `rows` has no build to give them): `crash` rows for a tree of threads
    /// (`callStackPerThread`), else `hang` rows; `n` the path's samples, no duration (`value` null).
    func convertTree(_ document: JSONDocument, _ index: Int, place: String) {
        guard let build = options.treeBuild else {
            return fail(
                place == "payload 1" ? "" : place,
                "a bare call-stack tree (MXCallStackTree.jsonRepresentation(): callStacks, no metaData): it carries no build, version or device, so it makes no row; name its build: payload-tool symbolicate --build B FILE, or payload-tool top --build B FILE"
            )
        }
        var warnings: [(key: String, message: String)] = []
        let paths = CallStackTrees.paths(document, index, allSamples: options.treeAllSamples, warnings: &warnings)
        for warning in warnings { report(InputDiagnostic(severity: .warning, file: file, place: warning.key, message: warning.message)) }
        let perThread = document.member(index, "callStackPerThread").flatMap { document.bool($0) } ?? false
        var digest = SHA1()
        digest.update(UnsafeRawBufferPointer(start: document.base, count: document.count))
        let treeDigest = digest.finish()
        let moment = Timestamp.iso8601(options.periodStart ?? 0) ?? "1970-01-01T00:00:00Z"
        for (position, path) in paths.enumerated() where !path.frames.isEmpty {
            var name = treeDigest
            name.append(contentsOf: Array("\ntree \(position)\n\(options.userID ?? "")".utf8))
            emit(
                Row(
                    user_id: options.userID, row_key: NameBasedUUID.make(namespace: NameBasedUUID.rowKeyNamespace, name: name),
                    kind: .diagnostic, name: perThread ? DiagnosticName.crash.rawValue : DiagnosticName.hang.rawValue, app_build: build,
                    app_version: "", os: "", device: "", promotion: false, low_power: false, thermal: 0, period_start: moment,
                    period_end: moment, n: Int(clamping: path.weight), buckets: nil, p50: nil, p95: nil, max: nil, value: nil,
                    stack: path.frames))
        }
    }
}
