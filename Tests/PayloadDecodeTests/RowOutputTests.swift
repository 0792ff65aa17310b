import Foundation
import Testing

@testable import PayloadDecode

@Suite struct RowKeyTests {
    @Test func sameInputTwiceIsByteIdentical() throws {
        for name in Samples.all {
            let first = RowWriter.text(of: try convertFile(Samples.path(name)).rows, format: .json)
            let second = RowWriter.text(of: try convertFile(Samples.path(name)).rows, format: .json)
            #expect(first == second, "\(name)")
            #expect(first.count > 10)
        }
    }

    @Test func reformattingAndKeyOrderKeepTheKeys() throws {
        let path = try Samples.path("diagnostics-ios18-crashes-hang.json")
        let original = convertFile(path).rows
        // Re-serialize compactly with sorted keys: other whitespace, other key order, escaped slashes.
        let object = try JSONSerialization.jsonObject(with: Data(contentsOf: URL(fileURLWithPath: path)))
        let compact = try JSONSerialization.data(withJSONObject: object, options: [.sortedKeys])
        let reformatted = convert(String(decoding: compact, as: UTF8.self)).rows
        #expect(original.map(\.row_key) == reformatted.map(\.row_key))
        #expect(original == reformatted)
        // Numbers in another spelling (1.0 for 1) keep the key too.
        let respelled = String(decoding: compact, as: UTF8.self).replacingOccurrences(of: "\"sampleCount\":1,", with: "\"sampleCount\":1.0,")
        #expect(convert(respelled).rows.map(\.row_key) == original.map(\.row_key))
    }

    /// The key recomputed from an independent canonical text (Foundation's sorted-keys writer)
    /// agrees, also for a payload whose canonical text is larger than the hashing buffer.
    @Test func keyIsVersion5OfTheCanonicalDigestNameIndexAndUser() throws {
        let diagnostic = try String(contentsOfFile: Samples.path("diagnostic-single-hang.json"), encoding: .utf8)
        let text = diagnosticPayload("\"hangDiagnostics\" : [ " + Array(repeating: diagnostic, count: 20).joined(separator: ", ") + " ]")
        var options = ConversionOptions()
        options.userID = "0b9c7d3e-1f2a-4b5c-8d6e-7f8091a2b3c4"
        let rows = convert(text, options: options).rows
        #expect(rows.count == 20)
        let object = try JSONSerialization.jsonObject(with: Data(text.utf8))
        let canonical = try JSONSerialization.data(withJSONObject: object, options: [.sortedKeys, .withoutEscapingSlashes])
        #expect(canonical.count > 1 << 16)
        var hasher = SHA1()
        canonical.withUnsafeBytes { hasher.update($0) }
        let digest = hasher.finish()
        for (ordinal, row) in rows.enumerated() {
            let name = digest + Array("\nhang\n\(ordinal)\n\(options.userID!)".utf8)
            #expect(row.row_key == NameBasedUUID.make(namespace: NameBasedUUID.rowKeyNamespace, name: name))
        }
    }

    @Test func keysDependOnContentNameIndexAndUser() throws {
        let rows = try convertFile(Samples.path("diagnostics-ios18-crashes-hang.json")).rows
        #expect(Set(rows.map(\.row_key)).count == rows.count)
        // Two identical crashes in one payload are two rows with two keys.
        let crash = try String(contentsOfFile: Samples.path("diagnostic-single-hang.json"), encoding: .utf8)
        let twice = diagnosticPayload("\"hangDiagnostics\" : [ \(crash), \(crash) ]")
        let twins = convert(twice).rows
        #expect(twins.count == 2)
        #expect(twins[0].row_key != twins[1].row_key)
        // Another user, other keys; the same user, the same keys.
        var alice = ConversionOptions()
        alice.userID = "0b9c7d3e-1f2a-4b5c-8d6e-7f8091a2b3c4"
        var bob = ConversionOptions()
        bob.userID = "5e6f7a8b-9c0d-4e1f-a2b3-c4d5e6f70819"
        let path = try Samples.path("metrics-ios16.json")
        let aliceRows = convertFile(path, options: alice).rows
        let bobRows = convertFile(path, options: bob).rows
        #expect(Set(aliceRows.map(\.row_key)).isDisjoint(with: bobRows.map(\.row_key)))
        #expect(Set(aliceRows.map(\.row_key)).isDisjoint(with: convertFile(path).rows.map(\.row_key)))
        #expect(aliceRows.map(\.row_key) == convertFile(path, options: alice).rows.map(\.row_key))
        #expect(aliceRows.allSatisfy { $0.user_id == alice.userID })
        // A changed value changes the key.
        let changed = try String(contentsOfFile: path, encoding: .utf8).replacingOccurrences(of: "\"100 sec\"", with: "\"101 sec\"")
        #expect(convert(changed).rows.map(\.row_key) != convertFile(path).rows.map(\.row_key))
    }

