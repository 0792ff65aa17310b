import Foundation
import TestSupport
import Testing

/// Every input of `Corpus/` (written by `fuzz/make-bad-inputs`, plus inputs the fuzzers found)
/// run through `payload-tool` in-process: the exit status and the error line of `cases.json`,
/// naming the file. A crash or a hang here takes the whole test run down, which is the point.
@Suite struct BadInputCorpus {
    @Test(arguments: CorpusTable.cases)
    func caseGivesItsStatusAndError(_ badInput: BadInputCase) {
        let arguments = (badInput.arguments ?? ["rows", "{input}"]).map { Paths.expand($0, input: badInput.input) }
        let run = ToolRun.run(arguments)
        #expect(run.status == badInput.status, "stderr: \(run.stderr)")
        let expected = Paths.expand(badInput.stderr, input: badInput.input)
        if expected.isEmpty {
            #expect(run.stderr.isEmpty)
        } else if let input = badInput.input {
            // The error names the file (as given) and says what is wrong, on one line.
            let path = Paths.corpus + "/" + input
            #expect(
                run.stderr.split(separator: "\n").contains { $0.contains(path + ": ") && $0.contains(expected) },
                "no stderr line names \(input) with '\(expected)'; stderr: \(run.stderr)")
        } else {
            #expect(run.stderr.contains(expected), "stderr lacks '\(expected)'; stderr: \(run.stderr)")
        }
        if let stdout = badInput.stdout {
            #expect(run.stdout.contains(stdout), "stdout lacks '\(stdout)'; stdout: \(run.stdout)")
        }
    }

    /// The table and the folder agree: every input has a case, every case's input exists, and
    /// there are enough of them to cover docs/design.md, "Bad input".
    @Test func tableCoversCorpus() throws {
        let cases = try CorpusTable.load()
        #expect(cases.count >= 60)
        let files = Set(try FileManager.default.contentsOfDirectory(atPath: Paths.corpus)).subtracting(["cases.json"])
        let named = Set(cases.compactMap(\.input))
        #expect(files.subtracting(named).sorted() == [], "inputs without a case")
        #expect(named.subtracting(files).sorted() == [], "cases whose input is missing")
        for kind in ["json-", "number-", "frame-", "context-", "shape-", "macho-", "fat-", "elf-"] {
            #expect(files.contains { $0.hasPrefix(kind) }, "no \(kind)* input")
        }
        #expect(cases.contains { $0.status == 64 }, "no command-line misuse case")
    }
}
