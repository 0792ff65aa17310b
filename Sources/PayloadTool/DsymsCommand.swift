import Foundation

/// `payload-tool dsyms`. Scaffolding: replaced by the command's implementation.
enum DsymsCommand {
    static func run(
        arguments: [String], stdin: FileHandle, stdout: inout some TextOutputStream,
        stderr: inout some TextOutputStream
    ) -> Int32 {
        stderr.write("error: 'dsyms' is not built yet\n")
        return PayloadTool.exitFailure
    }
}
