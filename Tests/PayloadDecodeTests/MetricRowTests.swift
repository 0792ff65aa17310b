import Foundation
import Testing

@testable import PayloadDecode

@Suite struct HistogramTests {
    @Test(arguments: [(0.0, 0), (2.0, 0), (2.5, 1), (4.0, 1), (33.0, 6), (33.5, 7), (5000.0, 16), (5001.0, 17), (1e9, 17)])
    func bucketEdges(milliseconds: Double, bucket: Int) {
        #expect(BucketHistogram.bucketIndex(milliseconds) == bucket)
    }

    /// Buckets counted at their midpoints land on the edges: 0 and 2 ms in the first bucket,
    /// 2.5 in the second, 5000 in the 17th, 5001 in the 18th.
    @Test func midpointsOnTheEdges() throws {
        let hangs = histogram([("0", "0", 1), ("1", "3", 2), ("2", "3", 1), ("4990", "5010", 1), ("5000", "5002", 1)])
        let result = convert(
            metricPayload(
                """
                "applicationResponsivenessMetrics" : { "histogrammedAppHangTime" : \(hangs) },
                "applicationTimeMetrics" : { "cumulativeForegroundTime" : "3600 sec" }
                """))
        #expect(result.succeeded)
        let row = try result.row("hang_rate")
        #expect(row.buckets == [3, 1, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 1, 1])
        #expect(row.n == 6)
        #expect(row.max == 5001)
        // rank 3 is reached in the first bucket: 0 + (2 − 0) · 3/3
        #expect(row.p50 == 2)
        // rank 5.7 falls in the top bucket, whose upper edge is max: 5000 + (5001 − 5000) · 0.7
        #expect(abs(try #require(row.p95) - 5000.7) < 1e-9)
        // 0·1 + 2·2 + 2.5 + 5000 + 5001 = 10007.5 ms in one foreground hour
        #expect(abs(try #require(row.value) - 10.0075) < 1e-9)
    }

    @Test func interpolationInsideBuckets() throws {
        // Midpoints 15 ms (bucket 12–16) ×4 and 50 ms (bucket 33–50) ×4.
        let launches = histogram([("10", "20", 4), ("40", "60", 4)])
        let result = convert(metricPayload("\"applicationLaunchMetrics\" : { \"histogrammedTimeToFirstDrawKey\" : \(launches) }"))
        let row = try result.row("launch_mk")
        #expect(row.n == 8)
        #expect(row.max == 50)
        #expect(row.p50 == 16)  // rank 4: 12 + 4 · 4/4
        #expect(abs(try #require(row.p95) - 48.3) < 1e-9)  // rank 7.6: 33 + 17 · 3.6/4
        #expect(row.value == nil)
        #expect(row.stack == nil)
    }

    /// The lesson of docs/design.md, "Rows": one 1.1 s resume must not read p50 1500.
    @Test func percentilesCappedAtMax() throws {
        let resumes = histogram([("1100", "1100", 1)])
        let row = try convert(metricPayload("\"applicationLaunchMetrics\" : { \"histogrammedResumeTime\" : \(resumes) }")).row("resume_mk")
        #expect(row.buckets?[15] == 1)
        #expect(row.p50 == 1100)
        #expect(row.p95 == 1100)
        #expect(row.max == 1100)
    }

    @Test func hangRateInSecondsPerForegroundHour() throws {
        // 3 × 254.5 ms + 1 × 1005 ms = 1.7685 s of hangs in 1800 s (half an hour) of foreground.
        let hangs = histogram([("250", "259", 3), ("1000", "1010", 1)])
        let result = convert(
            metricPayload(
                """
                "applicationResponsivenessMetrics" : { "histogrammedAppHangTime" : \(hangs) },
                "applicationTimeMetrics" : { "cumulativeForegroundTime" : "1,800 sec" }
                """))
        let row = try result.row("hang_rate")
        #expect(abs(try #require(row.value) - 3.537) < 1e-9)
        #expect(row.n == 4)
        #expect(try result.row("fg_time").value == 1800)
    }