    @Test func rowKeysAreVersion5UUIDs() throws {
        for row in try convertFile(Samples.path("payloads.jsonl")).rows {
            let key = Array(row.row_key.utf8)
            #expect(key.count == 36)
            #expect(key[14] == UInt8(ascii: "5"))
            #expect("89ab".utf8.contains(key[19]))
        }
    }
}

@Suite struct SampleTableChecks {
    /// Every row of every sample passes the yui_perf table's checks.
    @Test(arguments: Samples.all)
    func everyRowFitsTheTable(sample: String) throws {
        let result = try convertFile(Samples.path(sample))
        #expect(result.succeeded, "\(result.errors)")
        #expect(result.warnings.isEmpty, "\(result.warnings)")
        #expect(!result.rows.isEmpty)
        for row in result.rows {
            #expect(row.tableViolations() == [], "\(sample) \(row.name)")
            #expect(ColumnPatterns.isName(row.name))
            if let buckets = row.buckets { #expect(buckets.count == 18) }
            if row.kind == .diagnostic {
                let stack = try #require(row.stack)
                #expect((1...32).contains(stack.count))
            } else {
                #expect(row.stack == nil)
            }
            #expect(row.period_end >= row.period_start)
        }
    }

    @Test func violationsAreFound() {
        var row = Row(
            user_id: "not-a-uuid", row_key: "x", kind: .metrics, name: "Fg", app_build: 1, app_version: "1.2 beta", os: "17",
            device: "Pixel 8", promotion: false, low_power: false, thermal: 0, period_start: "2024-01-02T00:00:00Z",
            period_end: "2024-01-01T00:00:00Z", n: 1, buckets: [1, 2], p50: nil, p95: nil, max: nil, value: nil,
            stack: [StackFrame(image: "a", uuid: nil, offset: 1)])
        let violations = row.tableViolations()
        for fragment in ["name", "app_version", "device", "buckets", "stack on a metrics row", "period_end", "user_id", "row_key"] {
            #expect(violations.contains { $0.contains(fragment) }, "\(fragment)")
        }
        row.kind = .diagnostic
        row.stack = []
        #expect(row.tableViolations().contains { $0.contains("not 1 to 100") })
    }

    @Test(arguments: [
        ("iPhone17,2", true), ("iPad16,6", true), ("arm64", true), ("MacBookPro18,3", true), ("iPhone", false),
        ("iPhone17", false), ("17,2", false), ("iPhone17,2 ", false), ("x86_64", false), ("iPhone17,", false),
    ])
    func devicePattern(device: String, fits: Bool) {
        #expect(ColumnPatterns.isDevice(device) == fits)
    }

    @Test(arguments: [
        ("4c4c4c4c-5555-3144-a1b2-000000000130", "4C4C4C4C-5555-3144-A1B2-000000000130"),
        ("4C4C4C4C55553144A1B2000000000130", "4C4C4C4C-5555-3144-A1B2-000000000130"),
        ("4C4C4C4C-55553-144-A1B2-000000000130", nil), ("4C4C4C4C-5555-3144-A1B2-00000000013G", nil), ("", nil),
        ("4C4C4C4C-5555-3144-A1B2-0000000001300", nil),
    ])
    func uuidCanonicalForm(text: String, canonical: String?) {
        #expect(ColumnPatterns.canonicalUUID(text) == canonical)
    }

    @Test(arguments: [("17.2.1", true), ("1", true), ("1.2 beta", false), ("1..2", false), (".1", false), ("1.", false), ("", false)])
    func dottedNumberPattern(text: String, fits: Bool) {
        #expect(ColumnPatterns.isDottedNumber(text) == fits)
    }
}

@Suite struct RowFormatTests {
    func sampleRows() throws -> [Row] {
        var options = ConversionOptions()
        options.userID = "0b9c7d3e-1f2a-4b5c-8d6e-7f8091a2b3c4"
        return try Samples.all.flatMap { try convertFile(Samples.path($0), options: options).rows }
    }

