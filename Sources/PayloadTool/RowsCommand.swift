import Foundation

/// `payload-tool rows`. Scaffolding: replaced by the command's implementation.
enum RowsCommand {
    static func run(
        arguments: [String], stdin: FileHandle, stdout: inout some TextOutputStream,
        stderr: inout some TextOutputStream
    ) -> Int32 {
        stderr.write("error: 'rows' is not built yet\n")
        return PayloadTool.exitFailure
    }
}
