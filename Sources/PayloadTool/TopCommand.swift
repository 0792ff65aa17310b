import Foundation
import PayloadDecode
import StackSignature
import StackSymbolize

/// `payload-tool top`: the heaviest hang and crash signatures per build (docs/top.md).
enum TopCommand {
    static func run(
        arguments: [String], stdin: FileHandle, stdout: inout some TextOutputStream,
        stderr: inout some TextOutputStream
    ) -> Int32 {
        CommandRunner.run(
            TopOptions.description, arguments: arguments, stdout: &stdout, stderr: &stderr, options: TopOptions.init
        ) { options, stdout, stderr in
            TopRun(options: options).run(stdin: stdin, stdout: &stdout, stderr: &stderr)
        }
    }
}
