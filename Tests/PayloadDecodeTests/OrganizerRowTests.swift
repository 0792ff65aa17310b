import Foundation
import TestSupport
import Testing

@testable import PayloadDecode

/// What Xcode Organizer shows, as rows (docs/rows.md, "Exits, disk writes and signposts"), held to
/// the payloads' own numbers read here with JSONSerialization: every metric payload of the samples,
/// of the real and Xcode-simulated payloads copied from public repositories
/// (Tests/Fixtures/real-metrickit, PROVENANCE), and of bench/run's real-shaped corpus.
@Suite struct MetricRowsForOrganizer {
    static var files: [String] {
        let real = Repository.testFixtures.appendingPathComponent("real-metrickit")
        let shaped = Repository.testFixtures.appendingPathComponent("rows-golden/real-shaped")
        let folders = [(Repository.samples, ""), (real, ""), (shaped, "")]
        return folders.flatMap { folder, _ in
            ((try? FileManager.default.contentsOfDirectory(atPath: folder.path)) ?? [])
                .filter { $0.hasSuffix(".json") || $0.hasSuffix(".jsonl") }.sorted()
                .map { folder.appendingPathComponent($0).path }
        }.filter { !OrganizerOracle.payloads(in: $0).isEmpty }
    }

    /// The exit rows' values sum to the payloads' counts, per reason and state; each interval
    /// signpost gives one interval row whose `n` is its histogram's count; disk writes are the
    /// payloads' in MB (KiB / 1024), CPU instructions the kiloinstructions × 1000, GPU time seconds.
    @Test(arguments: files)
    func rowsHoldThePayloadsNumbers(file: String) throws {
        let expected = OrganizerOracle.expected(in: file)
        let rows = convertFile(file).rows
        var exits: [String: Double] = [:]
        for row in rows where ExitReason.of(rowName: row.name) != nil { exits[row.name, default: 0] += row.value ?? -1 }
        #expect(exits == expected.exits, "\(file)")
        let signposts = rows.filter { $0.kind == .interval && $0.name.hasSuffix("_mk") }
        #expect(signposts.map(\.name).sorted() == expected.signposts.map(\.name).sorted(), "\(file)")
        #expect(
            signposts.map { "\($0.name) \($0.n) \($0.buckets?.reduce(0, +) ?? -1)" }.sorted()
                == expected.signposts.map { "\($0.name) \($0.count) \($0.count)" }.sorted(), "\(file)")
        let disk = rows.filter { $0.name == "disk_writes" }.compactMap(\.value)
        #expect(disk.count == expected.diskMegabytes.count, "\(file)")
        for (got, want) in zip(disk, expected.diskMegabytes) { #expect(abs(got - want) < 1e-9, "\(file): \(got) MB, \(want) MB") }
        #expect(rows.filter { $0.name == "cpu_instructions" }.compactMap(\.value) == expected.instructions, "\(file)")
        #expect(rows.filter { $0.name == "gpu_time" }.compactMap(\.value) == expected.gpuSeconds, "\(file)")
        #expect(rows.allSatisfy { $0.tableViolations().isEmpty }, "\(file): \(rows.flatMap { $0.tableViolations() })")
    }

