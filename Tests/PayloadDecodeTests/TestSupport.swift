import Foundation
import TestSupport
import Testing

@testable import PayloadDecode

/// What converting one input gave.
struct Conversion {
    var rows: [Row]
    var diagnostics: [InputDiagnostic]
    var succeeded: Bool

    var errors: [InputDiagnostic] { diagnostics.filter { $0.severity == .error } }
    var warnings: [InputDiagnostic] { diagnostics.filter { $0.severity == .warning } }

    func row(_ name: String) throws -> Row { try #require(rows.first { $0.name == name }, "no \(name) row") }
}

func convert(_ text: String, fileName: String = "test.json", options: ConversionOptions = ConversionOptions()) -> Conversion {
    var rows: [Row] = []
    var diagnostics: [InputDiagnostic] = []
    let succeeded = Array(text.utf8).withUnsafeBytes { bytes in
        RowSource.rows(fromBytes: bytes, fileName: fileName, options: options, report: { diagnostics.append($0) }, emit: { rows.append($0) })
    }
    return Conversion(rows: rows, diagnostics: diagnostics, succeeded: succeeded)
}

func convertFile(_ path: String, options: ConversionOptions = ConversionOptions()) -> Conversion {
    var rows: [Row] = []
    var diagnostics: [InputDiagnostic] = []
    let succeeded = RowSource.readRows(path: path, options: options, report: { diagnostics.append($0) }, emit: { rows.append($0) })
    return Conversion(rows: rows, diagnostics: diagnostics, succeeded: succeeded)
}

enum Samples {
    static let folder = Repository.samples

    static func path(_ name: String) throws -> String {
        let path = folder.appendingPathComponent(name).path
        guard FileManager.default.fileExists(atPath: path) else {
            throw CocoaError(.fileNoSuchFile, userInfo: [NSFilePathErrorKey: path])
        }
        return path
    }

    static var all: [String] {
        ((try? FileManager.default.contentsOfDirectory(atPath: folder.path)) ?? [])
            .filter { $0.hasSuffix(".json") || $0.hasSuffix(".jsonl") }.sorted()
    }
}

/// A metric payload with the given categories (JSON members, without braces) and context.
func metricPayload(
    _ categories: String, appVersion: String = "2.1.0", build: String = "130", device: String = "iPhone17,2",
    begin: String = "2024-12-19 00:00:00", end: String = "2024-12-19 23:59:00"
) -> String {
    """
    {
      "appVersion" : "\(appVersion)",
      "timeStampBegin" : "\(begin)",
      "timeStampEnd" : "\(end)",
      "metaData" : {
        "appBuildVersion" : "\(build)",
        "osVersion" : "iPhone OS 18.2 (22C152)",
        "regionFormat" : "DE",
        "deviceType" : "\(device)"
      }\(categories.isEmpty ? "" : ",\n" + categories)
    }
    """
}

/// A histogram object from (start, end, count) triples in `unit`.
func histogram(_ buckets: [(String, String, Int)], unit: String = "ms") -> String {
    let members = buckets.enumerated().map { index, bucket in
        "\"\(index)\" : { \"bucketStart\" : \"\(bucket.0) \(unit)\", \"bucketEnd\" : \"\(bucket.1) \(unit)\", \"bucketCount\" : \(bucket.2) }"
    }
    return "{ \"histogramNumBuckets\" : \(buckets.count), \"histogramValue\" : { \(members.joined(separator: ", ")) } }"
}

/// A frame object; `subFrames` nested when given.
func frameJSON(_ image: String, uuid: String, address: UInt64, offset: UInt64, samples: Int = 1, subFrames: [String] = []) -> String {
    var text =
        "{ \"binaryName\" : \"\(image)\", \"binaryUUID\" : \"\(uuid)\", \"address\" : \(address), \"offsetIntoBinaryTextSegment\" : \(offset), \"sampleCount\" : \(samples)"
    if !subFrames.isEmpty { text += ", \"subFrames\" : [ \(subFrames.joined(separator: ", ")) ]" }
    return text + " }"
}

let appUUID = "4C4C4C4C-5555-3144-A1B2-000000000130"
let appLoad: UInt64 = 0x1_007A_4000

func diagnosticMeta(_ extra: String) -> String {
    """
    { "appBuildVersion" : "130", "appVersion" : "2.1.0", "osVersion" : "iPhone OS 18.2 (22C152)",
      "deviceType" : "iPhone17,2", "platformArchitecture" : "arm64e", \(extra) }
    """
}

func diagnosticPayload(_ members: String) -> String {
    "{ \"timeStampBegin\" : \"2024-12-20 09:41:07\", \"timeStampEnd\" : \"2024-12-20 09:41:07\", \(members) }"
}

func callStackTree(_ roots: [String], perThread: Bool = true) -> String {
    "{ \"callStackPerThread\" : \(perThread), \"callStacks\" : [ { \"threadAttributed\" : true, \"callStackRootFrames\" : [ \(roots.joined(separator: ", ")) ] } ] }"
}