    @Test func jsonHasEveryColumnOfEveryRowInOrder() throws {
        let rows = try sampleRows()
        let text = RowWriter.text(of: rows, format: .json)
        let parsed = try #require(try JSONSerialization.jsonObject(with: Data(text.utf8)) as? [[String: Any]])
        #expect(parsed.count == rows.count)
        #expect(parsed.allSatisfy { Set($0.keys) == Set(Row.columns) })
        // Column order as Row.columns, nulls written out.
        let firstLine = try #require(text.split(separator: "\n").dropFirst().first)
        var position = firstLine.startIndex
        for column in Row.columns {
            let range = try #require(firstLine.range(of: "\"\(column)\":", range: position..<firstLine.endIndex))
            position = range.upperBound
        }
        #expect(firstLine.contains("\"buckets\":null"))
        #expect(RowWriter.text(of: [], format: .json) == "[]\n")
    }

    @Test func rowFilesReadBackToTheSameRows() throws {
        let rows = try sampleRows()
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("rows-\(getpid())-\(UInt64.random(in: 0...UInt64.max))")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        for format in [RowFormat.json, .jsonl] {
            let file = folder.appendingPathComponent("rows.\(format.rawValue)")
            try RowWriter.text(of: rows, format: format).write(to: file, atomically: true, encoding: .utf8)
            let back = convertFile(file.path)
            #expect(back.succeeded, "\(back.errors)")
            #expect(back.rows == rows)
        }
    }

    @Test func brokenRowObjectsAreReported() {
        let result = convert("[{\"row_key\":\"x\",\"kind\":\"metrics\"}]", fileName: "rows.json")
        #expect(!result.succeeded)
        #expect(result.errors.first?.description.hasPrefix("rows.json: line 1, payload 1: row: key name: missing") == true)
    }

