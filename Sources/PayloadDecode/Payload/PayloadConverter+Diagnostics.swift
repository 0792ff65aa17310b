import Foundation

/// A diagnostic's row: its kind, value and normalized stack (docs/rows.md).
extension PayloadConverter {
    func convertDiagnosticPayload(_ document: JSONDocument, _ payload: Int, into rows: inout [Row]) {
        guard let period = period(document, payload, keyPrefix: "") else { return }
        for kind in Self.diagnosticKinds {
            guard let array = document.member(payload, kind.arrayKey) else { continue }
            guard document.kind(array) == .array else {
                error(kind.arrayKey.description, "not an array")
                continue
            }
            for (ordinal, diagnostic) in document.elements(array).enumerated() {
                convertDiagnostic(
                    document, diagnostic, kind: kind, ordinal: ordinal, keyPath: "\(kind.arrayKey)[\(ordinal)]", period: period,
                    into: &rows)
            }
        }
    }

    func convertSingleDiagnostic(_ document: JSONDocument, _ diagnostic: Int, into rows: inout [Row]) {
        let meta = document.member(diagnostic, "diagnosticMetaData")
        guard let period = singleDiagnosticPeriod(document, diagnostic, meta: meta) else { return }
        let kind: DiagnosticKind
        func has(_ key: StaticString) -> Bool { meta.map { document.hasMember($0, key) } ?? false }
        if has("hangDuration") || document.hasMember(diagnostic, "hangType") {
            kind = .hang
        } else if has("totalCPUTime") {
            kind = .cpuException
        } else if has("writesCaused") {
            kind = .diskWrite
        } else if has("launchDuration") {
            kind = .launch
        } else if has("exceptionType") || has("signal") || has("terminationReason") || has("exceptionCode")
            || has("objectiveCexceptionReason")
        {
            kind = .crash
        } else {
            error(
                "diagnosticMetaData",
                "cannot tell the diagnostic's type (no hangDuration, totalCPUTime, writesCaused, launchDuration or crash fields)")
            return
        }
        convertDiagnostic(document, diagnostic, kind: kind, ordinal: 0, keyPath: "", period: period, into: &rows)
    }

    func convertDiagnostic(
        _ document: JSONDocument, _ diagnostic: Int, kind: DiagnosticKind, ordinal: Int, keyPath: String,
        period: (String, String), into rows: inout [Row]
    ) {
        let prefix = keyPath.isEmpty ? "" : keyPath + "."
        guard document.kind(diagnostic) == .object else {
            error(keyPath, "diagnostic is not an object")
            return
        }
        let meta = document.member(diagnostic, "diagnosticMetaData")
        guard
            let context = context(
                document, meta: meta, metaKey: prefix + "diagnosticMetaData",
                appVersion: meta.flatMap { document.member($0, "appVersion") },
                appVersionKey: prefix + "diagnosticMetaData.appVersion", period: period)
        else { return }
        var value: Double?
        if let valueKey = kind.valueKey, let meta {
            let valuePath = "\(prefix)diagnosticMetaData.\(valueKey)"
            if let reading = measurement(document, meta, valueKey, valuePath, consequence: "value left null") {
                switch kind.unit {
                case .seconds: value = reading.seconds
                case .megabytes: value = reading.megabytes
                case .none: value = nil
                }
                if value == nil {
                    warn(valuePath, "unit \(InputText.quoted(reading.unit)) does not fit \(kind.name); value left null")
                } else if value! < 0 {
                    warn(valuePath, "negative; value left null")
                    value = nil
                } else if kind.unit == .seconds, value! > Self.longestDiagnosticSeconds {
                    // MetricKit reports hangs and launches of seconds or minutes; a day is no reading.
                    warn(valuePath, "\(reading.number) \(InputText.escaped(reading.unit)) is longer than a day; value left null")
                    value = nil
                }
            } else if document.member(meta, valueKey) == nil {
                warn(valuePath, "missing; value left null")
            }
        }
        var stack: [StackFrame]?
        if let tree = document.member(diagnostic, "callStackTree") {
            let outcome = StackNormalizer.normalize(
                document, tree: tree, orientation: kind.orientation, keyPath: prefix + "callStackTree")
            for warning in outcome.warnings { warn(warning.key, warning.message) }
            if let failure = outcome.error {
                error(failure.key, failure.message)
                return
            }
            stack = outcome.frames.isEmpty ? nil : outcome.frames
        } else {
            warn(prefix + "callStackTree", "missing; stack left null")
        }
        var row = makeRow(context, kind: .diagnostic, name: kind.name.rawValue, ordinal: ordinal, n: 1, value: value, stack: stack)
        if kind.name == .crash, let meta { readCrashCause(document, meta, keyPath: prefix + "diagnosticMetaData", into: &row) }
        rows.append(row)
    }

    /// A crash's reason, from its metadata: `exceptionType`, `signal`, and the termination code of
    /// `terminationReason` (or iOS 26's `terminationNamespace` and `terminationCode`; CrashCause).
    /// A value that is not a whole number of the column's range is left null, with a warning.
    private func readCrashCause(_ document: JSONDocument, _ meta: Int, keyPath: String, into row: inout Row) {
        func number(_ key: StaticString, below limit: UInt64) -> UInt64? {
            guard let member = document.member(meta, key), document.kind(member) != .null else { return nil }
            guard case .value(let value) = document.unsignedInteger(member), value < limit else {
                warn("\(keyPath).\(key)", "not a whole number from 0 to \(limit - 1); left null")
                return nil
            }
            return value
        }
        row.exception_type = number("exceptionType", below: 1 << 31).map { Int($0) }
        row.signal = number("signal", below: 1 << 31).map { Int($0) }
        if let code = number("terminationCode", below: 1 << 63) {
            let namespace = document.member(meta, "terminationNamespace").flatMap { document.string($0) }
            row.termination_code = CrashCause.terminationCode(namespace: namespace, code: code)
        } else if let reason = document.member(meta, "terminationReason").flatMap({ document.string($0) }) {
            row.termination_code = CrashCause.terminationCode(reason: reason)
        }
    }
}