    /// The zh-CN iOS 14 sample: `88,213千字节` and `3,990,413,161 kiloinstructions`, and its exits.
    @Test func localizedNumbersAndUnits() throws {
        let rows = convertFile(try Samples.path("metrics-ios14-zh.json")).rows
        #expect(try #require(rows.first { $0.name == "disk_writes" }?.value) == 88213.0 / 1024)
        #expect(rows.first { $0.name == "cpu_instructions" }?.value == 3_990_413_161_000)
        #expect(
            rows.filter { $0.name.hasPrefix("exit_") }.map { "\($0.name)=\(Int($0.value ?? -1))" } == [
                "exit_fg_normal=4", "exit_fg_abnormal=1", "exit_bg_memory_pressure=6", "exit_bg_locked_file=1",
            ])
    }

    /// An event signpost (no signpostIntervalData) has no durations and gives no row; a broken
    /// histogram leaves its row out with a warning and the rest converts.
    @Test func eventSignpostsGiveNoRowAndABrokenOneIsNamed() {
        let payload = metricPayload(
            """
            "signpostMetrics" : [
              { "signpostName" : "tap", "signpostCategory" : "UI", "totalSignpostCount" : 9 },
              { "signpostName" : "LoadFeed", "signpostCategory" : "Feed", "totalSignpostCount" : 3,
                "signpostIntervalData" : { "histogrammedSignpostDurations" : { "histogramNumBuckets" : 1,
                  "histogramValue" : { "0" : { "bucketStart" : "10 ms", "bucketEnd" : "20 ms", "bucketCount" : 3 } } } } },
              { "signpostName" : "broken", "signpostCategory" : "Feed", "totalSignpostCount" : 1,
                "signpostIntervalData" : { "histogrammedSignpostDurations" : { "histogramNumBuckets" : 1,
                  "histogramValue" : { "0" : { "bucketStart" : "10 fortnights", "bucketEnd" : "20 ms", "bucketCount" : 1 } } } } }
            ]
            """)
        let result = convert(payload)
        let intervals = result.rows.filter { $0.kind == .interval }
        #expect(intervals.map(\.name) == [SignpostRowName.make(category: "Feed", name: "LoadFeed")])
        #expect(intervals.first?.n == 3 && intervals.first?.buckets?[4] == 3)  // midpoint 15 ms: (12, 16]
        #expect(result.warnings.map(\.message).contains { $0.contains("unknown unit 'fortnights'") }, "\(result.warnings)")
    }
}

/// The signpost name rule: snake_case, 8 hex of SHA-1 of category and name, `_mk`.
@Suite struct SignpostRowNames {
    @Test(arguments: [
        ("LoadFeed", "load_feed"), ("load_feed", "load_feed"), ("HTTPRequest", "httprequest"), ("thread open", "thread_open"),
        ("Decode JSON v2", "decode_json_v2"), ("2fa", "s2fa"), ("画像", "signpost"), ("--", "signpost"),
        ("aVeryLongSignpostNameThatGoesOnAndOn", "a_very_long_signpost_name"),
    ])
    func snakeCase(name: String, expected: String) {
        #expect(SignpostRowName.snakeCase(name) == expected)
    }

    /// ASCII names are read byte by byte; every ASCII name gets the name the Character rule gives
    /// (5,000 names of up to 40 characters from every ASCII byte, a fixed seed).
    @Test func asciiNamesByBytesAsByCharacters() {
        var state: UInt64 = 0x9E37_79B9_7F4A_7C15
        func next(_ bound: Int) -> Int {
            state = state &* 6_364_136_223_846_793_005 &+ 1_442_695_040_888_963_407
            return Int((state >> 33) % UInt64(bound))
        }
        // Letters and digits weighted up, so names have runs of them as signposts do.
        let letters = Array("aAbBzZmMqQ0123456789".utf8)
        for _ in 0..<5_000 {
            let bytes = (0..<next(41)).map { _ in next(3) == 0 ? UInt8(next(128)) : letters[next(letters.count)] }
            let name = String(decoding: bytes, as: UTF8.self)
            #expect(SignpostRowName.snakeCase(name) == SignpostRowName.snakeCaseOfCharacters(name), "\(Array(name.utf8))")
        }
    }

    /// Names the table takes, never two signposts on one name: the same name in two categories,
    /// names equal in snake_case, long names equal in their first 25 characters.
    @Test func namesFitTheTableAndNeverMerge() {
        let signposts = [
            ("Perf", "Load"), ("Feed", "Load"), ("Feed", "LoadFeed"), ("Feed", "load_feed"), ("Feed", "load feed"),
            ("A", "aVeryLongSignpostNameThatGoesOnAndOn1"), ("A", "aVeryLongSignpostNameThatGoesOnAndOn2"), ("", ""), ("画像", "読み込み"),
        ]
        let names = signposts.map { SignpostRowName.make(category: $0.0, name: $0.1) }
        #expect(Set(names).count == signposts.count, "\(names)")
        for name in names {
            #expect(ColumnPatterns.isName(name), "\(name)")
            #expect(name.hasSuffix("_mk"))
        }
        #expect(SignpostRowName.make(category: "Perf", name: "thread_open") == "thread_open_3685d22d_mk")
    }
}