    @Test func csvQuotesWhatNeedsQuoting() throws {
        let rows = try convertFile(Samples.path("diagnostics-ios18-crashes-hang.json")).rows
        let lines = RowWriter.text(of: rows, format: .csv).split(separator: "\n")
        #expect(
            lines.first
                == "user_id,row_key,kind,name,app_build,app_version,os,device,promotion,low_power,thermal,period_start,period_end,n,buckets,p50,p95,max,value,stack,exception_type,signal,termination_code,bundle_id"
        )
        #expect(lines.count == 4)
        let crash = String(lines[1])
        // The crash's reason at the end of its line: EXC_BREAKPOINT (6), SIGTRAP (5), no termination code.
        #expect(crash.hasSuffix("}]\",6,5,,app.yui.Yui"))
        #expect(
            crash.hasPrefix(
                ",\(rows[0].row_key),diagnostic,crash,130,2.1.0,18.2,\"iPhone17,2\",true,false,0,2024-12-20T09:41:07Z,2024-12-20T09:41:07Z,1,,,,,,\"[{\"\"image\"\":\"\"libswiftCore.dylib\"\""
            ))
        let metrics = RowWriter.text(of: try convertFile(Samples.path("metrics-ios16.json")).rows, format: .csv)
        #expect(metrics.contains(",\"{0,0,0,0,0,0,0,0,0,0,0,0,8,3,0,1,0,1}\","))
    }

    @Test func sqlInsertsWithConflictClause() throws {
        let rows = try convertFile(Samples.path("metrics-ios16.json")).rows + convertFile(Samples.path("diagnostic-single-hang.json")).rows
        let lines = RowWriter.text(of: rows, format: .sql).split(separator: "\n")
        #expect(lines.count == rows.count)
        let prefix =
            "INSERT INTO public.yui_perf (user_id, row_key, kind, name, app_build, app_version, os, device, promotion, low_power, thermal, period_start, period_end, n, buckets, p50, p95, max, value, stack, exception_type, signal, termination_code, bundle_id) VALUES (NULL, '"
        // No conflict target: the partitioned table's unique key is (user_id, row_key, period_start).
        #expect(lines.allSatisfy { $0.hasPrefix(prefix) && $0.hasSuffix(") ON CONFLICT DO NOTHING;") })
        #expect(
            lines[1].contains(
                "'{0,0,0,0,0,0,0,0,0,0,0,0,8,3,0,1,0,1}'::int[], 371.875, 5351.575, 6004.5, 10.7585, NULL, NULL, NULL, NULL, 'app.yui.Yui')"))
        #expect(lines.last!.contains("'[{\"image\":\"libswiftCore.dylib\",\"uuid\":\"7B2F9E4D-6A1C-3D85-9E37-2C8B5F0A1D96\",\"offset\":238004}"))
        #expect(lines.last!.contains("}]'::jsonb, NULL, NULL, NULL, 'app.yui.Yui')"))
    }

    /// The JSON writer measures a row's room before writing it: values at their longest (every
    /// byte escaped, the longest numbers, 32 frames) must fit and read back as they were.
    @Test func longestValuesAreEscapedAndReadBack() throws {
        let everyByte = String(decoding: (0..<0x80).map { UInt8($0) }, as: UTF8.self) + "\"\\é😀"
        let controls = String(repeating: "\u{01}", count: 1_024)
        let frames = (0..<32).map { StackFrame(image: $0 % 2 == 0 ? controls : nil, uuid: everyByte, offset: UInt64.max) }
        let row = Row(
            user_id: everyByte, row_key: controls, kind: .diagnostic, name: everyByte, app_build: Int.min, app_version: controls,
            os: everyByte, device: "\"", promotion: true, low_power: false, thermal: Int.max, period_start: "\\", period_end: "",
            n: Int.min, buckets: Array(repeating: Int.min, count: 18), p50: -1.2345678901234567e-308,
            p95: -Double.greatestFiniteMagnitude, max: 5e-324, value: nil, stack: frames, exception_type: Int.min,
            signal: Int.max, termination_code: nil, bundle_id: controls)
        for format in [RowFormat.json, .jsonl] {
            let text = RowWriter.text(of: [row, row], format: format)
            let objects: [[String: Any]]
            if format == .json {
                objects = try #require(try JSONSerialization.jsonObject(with: Data(text.utf8)) as? [[String: Any]])
            } else {
                objects = try text.split(separator: "\n").map {
                    try #require(try JSONSerialization.jsonObject(with: Data($0.utf8)) as? [String: Any])
                }
            }
            #expect(objects.count == 2)
            let object = try #require(objects.last)
            #expect(object["user_id"] as? String == everyByte)
            #expect(object["row_key"] as? String == controls)
            #expect(object["device"] as? String == "\"")
            #expect(object["period_start"] as? String == "\\")
            #expect(object["period_end"] as? String == "")
            #expect((object["p95"] as? NSNumber)?.doubleValue == -Double.greatestFiniteMagnitude)
            #expect(object["value"] is NSNull)
            let stack = try #require(object["stack"] as? [[String: Any]])
            #expect(stack.count == 32)
            #expect(stack.first?["image"] as? String == controls)
            #expect(stack.last?["image"] is NSNull)
            #expect(stack.last?["uuid"] as? String == everyByte)
            #expect(text.contains("\"offset\":18446744073709551615}"))
            #expect(text.contains("\"app_build\":-9223372036854775808,"))
            #expect(text.contains("\"user_id\":\"\\u0000\\u0001"))
            #expect(text.contains("\\u0008\\t\\n\\u000b\\u000c\\r"))
        }
        var stackText: [UInt8] = []
        RowWriter.stackJSON(frames, into: &stackText)
        let parsedStack = try #require(try JSONSerialization.jsonObject(with: Data(stackText)) as? [[String: Any]])
        #expect(parsedStack.count == 32)
    }

    @Test func numbersInShortestRoundTripForm() {
        #expect(NumberText.shortest(195.3125) == "195.3125")
        #expect(NumberText.shortest(3) == "3")
        #expect(NumberText.shortest(0.1) == "0.1")
        #expect(NumberText.shortest(1.0 / 3) == "0.3333333333333333")
        #expect(NumberText.shortest(-0.0) == "0")
        #expect(Double(NumberText.shortest(5351.575)) == 5351.575)
    }
}

