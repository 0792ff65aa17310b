import Foundation
import PayloadTool
import TestSupport
import Testing

@Suite struct TopCommandLine {
    @Test func helpGoesToStandardOutput() {
        let result = ToolRun.run(["top", "--help"])
        #expect(result.status == 0)
        #expect(result.stderr.isEmpty)
        for heading in ["OVERVIEW:", "USAGE:", "ARGUMENTS:", "OPTIONS:", "--crash-weight", "--app-image", "--folded"] {
            #expect(result.stdout.contains(heading))
        }
    }

    @Test(arguments: [
        (["top", "--build", "../../etc", "x.json"], "'--build'"),
        (["top", "--build", "131"], "Missing input"),
        (["top", "--count", "0", "x.json"], "'--count'"),
        (["top", "--count", "three", "x.json"], "'--count'"),
        (["top", "--crash-weight", "-1", "x.json"], "'--crash-weight'"),
        (["top", "--crash-weight", "nan", "x.json"], "'--crash-weight'"),
        (["top", "--json", "--folded", "x.json"], "'--json' and '--folded'"),
        (["top", "--frobnicate", "x.json"], "Unknown option '--frobnicate'"),
        (["top", "-", "-"], "only once"),
        (["top", "--user", "nobody", "x.json"], "'--user'"),
        (["top", "--db", "", "x.json"], "'--db'"),
    ])
    func usageErrorsNameTheOptionAndExit64(arguments: [String], mention: String) {
        let result = ToolRun.run(arguments)
        #expect(result.status == 64)
        #expect(result.stdout.isEmpty)
        #expect(result.stderr.contains(mention))
        #expect(result.stderr.contains("payload-tool top --help"))
    }

    @Test func anUnreadableInputIsNamedAndFailsTheRun() {
        let missing = "/nonexistent/top-input-\(getpid()).json"
        let result = ToolRun.run(["top", missing])
        #expect(result.status == 1)
        #expect(result.stderr.contains(missing))
    }
}
