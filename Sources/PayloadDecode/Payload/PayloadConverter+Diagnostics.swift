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
        rows.append(makeRow(context, kind: .diagnostic, name: kind.name.rawValue, ordinal: ordinal, n: 1, value: value, stack: stack))
        if readsCrashCauses, kind.name == .crash, let meta, let cause = crashCause(document, meta) { crashCauses[rows.count - 1] = cause }
    }

    /// `exceptionType` and `signal` of a crash's metadata, when either is a whole number; anything
    /// else there is left out (the row does not depend on them, so nothing is reported).
    private func crashCause(_ document: JSONDocument, _ meta: Int) -> CrashCause? {
        func number(_ key: StaticString) -> UInt64? {
            guard let member = document.member(meta, key), case .value(let value) = document.unsignedInteger(member) else { return nil }
            return value
        }
        let cause = CrashCause(exceptionType: number("exceptionType"), signal: number("signal"))
        return cause.exceptionType == nil && cause.signal == nil ? nil : cause
    }
}
