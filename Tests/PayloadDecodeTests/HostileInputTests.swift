import Foundation
import Testing

@testable import PayloadDecode

@Suite struct HostileInputTests {
    let cpu = "\"cpuMetrics\" : { \"cumulativeCPUTime\" : \"1 sec\" }"

    @Test func nestingOf100000IsAnErrorNotACrash() throws {
        let deep = String(repeating: "[", count: 100_000) + String(repeating: "]", count: 100_000)
        let result = convert(deep, fileName: "deep.json")
        #expect(!result.succeeded)
        let error = try #require(result.errors.first)
        #expect(error.file == "deep.json")
        #expect(error.message.contains("nested deeper than 512"))
        #expect(error.place == "line 1, column 513")
    }

    @Test func subFramesDeeperThan130AreRefused() throws {
        var chain = ""
        for depth in 0..<131 {
            chain = frameJSON(
                "YuiApp", uuid: appUUID, address: appLoad + UInt64(depth), offset: UInt64(depth), subFrames: chain.isEmpty ? [] : [chain])
        }
        let text = diagnosticPayload(
            "\"crashDiagnostics\" : [ { \"callStackTree\" : \(callStackTree([chain])), \"diagnosticMetaData\" : \(diagnosticMeta("\"signal\" : 11")) } ]"
        )
        let result = convert(text)
        #expect(!result.succeeded)
        #expect(result.rows.isEmpty)
        #expect(result.errors.first?.message.contains("deeper than 130") == true)
    }

    @Test func subFrames100000DeepStopAtTheJSONLimit() throws {
        let open = String(repeating: "{\"address\":1,\"subFrames\":[", count: 100_000)
        let close = String(repeating: "]}", count: 100_000)
        let text = diagnosticPayload(
            "\"hangDiagnostics\" : [ { \"callStackTree\" : { \"callStacks\" : [ { \"callStackRootFrames\" : [ \(open)\(close) ] } ] } } ]")
        let result = convert(text)
        #expect(!result.succeeded)
        #expect(result.errors.first?.message.contains("nested deeper") == true)
    }

    @Test(arguments: ["NaN", "Infinity", "-Infinity", "nan", "01", "1.", ".5", "+1", "0x10"])
    func nonJSONNumbersAreSyntaxErrors(literal: String) throws {
        let text = metricPayload("\"memoryMetrics\" : { \"averageSuspendedMemory\" : { \"averageValue\" : \"1 MB\", \"sampleCount\" : \(literal) } }")
        let result = convert(text)
        #expect(!result.succeeded)
        #expect(result.errors.first?.message.hasPrefix("invalid JSON") == true)
        #expect(result.errors.first?.place.hasPrefix("line 11, column") == true)
    }

    @Test(arguments: ["1e308", "-3", "2.5", "99999999999"])
    func absurdCountsAreRefusedWithAMessage(count: String) throws {
        let hangs = "{ \"histogramValue\" : { \"0\" : { \"bucketStart\" : \"250 ms\", \"bucketEnd\" : \"259 ms\", \"bucketCount\" : \(count) } } }"
        let result = convert(metricPayload("\(cpu), \"applicationResponsivenessMetrics\" : { \"histogrammedAppHangTime\" : \(hangs) }"))
        #expect(result.succeeded)
        #expect(result.rows.map(\.name) == ["cpu_time"])
        let warning = try #require(result.warnings.first)
        #expect(warning.place == "payload 1, key applicationResponsivenessMetrics.histogrammedAppHangTime.histogramValue.0.bucketCount")
    }

    @Test(arguments: ["1e308 sec", "-5 sec", "1e400 sec"])
    func absurdMeasurementsAreRefused(value: String) throws {
        let result = convert(metricPayload("\"cpuMetrics\" : { \"cumulativeCPUTime\" : \"\(value)\" }"))
        #expect(result.rows.isEmpty)
        #expect(result.warnings.first?.place == "payload 1, key cpuMetrics.cumulativeCPUTime")
    }

    @Test(arguments: ["18446744073709551616", "-4096", "1e30", "99999999999999999999999999"])
    func offsetsPast64BitsAreRefusedNotTrapped(number: String) throws {
        let frame = "{ \"binaryName\" : \"YuiApp\", \"address\" : \(number), \"offsetIntoBinaryTextSegment\" : \(number) }"
        let good = frameJSON("YuiApp", uuid: appUUID, address: appLoad + 0x10, offset: 0x10)
        let tree = "{ \"callStacks\" : [ { \"callStackRootFrames\" : [ \(frame.dropLast()), \"subFrames\" : [ \(good) ] } ] } ] }"
        let text = diagnosticPayload(
            "\"crashDiagnostics\" : [ { \"callStackTree\" : \(tree), \"diagnosticMetaData\" : \(diagnosticMeta("\"signal\" : 11")) } ]")
        let result = convert(text)
        #expect(result.succeeded)
        #expect(try result.row("crash").stack == [StackFrame(image: "YuiApp", uuid: appUUID, offset: 0x10)])
        #expect(result.warnings.contains { $0.place.hasSuffix("callStackRootFrames[0].address") })
    }

    @Test func largestOffsetIsAccepted() throws {
        // Without an address there is nothing to compare with: the field is the offset.
        let frame = "{ \"offsetIntoBinaryTextSegment\" : 18446744073709551615 }"
        let text = diagnosticPayload(
            "\"crashDiagnostics\" : [ { \"callStackTree\" : \(callStackTree([frame])), \"diagnosticMetaData\" : \(diagnosticMeta("\"signal\" : 11")) } ]"
        )
        #expect(try convert(text).row("crash").stack?.first?.offset == UInt64.max)
    }

    @Test(arguments: [
        ("{", "unexpected end of input"), ("{\"a\" : }", "a value was expected"), ("[1, 2", "unexpected end of input inside an array"),
        ("{\"a\" : \"x\n\"}", "control character"), ("{\"a\" : \"\\q\"}", "invalid escape"), ("\"abc", "unterminated string"),
        ("{} {}", "after the end of the JSON value"), ("", "empty input"), ("{\"a\" 1}", "expected ':'"), ("tru", "invalid literal"),
    ])
    func truncatedAndInvalidJSON(text: String, message: String) throws {
        let result = convert(text, fileName: "bad.json")
        #expect(!result.succeeded)
        let error = try #require(result.errors.first)
        #expect(error.message.contains(message))
        #expect(error.file == "bad.json")
    }

    @Test func wrongTypesAreReportedNotTrapped() throws {
        let result = convert(
            metricPayload(
                """
                "cpuMetrics" : { "cumulativeCPUTime" : 100 },
                "memoryMetrics" : [ 1, 2 ],
                "applicationTimeMetrics" : { "cumulativeForegroundTime" : "60 sec" },
                "applicationResponsivenessMetrics" : { "histogrammedAppHangTime" : { "histogramValue" : [ ] } }
                """))
        #expect(result.succeeded)
        #expect(result.rows.map(\.name) == ["fg_time"])
        #expect(result.warnings.count == 3)
        let wrongMeta = convert("{ \"metaData\" : 5, \"timeStampBegin\" : \"2024-01-01 00:00:00\", \"timeStampEnd\" : \"2024-01-01 00:00:00\" }")
        #expect(!wrongMeta.succeeded)
        #expect(convert("[1, \"x\", null]").errors.count == 3)
        #expect(convert("[[{}]]").errors.first?.message.contains("array inside an array") == true)
    }

    @Test func badPayloadInAnArrayIsReportedAndTheOthersConvert() throws {
        let bad = metricPayload(cpu, appVersion: "1.2 beta")
        let result = convert("[\(metricPayload(cpu)), \(bad), \(metricPayload(cpu, build: "131"))]", fileName: "three.json")
        #expect(!result.succeeded)
        #expect(result.rows.map(\.app_build) == [130, 131])
        #expect(result.errors.map(\.place) == ["payload 2, key appVersion"])
    }

    @Test func badLineInJSONLinesIsReportedAndTheOthersConvert() throws {
        func line(_ build: String) -> String {
            metricPayload(cpu, build: build).replacingOccurrences(of: "\n", with: " ")
        }
        let text = [line("130"), "{\"timeStampBegin\" : \"2024-", line("131"), "", line("132")].joined(separator: "\n")
        let result = convert(text, fileName: "day.jsonl")
        #expect(!result.succeeded)
        #expect(result.rows.map(\.app_build) == [130, 131, 132])
        #expect(result.errors.count == 1)
        #expect(result.errors.first?.place.hasPrefix("line 2, column") == true)
        // The same when the first line is the bad one.
        let firstBad = convert([#"{"broken":"#, line("130"), line("131")].joined(separator: "\n"))
        #expect(firstBad.rows.map(\.app_build) == [130, 131])
        #expect(firstBad.errors.first?.place.hasPrefix("line 1") == true)
    }

    @Test func limitsOnFileAndLineBytes() throws {
        var options = ConversionOptions()
        options.maxFileBytes = 100
        let result = convert(metricPayload(cpu), options: options)
        #expect(!result.succeeded)
        #expect(result.errors.first?.message.contains("larger than 100 bytes") == true)

        options = ConversionOptions()
        options.maxLineBytes = 400
        let short = metricPayload(cpu).replacingOccurrences(of: "\n", with: " ")
        let long = metricPayload(cpu + ", \"gpuMetrics\" : { \"cumulativeGPUTime\" : \"" + String(repeating: "9", count: 500) + " sec\" }")
            .replacingOccurrences(of: "\n", with: " ")
        let lines = convert([short, long, short].joined(separator: "\n"), options: options)
        #expect(lines.rows.count == 2)
        #expect(lines.errors.map(\.place) == ["line 2"])
    }

    @Test func byteOrderMarkAndCRLFLineEnds() throws {
        let pretty = "\u{FEFF}" + metricPayload(cpu).replacingOccurrences(of: "\n", with: "\r\n")
        #expect(convert(pretty).rows.map(\.name) == ["cpu_time"])
        let line = metricPayload(cpu).replacingOccurrences(of: "\n", with: " ")
        let lines = convert("\u{FEFF}" + [line, line].joined(separator: "\r\n") + "\r\n")
        #expect(lines.succeeded)
        #expect(lines.rows.count == 2)
    }

    @Test func unknownDocumentsAreErrors() throws {
        #expect(convert("{\"hello\" : 1}").errors.first?.message.contains("not a MetricKit payload") == true)
        #expect(convert("42").errors.first?.message.contains("not a MetricKit payload") == true)
        #expect(convert("{ \"timeStampBegin\" : \"2024-01-01 00:00:00\" }").warnings.first?.message.contains("neither") == true)
    }

    @Test(arguments: ["2024-13-01 00:00:00", "2024-02-30 00:00:00", "yesterday", "2024-01-01 00:00:00 +99", "2024-01-01T25:00:00Z"])
    func badTimestampsAreErrorsForThePayload(stamp: String) throws {
        let result = convert(metricPayload(cpu, begin: stamp))
        #expect(!result.succeeded)
        #expect(result.errors.first?.place == "payload 1, key timeStampBegin")
    }

    @Test func periodEndBeforeStartIsAnError() throws {
        let result = convert(metricPayload(cpu, begin: "2024-01-02 00:00:00", end: "2024-01-01 00:00:00"))
        #expect(result.errors.first?.message.contains("before timeStampBegin") == true)
    }

    @Test func missingFileIsReportedByName() throws {
        let result = convertFile("/nonexistent/dump.json")
        #expect(!result.succeeded)
        #expect(result.errors.first?.description.hasPrefix("/nonexistent/dump.json: cannot open") == true)
    }

    /// Random byte soup and mutations of a real sample never trap (a poor man's fuzzer, fixed seed).
    @Test func mutatedSamplesNeverTrap() throws {
        let original = try Array(Data(contentsOf: URL(fileURLWithPath: Samples.path("diagnostics-ios18-crashes-hang.json"))))
        var generator = SplitMix(seed: 130)
        let alphabet = Array("{}[]\",:0123456789-.eE \n\\ntrufalsNI".utf8)
        for _ in 0..<300 {
            var bytes = original
            for _ in 0..<Int(generator.next() % 8 + 1) {
                let position = Int(generator.next() % UInt64(bytes.count))
                switch generator.next() % 3 {
                case 0: bytes[position] = alphabet[Int(generator.next() % UInt64(alphabet.count))]
                case 1: bytes.remove(at: position)
                default: bytes.insert(alphabet[Int(generator.next() % UInt64(alphabet.count))], at: position)
                }
            }
            if generator.next() % 4 == 0 { bytes = Array(bytes.prefix(Int(generator.next() % UInt64(bytes.count)))) }
            var reports = 0
            _ = bytes.withUnsafeBytes {
                RowSource.rows(fromBytes: $0, fileName: "fuzz", options: ConversionOptions(), report: { _ in reports += 1 }, emit: { _ in })
            }
        }
    }
}

struct SplitMix {
    var state: UInt64
    init(seed: UInt64) { state = seed }
    mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }
}