/// The payloads' numbers, read with JSONSerialization: what the rows must hold.
enum OrganizerOracle {
    struct Expected {
        var exits: [String: Double] = [:]
        var signposts: [(name: String, count: Int)] = []
        var diskMegabytes: [Double] = []
        var instructions: [Double] = []
        var gpuSeconds: [Double] = []
    }

    /// The metric payloads of a file: one object, an array of them, or JSON Lines.
    static func payloads(in path: String) -> [[String: Any]] {
        guard let data = FileManager.default.contents(atPath: path) else { return [] }
        var documents: [Any] = []
        if let whole = try? JSONSerialization.jsonObject(with: data) {
            documents = (whole as? [Any]) ?? [whole]
        } else {
            for line in String(decoding: data, as: UTF8.self).split(separator: "\n") {
                if let object = try? JSONSerialization.jsonObject(with: Data(line.utf8)) { documents.append(object) }
            }
        }
        return documents.compactMap { $0 as? [String: Any] }.filter { $0["timeStampBegin"] != nil && $0["metaData"] != nil }
    }

    static func expected(in path: String) -> Expected {
        var expected = Expected()
        let reasons: [String: String] = Dictionary(uniqueKeysWithValues: ExitReason.allCases.map { ("\($0.payloadKey)", $0.rawValue) })
        for payload in payloads(in: path) {
            if let exits = payload["applicationExitMetrics"] as? [String: Any] {
                for (state, prefix) in [("foregroundExitData", "exit_fg_"), ("backgroundExitData", "exit_bg_")] {
                    for (key, value) in exits[state] as? [String: Any] ?? [:] {
                        guard let reason = reasons[key], let count = value as? Int else { continue }
                        expected.exits[prefix + reason, default: 0] += Double(count)
                    }
                }
            }
            for signpost in payload["signpostMetrics"] as? [[String: Any]] ?? [] {
                guard let interval = signpost["signpostIntervalData"] as? [String: Any],
                    let histogram = interval["histogrammedSignpostDurations"] as? [String: Any],
                    let buckets = histogram["histogramValue"] as? [String: Any],
                    let name = signpost["signpostName"] as? String, let category = signpost["signpostCategory"] as? String
                else { continue }
                let count = buckets.values.compactMap { ($0 as? [String: Any])?["bucketCount"] as? Int }.reduce(0, +)
                expected.signposts.append((SignpostRowName.make(category: category, name: name), count))
            }
            if let text = (payload["diskIOMetrics"] as? [String: Any])?["cumulativeLogicalWrites"] as? String,
                let (number, unit) = measurement(text)
            {
                let bytes = ["kB": 1024.0, "KB": 1024, "千字节": 1024, "MB": 1_048_576, "兆字节": 1_048_576, "GB": 1_073_741_824, "bytes": 1][unit]
                if let bytes { expected.diskMegabytes.append(number * bytes / 1_048_576) }
            }
            if let text = (payload["cpuMetrics"] as? [String: Any])?["cumulativeCPUInstructions"] as? String,
                let (number, unit) = measurement(text), unit == "kiloinstructions"
            {
                expected.instructions.append(number * 1000)
            }
            if let text = (payload["gpuMetrics"] as? [String: Any])?["cumulativeGPUTime"] as? String, let (number, unit) = measurement(text) {
                let seconds = ["sec": 1.0, "secs.": 1, "s": 1, "秒": 1, "ms": 0.001, "毫秒": 0.001][unit]
                if let seconds { expected.gpuSeconds.append(number * seconds) }
            }
        }
        return expected
    }

    /// `"1,300 kB"` → (1300, "kB"), `"88,213千字节"` → (88213, "千字节").
    static func measurement(_ text: String) -> (Double, String)? {
        // ASCII digits only: `千` is a number to Character.isNumber.
        let digits = text.prefix { ($0.isASCII && $0.isNumber) || $0 == "," || $0 == "." }
        guard let number = Double(digits.replacingOccurrences(of: ",", with: "")) else { return nil }
        return (number, text.dropFirst(digits.count).trimmingCharacters(in: .whitespaces))
    }
}
