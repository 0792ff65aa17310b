import Foundation
import PayloadTool

/// Runs `payload-tool` in-process, the way the executable does, and collects what it wrote.
public enum ToolRun {
    /// Runs `payload-tool ARGUMENTS` with `stdin` as standard input (empty unless given).
    public static func run(
        _ arguments: [String], stdin: FileHandle = .nullDevice
    ) -> (status: Int32, stdout: String, stderr: String) {
        var stdout = ""
        var stderr = ""
        let status = PayloadTool.run(arguments: arguments, stdin: stdin, stdout: &stdout, stderr: &stderr)
        return (status, stdout, stderr)
    }
}
