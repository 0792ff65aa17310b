import Foundation
import SystemIO

/// An output file that is also one of the command's inputs (issue 30): `rows --output dumps/*.json`,
/// where the shell made the forgotten output name the first dump, replaced the user's raw payload
/// with the rows of the others. Every command that writes a file refuses that, as a usage error
/// (exit 64), before it reads anything.
enum OutputIsInput {
    /// The same file as the system knows it: device and inode, through links.
    private struct FileIdentity: Equatable {
        var device: UInt64
        var inode: UInt64

        init?(_ path: String) {
            guard case .success(let status) = FileIO.status(of: path) else { return nil }
            device = status.device
            inode = status.inode
        }
    }

    /// Throws when `output` (given with `option`) is the same file as one of `inputs` (`-`,
    /// standard input, is never a file here). An output that does not exist yet is no input.
    static func refuse(output: String?, option: String, inputs: [String]) throws(UsageError) {
        guard let output, let written = FileIdentity(output) else { return }
        for input in inputs where input != "-" {
            if FileIdentity(input) == written {
                throw UsageError(
                    message:
                        "'\(option) \(output)' is the input '\(input)': writing it would replace what is read. Give an output name that is not an input."
                )
            }
        }
    }
}
