import PayloadDecode
import StackSymbolize
import SymbolNames

extension ReportFrameNames {
    /// Each answer no debug file of ours gave (no debug file for the UUID, or nothing at the
    /// address) that a crash report names becomes the report's answer: its names, file and line,
    /// status `report`. Answers from a debug file, DWARF or its symbol table, stay: ours win
    /// where we have one.
    public func fill(_ answers: inout [SymbolicatedFrame]) {
        for index in answers.indices where answers[index].status == .missingDebugFile || answers[index].status == .notFound {
            let request = answers[index].request
            guard let names = names(uuid: request.uuid, offset: request.offset) else { continue }
            answers[index] = Self.answer(request, names: names)
        }
    }

    /// The report's answer for `request`: the function's start is the offset less the report's
    /// `+ N`, so text prints the report's own `name + N`.
    public static func answer(_ request: FrameRequest, names: [AppleCrashReport.ReportName]) -> SymbolicatedFrame {
        let outer = names.last
        let start = outer?.location.flatMap { $0 <= request.offset ? request.offset - $0 : nil }
        return SymbolicatedFrame(
            request: request, status: .report, lookupAddress: request.offset, debugFile: nil,
            frames: names.map { name in
                SourceFrame(
                    linkageName: nil, function: name.symbol, simplifiedName: SymbolName.simplifiedReportName(name.symbol), file: name.file,
                    line: name.line, isInlined: name.isInlined)
            }, functionStart: start)
    }
}

/// A symbolizer whose unanswered frames take the names crash reports gave them (`top` and
/// `report` over crash reports); everything else is `base`'s.
public struct ReportNamedFrames: FrameSymbolizing {
    public let base: any FrameSymbolizing
    public let names: ReportFrameNames

    public init(base: any FrameSymbolizing, names: ReportFrameNames) {
        self.base = base
        self.names = names
    }

    public func symbolicate(_ stack: [FrameRequest]) -> [SymbolicatedFrame] {
        var answers = base.symbolicate(stack)
        names.fill(&answers)
        return answers
    }

    public func symbolicate(stacks: [[FrameRequest]]) -> [[SymbolicatedFrame]] {
        var answers = base.symbolicate(stacks: stacks)
        for index in answers.indices { names.fill(&answers[index]) }
        return answers
    }

    public func hasDebugFile(uuid: String) -> Bool { base.hasDebugFile(uuid: uuid) }

    public func prepareForBatch(uuids: Set<String>, frameCount: Int) { base.prepareForBatch(uuids: uuids, frameCount: frameCount) }

    public func appImage(uuid: String?, name: String?) -> Bool? { base.appImage(uuid: uuid, name: name) }
}
