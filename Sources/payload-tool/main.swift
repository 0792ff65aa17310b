import Foundation
import PayloadTool

// A reader that closes the pipe early (`payload-tool rows ... | head`) must not kill us with SIGPIPE.
signal(SIGPIPE, SIG_IGN)

let standardOutput = FileDescriptorOutput(descriptor: STDOUT_FILENO)
let standardError = FileDescriptorOutput(descriptor: STDERR_FILENO)
var stdoutStream = StreamReference(standardOutput)
var stderrStream = StreamReference(standardError)
let status = PayloadTool.run(
    arguments: Array(CommandLine.arguments.dropFirst()), stdin: FileHandle.standardInput,
    stdout: &stdoutStream, stderr: &stderrStream)
standardOutput.flush()
standardError.flush()
exit(status)
