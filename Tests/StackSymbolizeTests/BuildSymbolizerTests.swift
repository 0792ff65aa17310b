import Foundation
import Testing

@testable import StackSymbolize

@Suite struct BuildSymbolizerTests {
    let build: Fixtures.AppBuild
    let symbolizer: BuildSymbolizer

    init() throws {
        let table = try Fixtures.appTable()
        build = try #require(table.builds["130"])
        symbolizer = try BuildSymbolizer(buildFolder: try Fixtures.path("builds/130"))
    }

    func function(_ linkageName: String) throws -> Fixtures.Function {
        try #require(build.functions.first { $0.linkage_name == linkageName })
    }

    func request(_ offset: UInt64, returnAddress: Bool, uuid: String? = nil) -> FrameRequest {
        FrameRequest(image: "YuiApp", uuid: uuid ?? build.uuid, offset: offset, isReturnAddress: returnAddress)
    }

    @Test func hangStackPrintsTheSourceNames() throws {
        let parse = try function("$s6YuiApp0A5LinesV5parseyAA3NumVAFF")
        let apply = try function("$s6YuiApp9ChatStoreV5applyyAA3NumVAA0C5EventVF")
        let body = try function("$s6YuiApp10ThreadViewV4bodyAA3NumVvg")
        let applyCallsParse = try #require(apply.calls.first { $0.callee == parse.linkage_name })
        let bodyCallsApply = try #require(body.calls.first { $0.callee == apply.linkage_name })
        let stack = [
            request(parse.start_offset + 8, returnAddress: false),
            request(applyCallsParse.return_offset, returnAddress: true),
            request(bodyCallsApply.return_offset, returnAddress: true),
        ]
        let frames = symbolizer.symbolicate(stack)
        #expect(frames.map(\.status) == [.symbolicated, .symbolicated, .symbolicated])
        // The outermost source frame of each stack frame is the real (not inlined) function.
        #expect(frames.map { $0.frames.last?.simplifiedName } == ["YuiLines.parse", "ChatStore.apply", "ThreadView.body"])
        #expect(frames.allSatisfy { $0.frames.last?.isInlined == false })
        #expect(frames[0].frames.last?.file?.hasSuffix("YuiLines.swift") == true)
        #expect(frames[0].lookupAddress == 0x1_0000_0000 + parse.start_offset + 8)
    }

    @Test func returnAddressPastTheFunctionEndIsLookedUpInTheCaller() throws {
        // YuiLines.fail ends in a call: its return address is the first instruction of crash().
        let fail = try function("$s6YuiApp0A5LinesV4fail2atAA5FatalOAA3NumV_tF")
        let endingCall = try #require(fail.calls.first { $0.return_offset == fail.start_offset + fail.size })
        let asReturnAddress = symbolizer.symbolicate([request(endingCall.return_offset, returnAddress: true)])[0]
        let asInstruction = symbolizer.symbolicate([request(endingCall.return_offset, returnAddress: false)])[0]
        #expect(asReturnAddress.frames.last?.simplifiedName == "YuiLines.fail")
        #expect(asReturnAddress.lookupAddress == 0x1_0000_0000 + endingCall.return_offset - 4)
        #expect(asInstruction.frames.last?.simplifiedName == "crash")
    }

    @Test func inlinedCallsExpandWithTheCallersLine() throws {
        let refresh = try function("$s6YuiApp10ThreadViewV7refreshAA3NumVyF")
        // 16504 lies in plus(), inlined into refresh at ThreadView.swift line 23.
        let frame = symbolizer.symbolicate([request(16504, returnAddress: false)])[0]
        #expect(frame.frames.map(\.simplifiedName) == ["plus", "ThreadView.refresh"])
        #expect(frame.frames.map(\.isInlined) == [true, false])
        #expect(frame.frames.last?.line == 23)
        #expect(frame.frames.last?.linkageName == refresh.linkage_name)
    }

    @Test func frameWithoutDebugFileStaysImagePlusOffset() {
        let unknown = "00000000-1111-2222-3333-444444444444"
        let frame = symbolizer.symbolicate([request(0x4010, returnAddress: true, uuid: unknown)])[0]
        #expect(frame.status == .missingDebugFile)
        #expect(frame.frames.isEmpty)
        #expect(frame.request.offset == 0x4010)
        #expect(!symbolizer.hasDebugFile(uuid: unknown))
        #expect(symbolizer.hasDebugFile(uuid: build.uuid.lowercased()))
    }

    @Test func addressOutsideEveryFunctionIsNotFound() {
        let frame = symbolizer.symbolicate([request(0x10, returnAddress: false)])[0]
        #expect(frame.status == .notFound)
        #expect(frame.frames.isEmpty)
    }

