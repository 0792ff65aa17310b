import Foundation
import PayloadTool
import SystemIO

// A closed pipe shows as EPIPE on the write, where FileDescriptorOutput ends the run quietly
// after removing temporary files; an interrupted run removes them too.
Processes.ignoreBrokenPipes()
TemporaryFiles.removeOnSignals()

let standardOutput = FileDescriptorOutput(descriptor: STDOUT_FILENO)
let standardError = FileDescriptorOutput(descriptor: STDERR_FILENO, name: "standard error")
var stdoutStream = StreamReference(standardOutput)
var stderrStream = StreamReference(standardError)
let status = PayloadTool.run(
    arguments: Array(CommandLine.arguments.dropFirst()), stdin: FileHandle.standardInput,
    stdout: &stdoutStream, stderr: &stderrStream)
standardOutput.flush()
// Output that did not reach standard output is a failed run, whatever else went well.
if let failure = standardOutput.failure {
    standardError.write("error: \(failure)\n")
    standardError.flush()
    Processes.exit(status == PayloadTool.exitSuccess ? PayloadTool.exitFailure : status)
}
standardError.flush()
Processes.exit(status)
