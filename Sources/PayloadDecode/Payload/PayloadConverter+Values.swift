import Foundation

// Values read from a payload with their checks: measurements, counts, histograms.
extension PayloadConverter {
    /// The measurement string at `key` of `object`: `nil` when absent (no message), `nil` with a
    /// warning when present but unreadable (not a string, no number, unknown unit, out of range).
    /// - Parameter consequence: what happens to the row without this value, for the warning
    ///   (a metric's row is left out; a diagnostic's row stays, its value null).
    /// Key paths are built only when a message needs one (`@autoclosure`): a histogram's bucket
    /// keys, made for every bucket, were a tenth of the conversion.
    func measurement(
        _ document: JSONDocument, _ object: Int?, _ key: StaticString, _ keyPath: @autoclosure () -> String,
        consequence: String = "row left out"
    ) -> MeasurementReading? {
        guard let object, let value = document.member(object, key) else { return nil }
        guard document.kind(value) == .string else {
            warn(keyPath(), "not a \"<number> <unit>\" string; \(consequence)")
            return nil
        }
        switch document.withStringBytes(value, { MeasurementParser.parse($0) }) {
        case .success(let reading): return reading
        case .failure(let failure):
            warn(keyPath(), failure.message + "; " + consequence)
            return nil
        }
    }

    func nonNegative(_ value: Double?, _ keyPath: String, _ dimension: String) -> Double? {
        guard let value else {
            warn(keyPath, "not a \(dimension); row left out")
            return nil
        }
        guard value >= 0 else {
            warn(keyPath, "negative \(dimension); row left out")
            return nil
        }
        return value
    }

    /// A JSON count: a non-negative integer that fits the table's `int`.
    func count(_ document: JSONDocument, _ index: Int, _ keyPath: @autoclosure () -> String) -> Int? {
        switch document.unsignedInteger(index) {
        case .value(let value) where value <= UInt64(Int32.max): return Int(value)
        case .value, .tooLarge: warn(keyPath(), "count too large")
        case .negative: warn(keyPath(), "negative count")
        case .notInteger: warn(keyPath(), "count is not an integer")
        case .notANumber: warn(keyPath(), "count is not a number")
        }
        return nil
    }

    /// A MetricKit histogram (`histogramValue` buckets counted at their midpoints) in the table's
    /// 18 buckets; `nil` with a warning when any bucket cannot be read.
    func histogram(
        _ document: JSONDocument, _ object: Int?, _ key: StaticString, _ keyPath: @autoclosure () -> String
    ) -> (BucketHistogram, Double)? {
        guard let object, let value = document.member(object, key) else { return nil }
        guard let buckets = document.member(value, "histogramValue"), document.kind(buckets) == .object else {
            warn(keyPath(), "histogram without a histogramValue object; row left out")
            return nil
        }
        var result = BucketHistogram()
        var totalMilliseconds = 0.0
        var total = 0
        var ok = true
        document.forEachMember(buckets) { keyIndex, bucket in
            guard ok else { return }
            func bucketKey() -> String { "\(keyPath()).histogramValue.\(document.string(keyIndex) ?? "")" }
            guard document.kind(bucket) == .object else {
                warn(bucketKey(), "bucket is not an object; row left out")
                ok = false
                return
            }
            guard let countIndex = document.member(bucket, "bucketCount") else { return }  // `{}`: an empty bucket
            guard let bucketCount = count(document, countIndex, "\(bucketKey()).bucketCount") else {
                ok = false
                return
            }
            if bucketCount == 0 { return }
            guard let start = measurement(document, bucket, "bucketStart", "\(bucketKey()).bucketStart"),
                let end = measurement(document, bucket, "bucketEnd", "\(bucketKey()).bucketEnd")
            else {
                if document.member(bucket, "bucketStart") == nil || document.member(bucket, "bucketEnd") == nil {
                    warn(bucketKey(), "bucket with a count but no bounds; row left out")
                }
                ok = false
                return
            }
            guard let startMs = start.milliseconds, let endMs = end.milliseconds else {
                warn(bucketKey(), "bucket bounds are not durations (\(InputText.quoted(start.unit)), \(InputText.quoted(end.unit))); row left out")
                ok = false
                return
            }
            guard startMs >= 0, endMs >= startMs else {
                warn(bucketKey(), "bucket bounds are negative or reversed; row left out")
                ok = false
                return
            }
            total += bucketCount
            guard total <= Int(Int32.max) else {
                warn(keyPath(), "total count too large; row left out")
                ok = false
                return
            }
            let midpoint = (startMs + endMs) / 2
            result.add(midpoint, count: bucketCount)
            totalMilliseconds += midpoint * Double(bucketCount)
        }
        return ok ? (result, totalMilliseconds) : nil
    }
}
