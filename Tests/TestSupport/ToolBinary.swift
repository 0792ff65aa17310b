import Foundation

/// The built `payload-tool` executable, run as a user runs it: its exit status and its two streams.
public enum ToolBinary {
    /// The executable could not be found; run `swift build --build-tests`.
    public struct NotBuilt: Error, CustomStringConvertible {
        public var description: String
    }

    /// The executable: beside the test bundle in the build folder, else `.build/debug/payload-tool`.
    public static func executable() throws -> URL {
        var bundleFolder = Bundle.main.bundleURL
        if bundleFolder.pathExtension == "xctest" { bundleFolder.deleteLastPathComponent() }
        let candidates = [
            bundleFolder.appendingPathComponent("payload-tool"),
            Bundle.main.executableURL?.deletingLastPathComponent().appendingPathComponent("payload-tool"),
            Repository.root.appendingPathComponent(".build/debug/payload-tool"),
        ].compactMap { $0 }
        guard let found = candidates.first(where: { FileManager.default.isExecutableFile(atPath: $0.path) }) else {
            throw NotBuilt(
                description:
                    "payload-tool is not built (looked at \(candidates.map(\.path))); run swift build --build-tests")
        }
        return found
    }

    /// `stderr` without the dynamic loader's warning about the debug build's fixed load address
    /// (`direct reference to protected function`, printed on some systems when the shared Swift
    /// runtime is bound): what the program itself wrote.
    public static func messages(_ stderr: String) -> String {
        stderr.split(separator: "\n", omittingEmptySubsequences: false)
            .filter { !$0.contains("direct reference to protected function") }.joined(separator: "\n")
    }

    /// Runs the executable with standard input empty and `environment` added to this process's.
    /// `executable` runs another program instead (`setpriv`, to run ours as another user); a run
    /// ended by a signal has the shell's status for it, 128 + the signal's number.
    public static func run(
        _ arguments: [String], environment: [String: String] = [:], executable program: URL? = nil
    ) throws -> (status: Int32, stdout: String, stderr: String) {
        // Output goes to files, not pipes, so a chatty run can never fill a pipe and stall.
        let scratch = FileManager.default.temporaryDirectory.appendingPathComponent("yui-perf-binary-" + UUID().uuidString)
        try FileManager.default.createDirectory(at: scratch, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: scratch) }
        let outputURL = scratch.appendingPathComponent("stdout")
        let errorURL = scratch.appendingPathComponent("stderr")
        try Data().write(to: outputURL)
        try Data().write(to: errorURL)
        let output = try FileHandle(forWritingTo: outputURL)
        let errors = try FileHandle(forWritingTo: errorURL)
        defer {
            try? output.close()
            try? errors.close()
        }
        let process = Process()
        process.executableURL = try program ?? executable()
        process.arguments = arguments
        process.environment = ProcessInfo.processInfo.environment.merging(environment) { $1 }
        process.standardInput = FileHandle.nullDevice
        process.standardOutput = output
        process.standardError = errors
        try process.run()
        process.waitUntilExit()
        return (
            process.terminationReason == .exit ? process.terminationStatus : 128 + process.terminationStatus,
            String(decoding: try Data(contentsOf: outputURL), as: UTF8.self),
            String(decoding: try Data(contentsOf: errorURL), as: UTF8.self)
        )
    }
}
