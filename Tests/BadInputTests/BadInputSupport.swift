import Foundation
import PayloadTool
import TestSupport
import Testing

/// One entry of `Corpus/cases.json`: a command line over a bad input and what it must give.
struct BadInputCase: Decodable, Sendable, CustomTestStringConvertible {
    /// A file in `Corpus/`, substituted for `{input}` and expected in the error line.
    var input: String?
    /// The command line; default `rows {input}`. `{input}`, `{corpus}`, `{fixtures}` and `{samples}`
    /// are replaced by paths.
    var arguments: [String]?
    var status: Int32
    /// Text one stderr line must hold (with the input's path when there is an input); empty means
    /// stderr must be empty.
    var stderr: String
    /// Text stdout must hold, when given (the good part of the input still converted).
    var stdout: String?

    var testDescription: String { input ?? (arguments ?? []).joined(separator: " ") }
}

enum Paths {
    static let corpus = Repository.badInputCorpus.path
    static let fixtures = Repository.checkedInDsymsFixtures.path
    static let samples = Repository.samples.path

    /// Replaces the placeholders of a case's arguments.
    static func expand(_ text: String, input: String?) -> String {
        var text = text
        if let input { text = text.replacingOccurrences(of: "{input}", with: corpus + "/" + input) }
        return text.replacingOccurrences(of: "{corpus}", with: corpus)
            .replacingOccurrences(of: "{fixtures}", with: fixtures)
            .replacingOccurrences(of: "{samples}", with: samples)
    }
}

enum CorpusTable {
    /// The cases of `Corpus/cases.json`; empty when the table is unreadable, which
    /// `BadInputCorpus.tableCoversCorpus` reports as a failure.
    static let cases: [BadInputCase] = (try? load()) ?? []

    static func load() throws -> [BadInputCase] {
        let data = try Data(contentsOf: URL(fileURLWithPath: Paths.corpus + "/cases.json"))
        return try JSONDecoder().decode([BadInputCase].self, from: data)
    }
}

/// A fresh folder under the system's temporary folder, removed by `remove()`.
struct ScratchFolder {
    let path: String

    init(_ name: String) throws {
        path = NSTemporaryDirectory() + "yui-perf-bad-\(name)-\(getpid())-\(UInt32.random(in: 0...UInt32.max))"
        try FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: true)
    }

    func file(_ name: String) -> String { path + "/" + name }

    /// Writes `text` (or bytes) to `name`, creating folders on the way.
    @discardableResult
    func write(_ name: String, _ bytes: some Sequence<UInt8>) throws -> String {
        let target = file(name)
        try FileManager.default.createDirectory(
            atPath: (target as NSString).deletingLastPathComponent, withIntermediateDirectories: true)
        try Data(bytes).write(to: URL(fileURLWithPath: target))
        return target
    }

    @discardableResult
    func copy(_ source: String, to name: String) throws -> String {
        try write(name, try Data(contentsOf: URL(fileURLWithPath: source)))
    }

    func contents() -> [String] { ((try? FileManager.default.contentsOfDirectory(atPath: path)) ?? []).sorted() }

    func remove() { try? FileManager.default.removeItem(atPath: path) }
}

/// A hang diagnostic payload in MetricKit's shape whose sample tree is `frames`, outermost first
/// (each the only child of the one before). Frames are (image, uuid, offset).
func hangPayload(build: String = "130", frames: [(image: String, uuid: String, offset: UInt64)]) -> String {
    var tree = ""
    for frame in frames.reversed() {
        let children = tree.isEmpty ? "" : ", \"subFrames\": [\(tree)]"
        tree = """
            {"binaryName": "\(frame.image)", "binaryUUID": "\(frame.uuid)", "offsetIntoBinaryTextSegment": \(frame.offset), \
            "sampleCount": 5, "address": \(0x1_0000_0000 + frame.offset)\(children)}
            """
    }
    return """
        {"timeStampBegin": "2026-11-20 10:00:00", "timeStampEnd": "2026-11-20 10:00:00", "hangDiagnostics": [{
          "version": "1.0.0",
          "diagnosticMetaData": {"appBuildVersion": "\(build)", "appVersion": "2.4.1", "osVersion": "iPhone OS 17.2.1 (21C66)",
            "deviceType": "iPhone15,2", "platformArchitecture": "arm64e", "hangDuration": "2.5 sec"},
          "callStackTree": {"callStackPerThread": true, "callStacks": [{"threadAttributed": true, "callStackRootFrames": [\(tree)]}]}
        }]}
        """
}