@Suite struct StreamingTests {
    /// Rows share the strings of the frame image and UUID the rows before them named; each frame
    /// still reads as its own bytes say, whatever the rows around it name: another UUID, the same
    /// UUID in lower case (made upper case) or escaped, another image.
    @Test func frameStringsSharedAcrossRowsReadAsTheirBytes() throws {
        let row = try #require(convertFile(Samples.path("payloads.jsonl")).rows.first { $0.stack != nil })
        let first = "11111111-2222-3333-4444-555555555555"
        let second = "AAAAAAAA-BBBB-CCCC-DDDD-EEEEEEEEEEEE"
        let stacks: [[StackFrame]] = [
            [StackFrame(image: "App", uuid: first, offset: 1), StackFrame(image: "App", uuid: first, offset: 2)],
            [StackFrame(image: "App", uuid: second, offset: 3), StackFrame(image: "UIKitCore", uuid: first, offset: 4)],
            [StackFrame(image: "App", uuid: first, offset: 5)],
        ]
        var lines = stacks.map { stack in
            var copy = row
            copy.stack = stack
            return RowWriter.text(of: [copy], format: .jsonl).trimmingCharacters(in: .newlines)
        }
        lines.append(lines[0].replacingOccurrences(of: first, with: first.lowercased()))
        lines.append(lines[0].replacingOccurrences(of: "\"uuid\":\"1", with: "\"uuid\":\"\\u0031"))
        lines.append(lines[2])
        let rows = convert(lines.joined(separator: "\n") + "\n").rows
        try #require(rows.count == 6)
        #expect(rows[0].stack == stacks[0] && rows[1].stack == stacks[1] && rows[2].stack == stacks[2])
        #expect(rows[3].stack == stacks[0] && rows[4].stack == stacks[0] && rows[5].stack == stacks[2])
        #expect(lines[4].contains("\\u0031"))
    }

    /// The reader keeps the last few images and UUIDs it met (eight of each). Rows naming more
    /// than that, in turn and at random, so kept strings are replaced while others are still in
    /// use, each read back as their bytes say.
    @Test func frameStringsOfMoreImagesThanAreKeptReadAsTheirBytes() throws {
        let row = try #require(convertFile(Samples.path("payloads.jsonl")).rows.first { $0.stack != nil })
        let images = (0..<13).map { "Image\($0)" + String(repeating: "x", count: $0 * 9) }
        let uuids = (0..<13).map { String(format: "%08X-0000-4000-8000-%012X", $0 * 77, $0) }
        var generator = SystemRandomNumberGenerator()
        var stacks: [[StackFrame]] = (0..<13).map { first in
            (0..<10).map { StackFrame(image: images[(first + $0) % 13], uuid: uuids[(first + $0) % 13], offset: UInt64($0)) }
        }
        stacks += (0..<200).map { _ in
            (0..<6).map { _ in
                let pick = Int.random(in: 0..<13, using: &generator)
                return StackFrame(image: images[pick], uuid: uuids[(pick * 5) % 13], offset: UInt64(pick))
            }
        }
        let text = stacks.map { stack in
            var copy = row
            copy.stack = stack
            return RowWriter.text(of: [copy], format: .jsonl)
        }.joined()
        let rows = convert(text).rows
        #expect(rows.map(\.stack) == stacks)
    }

    /// A long JSON Lines file is converted in blocks of 4 MB, each in chunks two threads claim. What
    /// reaches the caller must be what one thread gives for the same bytes: the same rows in the
    /// same order, every error and warning in place, each naming its line, payload lines and row
    /// lines alike, with bad lines in some chunks and not in others, across three blocks.
    @Test func linesReadOnTwoThreadsGiveWhatOneThreadGives() throws {
        let payloadLines = try String(contentsOfFile: Samples.path("payloads.jsonl"), encoding: .utf8)
            .split(separator: "\n").map(String.init)
        let rowLines = RowWriter.text(of: try convertFile(Samples.path("payloads.jsonl")).rows, format: .jsonl)
            .split(separator: "\n").map(String.init)
        var lines: [String] = []
        var number = 0
        let roundBytes = (payloadLines + rowLines).reduce(0) { $0 + $1.utf8.count + 1 }
        while number * roundBytes < 9 << 20 {
            number += 1
            lines.append(contentsOf: payloadLines)
            lines.append(contentsOf: rowLines)
            if number % 7 == 0 { lines.append("{\"row_key\": 1, \"kind\": \"metrics\"}") }  // a row with a bad key
            if number % 11 == 0 { lines.append("{not json") }
            if number % 13 == 0 {
                lines.append(
                    metricPayload("\"memoryMetrics\" : { \"peakMemoryUsage\" : \"12 parsecs\" }").replacingOccurrences(of: "\n", with: " "))
            }
        }
        let text = lines.joined(separator: "\n") + "\n"
        let file = FileManager.default.temporaryDirectory.appendingPathComponent("two-threads-\(getpid())-\(UInt64.random(in: 0...UInt64.max)).jsonl")
        defer { try? FileManager.default.removeItem(at: file) }
        try text.write(to: file, atomically: true, encoding: .utf8)

        let streamed = convertFile(file.path)
        let oneThread = convert(text, fileName: file.path)
        #expect(streamed.rows.count > 3_000)
        #expect(streamed.errors.count > 20 && streamed.warnings.count > 5)
        #expect(streamed.rows.map(\.row_key) == oneThread.rows.map(\.row_key))
        #expect(streamed.rows == oneThread.rows)
        #expect(streamed.diagnostics.map(\.description) == oneThread.diagnostics.map(\.description))
        #expect(streamed.succeeded == false && oneThread.succeeded == false)
        // The last bad line's number is the line it is on.
        let lastBad = try #require(lines.lastIndex(of: "{not json"))
        #expect(streamed.errors.contains { $0.place.hasPrefix("line \(lastBad + 1),") })
    }

