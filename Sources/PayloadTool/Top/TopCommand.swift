import Foundation
import PayloadDecode
import StackSignature
import StackSymbolize

/// `payload-tool top`: the heaviest hang and crash signatures per build (docs/top.md). The options
/// are `TopOptions`; one run is `TopRun`.
extension TopOptions: CommandOptions {
    func run(stdin: FileHandle, stdout: inout some TextOutputStream, stderr: inout some TextOutputStream) -> Int32 {
        TopRun(options: self).run(stdin: stdin, stdout: &stdout, stderr: &stderr)
    }
}
