import Foundation

/// A metric payload's rows (docs/rows.md): one per metric present, in a fixed order.
extension PayloadConverter {
    func convertMetricPayload(_ document: JSONDocument, _ payload: Int, into rows: inout [Row]) {
        guard let period = period(document, payload, keyPrefix: "") else { return }
        guard
            let context = context(
                document, meta: document.member(payload, "metaData"), metaKey: "metaData",
                appVersion: document.member(payload, "appVersion"), appVersionKey: "appVersion", period: period)
        else { return }
        func category(_ key: StaticString) -> Int? {
            guard let index = document.member(payload, key) else { return nil }
            guard document.kind(index) == .object else {
                warn(key.description, "not an object; its rows left out")
                return nil
            }
            return index
        }
        let time = category("applicationTimeMetrics")
        let responsiveness = category("applicationResponsivenessMetrics")
        let animation = category("animationMetrics")
        let memory = category("memoryMetrics")
        let cpu = category("cpuMetrics")
        let launch = category("applicationLaunchMetrics")

        var foregroundSeconds: Double?
        if let reading = measurement(document, time, "cumulativeForegroundTime", "applicationTimeMetrics.cumulativeForegroundTime"),
            let seconds = nonNegative(reading.seconds, "applicationTimeMetrics.cumulativeForegroundTime", "duration")
        {
            foregroundSeconds = seconds
            rows.append(makeRow(context, metric: .foregroundTime, ordinal: 0, n: 1, value: seconds))
        }
        let hangKey = "applicationResponsivenessMetrics.histogrammedAppHangTime"
        if let (hangs, totalMs) = histogram(document, responsiveness, "histogrammedAppHangTime", hangKey) {
            var rate: Double?
            if let foregroundSeconds, foregroundSeconds > 0 {
                rate = (totalMs / 1000) / (foregroundSeconds / 3600)
            } else {
                warn(hangKey, "no foreground time to divide by; hang_rate value left null")
            }
            rows.append(makeRow(context, metric: .hangRate, ordinal: 0, n: hangs.n, histogram: hangs, value: rate))
        }
        let hitchKey = "animationMetrics.scrollHitchTimeRatio"
        if let reading = measurement(document, animation, "scrollHitchTimeRatio", hitchKey),
            let ratio = nonNegative(reading.millisecondsPerSecond, hitchKey, "ratio (ms per s)")
        {
            rows.append(makeRow(context, metric: .hitchRatio, ordinal: 0, n: 1, value: ratio))
        }
        appendMemoryRows(document, memory, context, into: &rows)
        let cpuKey = "cpuMetrics.cumulativeCPUTime"
        if let reading = measurement(document, cpu, "cumulativeCPUTime", cpuKey),
            let seconds = nonNegative(reading.seconds, cpuKey, "duration")
        {
            rows.append(makeRow(context, metric: .cpuTime, ordinal: 0, n: 1, value: seconds))
        }
        let launchKey = "applicationLaunchMetrics.histogrammedTimeToFirstDrawKey"
        if let (launches, _) = histogram(document, launch, "histogrammedTimeToFirstDrawKey", launchKey) {
            rows.append(makeRow(context, metric: .launchTime, ordinal: 0, n: launches.n, histogram: launches, value: nil))
        }
        let resumeKey = "applicationLaunchMetrics.histogrammedResumeTime"
        if let (resumes, _) = histogram(document, launch, "histogrammedResumeTime", resumeKey) {
            rows.append(makeRow(context, metric: .resumeTime, ordinal: 0, n: resumes.n, histogram: resumes, value: nil))
        }
        appendOrganizerRows(document, payload, context, into: &rows)
    }

    /// `mem_peak` and `mem_avg`, in that order, from `memoryMetrics`.
    func appendMemoryRows(_ document: JSONDocument, _ memory: Int?, _ context: RowContext, into rows: inout [Row]) {
        let peakKey = "memoryMetrics.peakMemoryUsage"
        if let reading = measurement(document, memory, "peakMemoryUsage", peakKey),
            let megabytes = nonNegative(reading.megabytes, peakKey, "size")
        {
            rows.append(makeRow(context, metric: .memoryPeak, ordinal: 0, n: 1, value: megabytes))
        }
        if let memory, let average = document.member(memory, "averageSuspendedMemory") {
            let averageKey = "memoryMetrics.averageSuspendedMemory"
            if let reading = measurement(document, average, "averageValue", "\(averageKey).averageValue"),
                let megabytes = nonNegative(reading.megabytes, "\(averageKey).averageValue", "size")
            {
                var samples: Int? = 0
                if let countIndex = document.member(average, "sampleCount") {
                    samples = count(document, countIndex, "\(averageKey).sampleCount")
                }
                if let samples {
                    rows.append(makeRow(context, metric: .memoryAverage, ordinal: 0, n: samples, value: megabytes))
                }
            } else if document.member(average, "averageValue") == nil {
                warn("\(averageKey).averageValue", "missing; row left out")
            }
        }
    }

    func makeRow(
        _ context: RowContext, metric: MetricName, ordinal: Int, n: Int, histogram: BucketHistogram? = nil, value: Double?
    ) -> Row {
        makeRow(context, kind: .metrics, name: metric.rawValue, ordinal: ordinal, n: n, histogram: histogram, value: value)
    }
}
