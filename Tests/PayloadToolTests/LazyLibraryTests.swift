import Foundation
import TestSupport
import Testing

/// libpq and libarchive (and the thirty libraries they bring) are loaded by the commands that use
/// them, not by every start-up: the dynamic loader's own log (`LD_DEBUG=files`) says which
/// libraries a run loaded.
@Suite struct LazyLibraryTests {
    func loadedLibraries(_ arguments: [String]) throws -> (status: Int32, stderr: String, libraries: Set<String>) {
        let run = try ToolBinary.run(arguments, environment: ["LD_DEBUG": "files"])
        var libraries: Set<String> = []
        for line in run.stderr.split(separator: "\n") {
            guard let start = line.range(of: "file=") else { continue }
            let name = line[start.upperBound...].prefix { $0 != " " && $0 != "[" }
            libraries.insert(String(name))
        }
        return (run.status, run.stderr, libraries)
    }

    @Test func rowsSymbolicateAndTopLoadNeitherLibpqNorLibarchive() throws {
        let sample = Repository.samples.appendingPathComponent("diagnostics-ios18-crashes-hang.json").path
        for command in [["rows", sample], ["symbolicate", sample], ["top", sample]] {
            let run = try loadedLibraries(command)
            #expect(run.status == 0, "\(command): \(run.stderr.suffix(500))")
            #expect(run.libraries.contains("libdw.so.1"), "\(command): the loader's log was not read")
            #expect(!run.libraries.contains("libpq.so.5"), "\(command)")
            #expect(!run.libraries.contains("libarchive.so.13"), "\(command)")
        }
    }

    @Test func loadLoadsLibpqWhenItConnects() throws {
        let sample = Repository.samples.appendingPathComponent("metrics-ios13.json").path
        // Port 1 refuses at once: libpq was loaded, tried and said why.
        let run = try loadedLibraries(["load", "--db", "postgresql://nobody@127.0.0.1:1/none", "--user", UUID().uuidString, sample])
        #expect(run.status == 1)
        #expect(run.libraries.contains("libpq.so.5"))
        #expect(run.stderr.contains("Connection refused"))
    }
}
