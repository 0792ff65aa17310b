import StackSignature
import StackSymbolize

/// A symbolizer that answers from a table, so the signature rules can be tested without debug
/// files. It keys on (uuid, offset) as the row holds it; the real caller adjustment is
/// StackSymbolize's business and is tested there and by the `top` fixture tests.
struct CannedSymbolizer: FrameSymbolizing {
    var debugFileUUIDs: Set<String>
    var answers: [String: [SourceFrame]]

    init(debugFileUUIDs: Set<String>, answers: [String: [SourceFrame]] = [:]) {
        self.debugFileUUIDs = debugFileUUIDs
        self.answers = answers
    }

    static func key(_ uuid: String?, _ offset: UInt64) -> String { "\(uuid ?? "-")@\(offset)" }

    func symbolicate(_ stack: [FrameRequest]) -> [SymbolicatedFrame] {
        stack.map { request in
            guard let uuid = request.uuid, debugFileUUIDs.contains(uuid) else {
                return SymbolicatedFrame(request: request, status: .missingDebugFile, lookupAddress: nil, debugFile: nil, frames: [])
            }
            let frames = answers[Self.key(uuid, request.offset)] ?? []
            return SymbolicatedFrame(
                request: request, status: frames.isEmpty ? .notFound : .symbolicated, lookupAddress: request.offset,
                debugFile: "/dsyms/\(uuid)", frames: frames)
        }
    }

    func hasDebugFile(uuid: String) -> Bool { debugFileUUIDs.contains(uuid) }
}

/// Source frames as StackSymbolize returns them: innermost first, all but the last inlined.
func sourceFrames(_ names: [(String, Int)], file: String = "YuiApp/Sources.swift") -> [SourceFrame] {
    names.enumerated().map { index, entry in
        SourceFrame(
            linkageName: nil, function: "YuiApp.\(entry.0)", simplifiedName: entry.0, file: file, line: entry.1,
            isInlined: index < names.count - 1)
    }
}