    /// A JSON Lines file of several MB goes through the streaming reader (buffer refills,
    /// lines across chunk edges) and gives every line's rows.
    @Test func largeJSONLinesFileStreams() throws {
        let lines = try String(contentsOfFile: Samples.path("payloads.jsonl"), encoding: .utf8).split(separator: "\n")
        let perRound = try convertFile(Samples.path("payloads.jsonl")).rows.count
        let rounds = 300
        let file = FileManager.default.temporaryDirectory.appendingPathComponent("big-\(getpid())-\(UInt64.random(in: 0...UInt64.max)).jsonl")
        defer { try? FileManager.default.removeItem(at: file) }
        try String(repeating: lines.joined(separator: "\n") + "\n", count: rounds).write(to: file, atomically: true, encoding: .utf8)
        #expect(try FileManager.default.attributesOfItem(atPath: file.path)[.size] as! Int > 2 << 20)
        let result = convertFile(file.path)
        #expect(result.succeeded)
        #expect(result.rows.count == perRound * rounds)

        var options = ConversionOptions()
        options.maxLineBytes = 2000  // the hang lines are longer: refused, the metric lines still convert
        let limited = convertFile(file.path, options: options)
        #expect(limited.rows.count == 8 * rounds)
        #expect(limited.errors.count == 2 * rounds)
        #expect(limited.errors.first?.place == "line 2")
    }

    /// Limits hold on files too: a document over the limit is refused after reading just past it,
    /// and a line longer than the buffer is skipped while the next line still converts.
    @Test func fileLimits() throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("limits-\(getpid())-\(UInt64.random(in: 0...UInt64.max))")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        let document = folder.appendingPathComponent("big.json")
        try ("[\n" + String(repeating: "1,\n", count: 1_500_000) + "1\n]\n").write(to: document, atomically: true, encoding: .utf8)
        var options = ConversionOptions()
        options.maxFileBytes = 1 << 20
        let refused = convertFile(document.path, options: options)
        #expect(!refused.succeeded)
        #expect(refused.errors.map(\.message) == ["larger than 1048576 bytes, the limit for one JSON document (JSON Lines may be longer)"])

        let metric = try String(contentsOfFile: Samples.path("payloads.jsonl"), encoding: .utf8).split(separator: "\n")[0]
        let lines = folder.appendingPathComponent("lines.jsonl")
        let hugeLine = "{\"pad\":\"" + String(repeating: "x", count: 3 << 20) + "\"}"
        try [String(metric), hugeLine, String(metric)].joined(separator: "\n").write(to: lines, atomically: true, encoding: .utf8)
        options = ConversionOptions()
        options.maxLineBytes = 1 << 20
        let skipped = convertFile(lines.path, options: options)
        #expect(skipped.rows.count == 16)
        #expect(skipped.errors.map(\.place) == ["line 2"])
        #expect(skipped.errors.first?.message == "longer than 1048576 bytes, the limit for one line; skipped")
    }

    @Test func standardInputIsRead() throws {
        let pipe = Pipe()
        let data = try Data(contentsOf: URL(fileURLWithPath: Samples.path("metrics-ios13.json")))
        pipe.fileHandleForWriting.write(data)
        try pipe.fileHandleForWriting.close()
        var rows: [Row] = []
        var reports: [InputDiagnostic] = []
        let ok = RowSource.readRows(
            path: "-", options: ConversionOptions(), standardInput: pipe.fileHandleForReading, report: { reports.append($0) },
            emit: { rows.append($0) })
        #expect(ok)
        #expect(rows.count == 9)
        let empty = Pipe()
        try empty.fileHandleForWriting.close()
        RowSource.readRows(
            path: "-", options: ConversionOptions(), standardInput: empty.fileHandleForReading, report: { reports.append($0) }, emit: { _ in })
        #expect(reports.first?.description == "<stdin>: empty input, a JSON value was expected")
    }
}