    @Test func buildFolderStaysUnderTheRoot() throws {
        #expect(try BuildSymbolizer.buildFolder(root: "/srv/dsyms", build: "130") == "/srv/dsyms/130")
        for hostile in ["../../etc", "..", ".", "130/../../etc", "/etc", "", "a\u{0}b", "130 "] {
            #expect(throws: SymbolizeError.self) { try BuildSymbolizer.buildFolder(root: "/srv/dsyms", build: hostile) }
        }
    }

    @Test func fatSlicesArePickedByUUID() throws {
        let fat = try BuildSymbolizer(debugFiles: [try Fixtures.path("other/YuiCore64")])
        #expect(fat.debugFiles.map(\.arch) == ["arm64", "arm64e"])
        #expect(fat.debugFiles.allSatisfy { $0.kind == .fatSlice })
        #expect(throws: SymbolizeError.self) { try fat.lookup(addresses: [0], uuid: nil) }
        for file in fat.debugFiles {
            let answer = try fat.lookup(addresses: [0], uuid: file.uuids[0], offsets: true)
            #expect(answer[0].debugFile == file.path)
        }
    }

    /// A batch large enough to be split over two threads answers exactly as the same addresses
    /// looked up in small batches on one thread.
    @Test func batchSplitOverTwoThreadsAnswersAsOneThread() throws {
        var addresses: [UInt64] = []
        while addresses.count < ParallelLookup.minimumForThreads + 1_000 {
            for function in build.functions {
                for step in stride(from: 0, to: function.size, by: 4) { addresses.append(function.start_offset + step) }
            }
        }
        let whole = try symbolizer.lookup(addresses: addresses, uuid: build.uuid, offsets: true)
        var pieces: [SymbolicatedFrame] = []
        for start in stride(from: 0, to: addresses.count, by: 5_000) {
            let end = min(start + 5_000, addresses.count)
            pieces += try symbolizer.lookup(addresses: Array(addresses[start..<end]), uuid: build.uuid, offsets: true)
        }
        #expect(whole.count == addresses.count)
        #expect(whole.filter { $0.status == .symbolicated }.count > addresses.count / 2)
        let describe = { (frame: SymbolicatedFrame) in frame.frames.map { "\($0.function) \($0.file ?? "?"):\($0.line ?? 0)" } }
        #expect(whole.map(describe) == pieces.map(describe))
    }

    /// A large batch whose debug file was prepared ahead (`prepareForBatch`, as `symbolicate` does
    /// while it finds the batch's distinct stacks) answers exactly as one that was not: frames and text.
    @Test func preparedLargeBatchAnswersAsAnUnpreparedOne() throws {
        var stacks: [[FrameRequest]] = []
        while stacks.count < ParallelLookup.minimumForThreads + 1_000 {
            for function in build.functions {
                for step in stride(from: 0, to: function.size, by: 4) {
                    stacks.append([request(function.start_offset + step, returnAddress: false)])
                }
            }
        }
        let describe = { (frame: SymbolicatedFrame) in
            "\(frame.status) " + frame.frames.map { "\($0.function) \($0.file ?? "?"):\($0.line ?? 0)" }.joined(separator: " | ")
        }
        let fresh = { try BuildSymbolizer(buildFolder: try Fixtures.path("builds/130")) }
        let prepared = try fresh()
        prepared.prepareForBatch(uuids: [build.uuid], frameCount: stacks.count)
        #expect(prepared.preparations.count == (ParallelLookup.usesThreads(for: stacks.count) ? 1 : 0))
        let unprepared = try fresh()
        let preparedFrames = prepared.symbolicate(stacks: stacks).map { $0.map(describe) }
        #expect(prepared.preparations.isEmpty && prepared.preparedWorkers.isEmpty)
        #expect(preparedFrames == unprepared.symbolicate(stacks: stacks).map { $0.map(describe) })
        #expect(preparedFrames.joined().filter { $0.hasPrefix("symbolicated") }.count > stacks.count / 2)

        let preparedForText = try fresh()
        preparedForText.prepareForBatch(uuids: [build.uuid], frameCount: stacks.count)
        let text = preparedForText.symbolicateForText(stacks: stacks)
        let unpreparedText = try fresh().symbolicateForText(stacks: stacks)
        #expect(text.places == unpreparedText.places)
        #expect(text.files.map(\.text) == unpreparedText.files.map(\.text))
        #expect(text.files.map { $0.answers.map(\.frames) } == unpreparedText.files.map { $0.answers.map(\.frames) })
    }

    @Test func elfAnswersToBothBuildIDForms() throws {
        let elf = try BuildSymbolizer(debugFiles: [try Fixtures.path("other/yui-linux")])
        let file = try #require(elf.debugFiles.first)
        #expect(file.kind == .elf)
        #expect(file.uuids.count == 2)
        #expect(file.uuids.allSatisfy { elf.hasDebugFile(uuid: $0) })
    }
}
