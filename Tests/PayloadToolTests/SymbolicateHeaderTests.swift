import Foundation
import PayloadDecode
import TestSupport
import Testing

@testable import PayloadTool

/// What `symbolicate FILE...` says about each stack: a crash's header names its exception type,
/// signal and termination code when its row has them (payload dump or row file), and the address
/// column is the frame's offset as the row carries it on every frame.
@Suite struct SymbolicateStackHeaders {
    static var sample: String { Repository.samples.appendingPathComponent("diagnostics-ios18-crashes-hang.json").path }
    static var dsyms: String { Repository.dsymsFixtures.appendingPathComponent("builds").path }

    /// The sample's two crashes (exceptionType 6, signal 5; exceptionType 1, signal 11) and its
    /// hang, as Apple's crash reports name them.
    @Test func aCrashHeaderNamesItsExceptionAndSignal() throws {
        let run = try ToolBinary.run(["symbolicate", "--dsyms", Self.dsyms, Self.sample])
        #expect(run.status == 0, "\(run.stderr)")
        let headers = run.stdout.split(separator: "\n").filter { $0.hasPrefix("crash ") || $0.hasPrefix("hang ") }.map(String.init)
        #expect(
            headers == [
                "crash 433d89da-58e4-56b5-b229-acb88e98e202 build 130 (2024-12-20T09:41:07Z): EXC_BREAKPOINT (SIGTRAP)",
                "crash c5796997-f0bf-5095-88e9-6e6131c9f5f3 build 130 (2024-12-20T09:41:07Z): EXC_BAD_ACCESS (SIGSEGV)",
                "hang 9f1b2483-fdce-5cbc-b4d1-9246dc28bf10 build 130 (2024-12-20T09:41:07Z)",
            ], "\(headers)")

