import Foundation

/// `payload-tool symbolicate`. Scaffolding: replaced by the command's implementation.
enum SymbolicateCommand {
    static func run(
        arguments: [String], stdin: FileHandle, stdout: inout some TextOutputStream,
        stderr: inout some TextOutputStream
    ) -> Int32 {
        stderr.write("error: 'symbolicate' is not built yet\n")
        return PayloadTool.exitFailure
    }
}
