import Foundation

/// `payload-tool top`. Scaffolding: replaced by the command's implementation.
enum TopCommand {
    static func run(
        arguments: [String], stdin: FileHandle, stdout: inout some TextOutputStream,
        stderr: inout some TextOutputStream
    ) -> Int32 {
        stderr.write("error: 'top' is not built yet\n")
        return PayloadTool.exitFailure
    }
}