        let json = try ToolBinary.run(["symbolicate", "--json", "--dsyms", Self.dsyms, Self.sample])
        let stacks = try #require(try JSONSerialization.jsonObject(with: Data(json.stdout.utf8)) as? [[String: Any]])
        #expect(stacks.map { $0["exception_type"] as? String } == ["EXC_BREAKPOINT", "EXC_BAD_ACCESS", nil])
        #expect(stacks.map { $0["signal"] as? String } == ["SIGTRAP", "SIGSEGV", nil])
    }

    /// A row file keeps what ended each crash (its three reason columns), so its headers name the
    /// same causes as the payload dump's, in text and JSON.
    @Test func aRowFileNamesTheSameCauses() throws {
        let rows = try ToolBinary.run(["rows", "--format", "jsonl", Self.sample])
        let file = try CommandLineOutput.file("rows.jsonl", rows.stdout)
        defer { try? FileManager.default.removeItem(at: file.deletingLastPathComponent()) }
        let run = try ToolBinary.run(["symbolicate", "--dsyms", Self.dsyms, file.path])
        #expect(run.status == 0, "\(run.stderr)")
        #expect(run.stdout.contains("crash c5796997-f0bf-5095-88e9-6e6131c9f5f3 build 130 (2024-12-20T09:41:07Z): EXC_BAD_ACCESS (SIGSEGV)\n"))
        let direct = try ToolBinary.run(["symbolicate", "--dsyms", Self.dsyms, Self.sample])
        #expect(run.stdout == direct.stdout)
    }

    /// A watchdog kill leads with its termination code, named, then the exception it came with;
    /// `--json` gives the name in `termination`.
    @Test func aWatchdogKillNamesItsTerminationCode() throws {
        let watchdog = Repository.testFixtures.appendingPathComponent("real-metrickit/embrace-splash-crash_with_term_reason.json").path
        let run = try ToolBinary.run(["symbolicate", "--dsyms", Self.dsyms, watchdog])
        #expect(run.stdout.split(separator: "\n").first?.hasSuffix("): watchdog 0x8BADF00D, EXC_CRASH (SIGKILL)") == true, "\(run.stdout)")
        let json = try ToolBinary.run(["symbolicate", "--json", "--dsyms", Self.dsyms, watchdog])
        let stacks = try #require(try JSONSerialization.jsonObject(with: Data(json.stdout.utf8)) as? [[String: Any]])
        #expect(stacks.map { $0["termination"] as? String } == ["watchdog 0x8BADF00D"])
        #expect(stacks.map { $0["signal"] as? String } == ["SIGKILL"])
    }

    /// The address column is the offset the row gives (0x4110 is `ChatStore.apply`'s return
    /// address) on the named frame as on the unnamed one (0x3f8a4 in libswiftCore), never the
    /// looked-up address (0x10000410c, the caller's instruction in the dSYM).
    @Test func theAddressColumnIsTheFramesOffset() throws {
        let run = try ToolBinary.run(["symbolicate", "--dsyms", Self.dsyms, Self.sample])
        let lines = run.stdout.split(separator: "\n").map(String.init)
        #expect(
            lines.contains(
                "0   libswiftCore.dylib      0x000000000003f8a4 libswiftCore.dylib + 260260 [no debug file for UUID 7B2F9E4D-6A1C-3D85-9E37-2C8B5F0A1D96]"
            ))
        #expect(lines.contains("1   YuiApp                  0x0000000000004110 ChatStore.apply + 72 (ChatStore.swift:29)"), "\(run.stdout)")
        #expect(!run.stdout.contains("0x000000010000410c"))
    }

    /// Darwin's numbering (SIGBUS is 10 there, 7 on Linux); numbers with no name stay numbers.
    @Test func causesAreNamedAsOnDarwin() {
        #expect(CrashCause(exceptionType: 1, signal: 10).description == "EXC_BAD_ACCESS (SIGBUS)")
        #expect(CrashCause(exceptionType: 10, signal: 6).description == "EXC_CRASH (SIGABRT)")
        #expect(CrashCause(exceptionType: 99, signal: 40).description == "exception type 99 (signal 40)")
        #expect(CrashCause(exceptionType: nil, signal: 9).description == "SIGKILL")
        #expect(CrashCause(exceptionType: 12, signal: nil).description == "EXC_GUARD")
        #expect(CrashCause(exceptionType: 10, signal: 9, terminationCode: 0x8BAD_F00D).description == "watchdog 0x8BADF00D, EXC_CRASH (SIGKILL)")
        #expect(CrashCause(exceptionType: nil, signal: nil, terminationCode: 0xDEAD_10CC).description == "lock held in background 0xDEAD10CC")
        #expect(CrashCause(exceptionType: nil, signal: nil, terminationCode: 1).description == "termination 0x1")
    }

    /// The termination code in each form `terminationReason` takes in real payloads and the repo's
    /// fixtures; a SIGNAL reason's code is its signal again and is not kept.
    @Test func terminationReasonsGiveTheirCode() {
        #expect(CrashCause.terminationCode(reason: "Namespace SIGNAL, Code 0xb") == nil)
        #expect(CrashCause.terminationCode(reason: "Namespace SIGNAL, Code 11 Segmentation fault: 11") == nil)
        #expect(CrashCause.terminationCode(reason: "Namespace DYLD, Code 1 Library missing") == 1)
        #expect(CrashCause.terminationCode(reason: "FRONTBOARD 2343432205 \n<RBSTerminateContext| domain:10 code:0x8BADF00D") == 0x8BAD_F00D)
        #expect(
            CrashCause.terminationCode(reason: "<RBSTerminateContext| domain:10 code:0x8BADF00D explanation:scene-update watchdog transgression")
                == 0x8BAD_F00D)
        #expect(CrashCause.terminationCode(reason: "something else entirely") == nil)
        #expect(CrashCause.terminationCode(namespace: "FRONTBOARD", code: UInt64.max) == nil)
    }
}
