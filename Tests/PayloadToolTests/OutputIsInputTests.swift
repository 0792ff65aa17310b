import Foundation
import Testing

@testable import TestSupport

/// An output that is also an input: refused with exit 64 before anything is read, the
/// input left byte for byte as it was, through a symbolic link too. Run as a user runs it.
@Suite struct OutputIsInputTests {
    @Test(arguments: [
        ["rows", "--output", "{a}", "{a}", "{b}"],
        ["rows", "--format", "jsonl", "--output", "{link}", "{b}", "{a}"],
        ["report", "--html", "{b}", "{a}", "{b}"],
        ["report", "--summaries", "{a}", "{a}"],
    ])
    func anOutputThatIsAnInputIsRefusedAndTheInputKept(_ template: [String]) throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("yui-output-input-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        let a = folder.appendingPathComponent("a.json").path
        let b = folder.appendingPathComponent("b.json").path
        let link = folder.appendingPathComponent("link.json").path
        try FileManager.default.copyItem(atPath: Repository.samples.appendingPathComponent("diagnostic-single-hang.json").path, toPath: a)
        try FileManager.default.copyItem(atPath: Repository.samples.appendingPathComponent("metrics-ios16.json").path, toPath: b)
        try FileManager.default.createSymbolicLink(atPath: link, withDestinationPath: a)
        let before = [try Data(contentsOf: URL(fileURLWithPath: a)), try Data(contentsOf: URL(fileURLWithPath: b))]
        let arguments = template.map {
            $0.replacingOccurrences(of: "{a}", with: a).replacingOccurrences(of: "{b}", with: b).replacingOccurrences(of: "{link}", with: link)
        }
        let run = try ToolBinary.run(arguments)
        #expect(run.status == 64, "\(run.stderr)")
        #expect(run.stderr.contains("writing it would replace what is read"), "\(run.stderr)")
        #expect(run.stdout.isEmpty)
        #expect([try Data(contentsOf: URL(fileURLWithPath: a)), try Data(contentsOf: URL(fileURLWithPath: b))] == before)
    }
}
