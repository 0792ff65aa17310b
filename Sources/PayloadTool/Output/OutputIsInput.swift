import Foundation
import PayloadDecode
import SystemIO

/// An output file that is also one of the command's inputs: `rows --output dumps/*.json`,
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

    /// Throws when `output` (given with `option`) already exists and holds a payload dump or a
    /// crash report, as its first bytes say: `rows --output dumps/*.json` with the output's name
    /// forgotten makes the first dump the output (not an input), and writing would replace the
    /// user's raw data. A file this tool writes (rows in any format, a report, a page, summaries)
    /// is replaced as asked.
    static func refuseReplacingRawData(output: String?, option: String) throws(UsageError) {
        guard let output, let head = FileIO.head(of: output, count: 64 << 10), let kind = rawData(Data(head)) else { return }
        throw UsageError(
            message:
                "'\(option) \(output)' is \(kind): writing it would replace it. Give an output name that is not a file of data (nothing was read or written)."
        )
    }

    /// What `head` (a file's first bytes) is, when it is a user's raw data: "an Apple crash
    /// report" or "a MetricKit payload dump"; nil for anything else. A dump is JSON with one of
    /// MetricKit's keys, and neither rows (`user_id` or `row_key` first, as `rows` writes them) nor
    /// `report`'s summaries (`builds` first).
    static func rawData(_ head: Data) -> String? {
        head.withUnsafeBytes { bytes -> String? in
            var start = 0
            while start < bytes.count, [0x20, 0x09, 0x0a, 0x0d].contains(bytes[start]) { start += 1 }
            var end = start
            while end < bytes.count, bytes[end] != 0x0a { end += 1 }
            if CrashReportForm.of(firstLine: UnsafeRawBufferPointer(rebasing: bytes[start..<end])) != nil { return "an Apple crash report" }
            guard start < bytes.count, bytes[start] == UInt8(ascii: "{") || bytes[start] == UInt8(ascii: "[") else { return nil }
            let text = String(decoding: bytes[start...], as: UTF8.self)
            // How the file starts is in its first bytes; the whole 64 kB need not be compacted.
            let compact = text.prefix(256).filter { !$0.isWhitespace }
            if compact.hasPrefix("{\"user_id\"") || compact.hasPrefix("[{\"user_id\"") || compact.hasPrefix("{\"row_key\"")
                || compact.hasPrefix("[{\"row_key\"") || compact.hasPrefix("[]") || compact.hasPrefix("{\"builds\"")
            {
                return nil
            }
            let metricKitKeys = [
                // Keys of payloads only: `report`'s summaries name `hangDiagnostics` too, as a count.
                "\"timeStampBegin\"", "\"diagnosticMetaData\"", "\"callStackTree\"", "\"crashDiagnostics\"", "\"metaData\"",
                "\"applicationLaunchMetrics\"", "\"callStacks\"", "\"cpuMetrics\"", "\"memoryMetrics\"",
            ]
            return metricKitKeys.contains(where: text.contains) ? "a MetricKit payload dump" : nil
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
