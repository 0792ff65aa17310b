import Foundation
import PayloadDecode
import SystemIO

/// The progress line (README, "Using it"): `[done/total] input` on stderr, redrawn in place, only
/// when stderr is a terminal (`TERM` not `dumb`) and stdout is not (data printed to the same
/// terminal would tear the line). Piped and redirected runs, and tests, see nothing. Every command
/// that shows progress uses this one. It writes to the
/// descriptor directly rather than to the command's stderr stream: it is drawn over and erased, and
/// never belongs in a captured log.
final class ProgressLine {
    private let enabled: Bool
    private let total: Int
    private var lastDraw: UInt64 = 0
    private var drawn = false

    /// - Parameters:
    ///   - total: the number of inputs; a single input needs no progress line,
    ///   - evenForOneInput: unless the line counts something within it (`load`'s rows).
    init(total: Int, evenForOneInput: Bool = false) {
        self.total = total
        enabled =
            (total > 1 || evenForOneInput) && Terminal.isTerminal(STDERR_FILENO) && !Terminal.isTerminal(STDOUT_FILENO)
            && ProcessInfo.processInfo.environment["TERM"] != "dumb"
    }

    /// A line for slow steps within a run (`symbolicate` building a symbol index) rather than for
    /// counting inputs.
    static func forSlowWork() -> ProgressLine { ProgressLine(total: 1, evenForOneInput: true) }

    /// Shows `message...` in place of the line, for a slow step that has no count.
    func show(_ message: String) {
        guard enabled else { return }
        drawn = true
        draw("\r\u{1B}[K\(message)...")
    }

    /// Shows `[done/total] label`, at most ten times a second (the label is made only then).
    func update(done: Int, label: @autoclosure () -> String) {
        guard enabled else { return }
        let now = DispatchTime.now().uptimeNanoseconds
        guard lastDraw == 0 || now - lastDraw >= 100_000_000 else { return }
        lastDraw = now
        drawn = true
        draw("\r\u{1B}[K[\(done)/\(total)] \(label())")
    }

    /// Erases the line, so a message or the end of the run starts on a clean line.
    func erase() {
        guard drawn else { return }
        drawn = false
        draw("\r\u{1B}[K")
    }

    private func draw(_ text: String) {
        var text = text
        text.withUTF8 { bytes in _ = FileIO.write(STDERR_FILENO, UnsafeRawBufferPointer(bytes), retryOnInterrupt: false) }
    }
}

/// A stderr stream that erases the progress line before every message, so warnings never land in
/// the middle of it.
struct ProgressErasingStream<Base: TextOutputStream>: TextOutputStream {
    var base: Base
    let progress: ProgressLine

    mutating func write(_ string: String) {
        progress.erase()
        base.write(string)
    }
}