    @Test func hangRateWithoutForegroundTimeIsNullWithAWarning() throws {
        let hangs = histogram([("250", "259", 3)])
        let result = convert(metricPayload("\"applicationResponsivenessMetrics\" : { \"histogrammedAppHangTime\" : \(hangs) }"))
        #expect(try result.row("hang_rate").value == nil)
        #expect(result.warnings.contains { $0.message.contains("foreground") })
        #expect(result.succeeded)
    }

    @Test func emptyBucketsAreSkipped() throws {
        let text = """
            { "histogramNumBuckets" : 3, "histogramValue" : { "2" : { }, "0" : { "bucketStart" : "40 ms", "bucketEnd" : "49 ms", "bucketCount" : 9 }, "1" : { } } }
            """
        let row = try convert(metricPayload("\"applicationLaunchMetrics\" : { \"histogrammedResumeTime\" : \(text) }")).row("resume_mk")
        #expect(row.n == 9)
        #expect(row.buckets?[7] == 9)
    }
}

@Suite struct MetricPayloadTests {
    @Test func allEightMetricRowsWithValuesInTheirUnits() throws {
        let result = try convertFile(Samples.path("metrics-ios16.json"))
        #expect(result.succeeded)
        // The seed's eight, then what Organizer shows: exits, disk writes, CPU instructions, GPU
        // time and the one interval signpost (MetricRowsForOrganizer).
        #expect(
            result.rows.map(\.name) == [
                "fg_time", "hang_rate", "hitch_ratio", "mem_peak", "mem_avg", "cpu_time", "launch_mk", "resume_mk", "exit_fg_normal",
                "exit_fg_watchdog", "disk_writes", "cpu_instructions", "gpu_time", "thread_open_3685d22d_mk",
            ])
        #expect(result.rows.dropLast().allSatisfy { $0.kind == .metrics && $0.stack == nil })
        #expect(try result.row("fg_time").value == 3600)
        #expect(try result.row("hitch_ratio").value == 4)
        #expect(try result.row("mem_peak").value == 238)  // 243712 kB / 1024
        let average = try result.row("mem_avg")
        #expect(average.value == 131)  // 134144 kB / 1024
        #expect(average.n == 500)
        #expect(try result.row("cpu_time").value == 100)
        let first = result.rows[0]
        #expect(first.app_build == 118)
        #expect(first.app_version == "1.4")
        #expect(first.os == "16.0.2")
        #expect(first.device == "iPhone15,2")
        #expect(first.promotion == true)
        #expect(first.low_power == false)
        #expect(first.thermal == 0)
        #expect(first.period_start == "2022-11-14T00:00:00Z")
        #expect(first.period_end == "2022-11-14T23:59:00Z")
        #expect(result.rows.filter { $0.buckets != nil }.map(\.name) == ["hang_rate", "launch_mk", "resume_mk", "thread_open_3685d22d_mk"])
    }

    @Test func iOS13GroupedNumbersAndZoneTimestamps() throws {
        let result = try convertFile(Samples.path("metrics-ios13.json"))
        #expect(result.succeeded)
        #expect(try result.row("mem_peak").value == 195.3125)  // "200,000 kB", kB = 1024 bytes
        #expect(try result.row("fg_time").value == 7200)  // "7,200 sec"
        #expect(try result.row("mem_avg").value == 97.65625)
        #expect(result.rows[0].period_start == "2020-10-10T04:00:00Z")
        #expect(result.rows[0].promotion == false)
        // "30,000 ms" .. "30,010 ms": one launch above 5000 ms
        #expect(try result.row("launch_mk").buckets?[17] == 1)
    }

    @Test func iOS14LocalizedUnits() throws {
        let result = try convertFile(Samples.path("metrics-ios14-zh.json"))
        #expect(result.succeeded)
        #expect(result.warnings.isEmpty)
        #expect(try result.row("fg_time").value == 2717)  // "2,717秒"
        #expect(try result.row("cpu_time").value == 412)  // "412秒"
        #expect(try result.row("mem_peak").value == 1_106_818.0 / 1024)  // "1,106,818千字节"
        // "1,530毫秒"–"1,539毫秒": midpoint 1534.5 ms, the largest launch
        #expect(try result.row("launch_mk").max == 1534.5)
        #expect(try result.row("hitch_ratio").value == 3)  // "3 ms per s"
    }

    @Test(arguments: [
        ("20 secs.", UnitDimension.duration, 20.0), ("2,000 byte", .size, 2000), ("200,000 kB", .size, 204_800_000),
        ("2,717秒", .duration, 2717), ("1,530毫秒", .duration, 1.53), ("3 ms per s", .ratio, 3), ("20 sec", .duration, 20),
        ("1074 MB", .size, 1_126_170_624), ("1,106,818千字节", .size, 1_133_381_632), ("0.5 s", .duration, 0.5),
    ])
    func unitSpellings(text: String, dimension: UnitDimension, base: Double) throws {
        let reading = try MeasurementParser.parse(text).get()
        #expect(reading.dimension == dimension)
        #expect(abs(reading.number * reading.toBase - base) < 1e-9 * max(1, base))
    }

    /// `<digits> <unit>` is read on a short path; each reads as the same value with a fraction,
    /// which only the full reading takes.
    @Test(arguments: [
        "0 ms", "250 ms", "7 s", "1 kB", "999999999999999 MB", "3 ms per s", "12 kiloinstructions", "5 µs", "20 secs.", "2 秒",
        "40 ms ", "40  ms",
    ])
    func plainMeasurementsReadAsWithAFraction(text: String) throws {
        let space = try #require(text.firstIndex(of: " "))
        let withFraction = text[..<space] + ".0" + text[space...]
        #expect(try MeasurementParser.parse(text).get() == MeasurementParser.parse(String(withFraction)).get())
    }

    @Test func plainMeasurementsOutsideTheShortPath() throws {
        #expect(try MeasurementParser.parse("1000000000000000 ms").get().number == 1e15)  // 16 digits
        #expect(MeasurementParser.parse("10000000000000000 ms") == .failure(.outOfRange("10000000000000000 ms")))
        #expect(MeasurementParser.parse("12 parsecs") == .failure(.unknownUnit("parsecs")))
        #expect(MeasurementParser.parse("12 ms\u{0}") == .failure(.unknownUnit("ms\u{0}")))  // not "ms" padded
    }

    @Test func unknownUnitWarnsWithFilePayloadAndKeyAndTheRestConverts() throws {
        let text =
            "[" + metricPayload("") + ", "
            + metricPayload(
                """
                "memoryMetrics" : { "peakMemoryUsage" : "12 parsecs" },
                "applicationTimeMetrics" : { "cumulativeForegroundTime" : "5400 sec" }
                """) + "]"
        let result = convert(text, fileName: "dumps/day.json")
        #expect(result.succeeded)
        let warning = try #require(result.warnings.first)
        #expect(warning.description == "dumps/day.json: payload 2, key memoryMetrics.peakMemoryUsage: unknown unit 'parsecs'; row left out")
        #expect(result.rows.map(\.name) == ["fg_time"])
    }

    @Test func timestampForms() throws {
        var berlin = ConversionOptions()
        berlin.timeZone = try #require(TimeZone(identifier: "Europe/Berlin"))
        let zoneless = metricPayload(
            "\"cpuMetrics\" : { \"cumulativeCPUTime\" : \"1 sec\" }", begin: "2022-11-14 00:00:00", end: "2023-07-14 23:59:00")
        let row = try convert(zoneless, options: berlin).row("cpu_time")
        #expect(row.period_start == "2022-11-13T23:00:00Z")  // CET, UTC+1
        #expect(row.period_end == "2023-07-14T21:59:00Z")  // CEST, UTC+2
        let utc = try convert(zoneless).row("cpu_time")
        #expect(utc.period_start == "2022-11-14T00:00:00Z")
        var india = ConversionOptions()
        india.timeZone = try #require(TimeZone(secondsFromGMT: 5 * 3600 + 1800))
        #expect(try convert(zoneless, options: india).row("cpu_time").period_start == "2022-11-13T18:30:00Z")
        // A timestamp with its own zone ignores --timezone.
        let zoned = metricPayload(
            "\"cpuMetrics\" : { \"cumulativeCPUTime\" : \"1 sec\" }", begin: "2020-10-10 04:00:00 +0000", end: "2020-10-11 03:59:00 -0130")
        let zonedRow = try convert(zoned, options: berlin).row("cpu_time")
        #expect(zonedRow.period_start == "2020-10-10T04:00:00Z")
        #expect(zonedRow.period_end == "2020-10-11T05:29:00Z")
    }

    /// ASCII texts are read by bytes, others by Characters: both read each form alike.
    @Test(
        arguments: [
            ("iPhone OS 17.5.1 (21F90)", "17.5.1"), ("macOS 14.2", "14.2"), ("Mac OS X 10.14.0 (18A391)", "10.14.0"),
            ("iPadOS 18.0", "18.0"), ("iPhone OS  17.5", "17.5"), ("Version 17.5", nil), ("17.5", nil), ("iPhone OS 17..5", nil),
            ("iPhone OS 17.5.1 (21F90) 18.0", "17.5.1"), ("X OS 1.2", "1.2"), ("OS X 1.2", "1.2"), ("", nil),
        ] as [(String, String?)])
    func osNumberOfEachForm(text: String, number: String?) {
        #expect(ColumnPatterns.osNumber(text) == number)
        #expect(ColumnPatterns.osNumber(text + " (é)") == number)
    }

    @Test func buildAndOSVersion() throws {
        let row = try convert(metricPayload("\"cpuMetrics\" : { \"cumulativeCPUTime\" : \"1 sec\" }", build: "130.1")).row("cpu_time")
        #expect(row.app_build == 130)
        #expect(row.os == "18.2")
    }

    @Test(arguments: [
        ("appVersion", "1.2 beta"), ("build", "abc"), ("device", "iPhone"), ("device", "x86_64"), ("build", ""),
    ])
    func contextThatDoesNotFitIsAnErrorForThatPayload(field: String, value: String) throws {
        let good = metricPayload("\"cpuMetrics\" : { \"cumulativeCPUTime\" : \"1 sec\" }")
        let bad: String
        switch field {
        case "appVersion": bad = metricPayload("\"cpuMetrics\" : { \"cumulativeCPUTime\" : \"1 sec\" }", appVersion: value)
        case "build": bad = metricPayload("\"cpuMetrics\" : { \"cumulativeCPUTime\" : \"1 sec\" }", build: value)
        default: bad = metricPayload("\"cpuMetrics\" : { \"cumulativeCPUTime\" : \"1 sec\" }", device: value)
        }
        let result = convert("[\(bad), \(good)]", fileName: "mixed.json")
        #expect(!result.succeeded)
        #expect(result.rows.count == 1)  // the good payload still converts
        let error = try #require(result.errors.first)
        #expect(error.file == "mixed.json")
        #expect(error.place.hasPrefix("payload 1, key "))
        #expect(error.message.contains("'\(value)'"))
    }

    @Test func promotionTableAndOverride() throws {
        let payload = metricPayload("\"cpuMetrics\" : { \"cumulativeCPUTime\" : \"1 sec\" }", device: "iPhone14,7")  // iPhone 14: 60 Hz
        #expect(try convert(payload).row("cpu_time").promotion == false)
        var on = ConversionOptions()
        on.promotionOverride = true
        #expect(try convert(payload, options: on).row("cpu_time").promotion == true)
        let pro = metricPayload("\"cpuMetrics\" : { \"cumulativeCPUTime\" : \"1 sec\" }", device: "iPhone16,2")
        #expect(try convert(pro).row("cpu_time").promotion == true)
        var off = ConversionOptions()
        off.promotionOverride = false
        #expect(try convert(pro, options: off).row("cpu_time").promotion == false)
    }

    @Test func lowPowerFromMetadata() throws {
        let result = try convertFile(Samples.path("payloads.jsonl"))
        #expect(result.succeeded)
        #expect(try result.row("fg_time").low_power == true)
    }
}
