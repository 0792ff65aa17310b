import Foundation

/// `payload-tool load`. Scaffolding: replaced by the command's implementation.
enum LoadCommand {
    static func run(
        arguments: [String], stdin: FileHandle, stdout: inout some TextOutputStream,
        stderr: inout some TextOutputStream
    ) -> Int32 {
        stderr.write("error: 'load' is not built yet\n")
        return PayloadTool.exitFailure
    }
}
