import Foundation
import TestSupport
import Testing

@testable import PayloadDecode

/// Sentry's apple-crash-report-parser as the conformance suite of the text reader: its fixtures
/// and the snapshots its parser wrote of them (Tests/Fixtures/crash-reports/sentry/PROVENANCE.md).
@Suite struct SentryConformance {
    static let folder = Repository.testFixtures.appendingPathComponent("crash-reports/sentry")

    /// What a snapshot says of one thread, one frame and one image (the keys compared).
    struct Thread: Equatable, CustomStringConvertible {
        var id: Int
        var crashed: Bool
        var frames: [Frame]
        var description: String { "thread \(id)\(crashed ? " crashed" : ""): \(frames.count) frames" }
    }

    struct Frame: Equatable {
        var module: String?
        var symbol: String?
        var filename: String?
        var lineno: Int?
        var address: UInt64
    }

    struct Image: Equatable {
        var addr: UInt64
        var size: UInt64?
        var uuid: String?
        var arch: String?
        var name: String?
    }

    /// The parts of an insta YAML snapshot that hold threads and binary images: two-space
    /// indentation, `- ` items, `key: value` with values maybe quoted.
    static func snapshot(_ name: String) throws -> (threads: [Thread], images: [Image]) {
        let text = try String(contentsOf: folder.appendingPathComponent("test_snapshots__\(name).snap"), encoding: .utf8)
        var threads: [Thread] = []
        var images: [Image] = []
        var section = ""
        for line in text.split(separator: "\n") {
            if !line.hasPrefix(" ") {
                section = String(line.prefix(while: { $0 != ":" }))
                continue
            }
            let trimmed = line.drop(while: { $0 == " " })
            let isItem = trimmed.hasPrefix("- ")
            let pair = isItem ? trimmed.dropFirst(2) : trimmed
            guard let colon = pair.firstIndex(of: ":") else { continue }
            let key = String(pair[..<colon])
            var value = String(pair[pair.index(after: colon)...].drop(while: { $0 == " " }))
            if value.hasPrefix("\""), value.hasSuffix("\""), value.count >= 2 { value = String(value.dropFirst().dropLast()) }
            let indent = line.count - trimmed.count
            switch section {
            case "threads":
                if indent == 2, isItem, key == "id" {
                    threads.append(Thread(id: Int(value)!, crashed: false, frames: []))
                } else if indent == 4, key == "crashed" {
                    threads[threads.count - 1].crashed = value == "true"
                } else if indent == 6, isItem {
                    threads[threads.count - 1].frames.append(Frame(address: 0))
                    set(key, value, on: &threads[threads.count - 1].frames[threads[threads.count - 1].frames.count - 1])
                } else if indent == 8 {
                    set(key, value, on: &threads[threads.count - 1].frames[threads[threads.count - 1].frames.count - 1])
                }
            case "binary_images":
                if isItem { images.append(Image(addr: 0)) }
                switch key {
                case "addr": images[images.count - 1].addr = UInt64(value.dropFirst(2), radix: 16)!
                case "size": images[images.count - 1].size = UInt64(value)
                case "uuid": images[images.count - 1].uuid = value.uppercased()
                case "arch": images[images.count - 1].arch = value.hasPrefix("(") ? String(value.dropFirst().dropLast()) : value
                case "name": images[images.count - 1].name = value
                default: break
                }
            default: continue
            }
        }
        return (threads, images)
    }

    private static func set(_ key: String, _ value: String, on frame: inout Frame) {
        switch key {
        case "module": frame.module = value
        case "symbol": frame.symbol = value
        case "filename": frame.filename = value
        case "lineno": frame.lineno = Int(value)
        case "instruction_addr": frame.address = UInt64(value.dropFirst(2), radix: 16)!
        default: break
        }
    }

    /// Ours, in the snapshot's terms: the image an address lies in is the frame's module (none
    /// for `???`), the report's name its symbol, file and line.
    static func ours(_ name: String) throws -> (threads: [Thread], images: [Image], report: AppleCrashReport) {
        let bytes = try Array(Data(contentsOf: folder.appendingPathComponent("\(name).txt")))
        let reports = bytes.withUnsafeBytes { CrashTextReader.read($0, problem: { _ in }) }
        let report = try #require(reports.first)
        #expect(reports.count == 1)
        let threads = report.threads.map { thread in
            Thread(
                id: thread.number, crashed: thread.crashed,
                frames: thread.frames.map { frame in
                    let name = frame.names.last
                    return Frame(
                        module: frame.imageIndex.flatMap { report.images[$0].name }, symbol: name?.symbol, filename: name?.file,
                        lineno: name?.line, address: frame.address ?? 0)
                })
        }
        // The images the report lists (ours adds name-only ones for frames in none: no base).
        let images = report.images.filter { $0.base != nil }.map { image in
            // Sentry's size is `end - start`; the end is the image's last byte, so ours is one more.
            Image(addr: image.base!, size: image.size.map { $0 - 1 }, uuid: image.uuid, arch: image.arch, name: image.name)
        }
        return (threads, images, report)
    }

    @Test(arguments: ["XCDYouTubeKit-54", "bruno", "handcrafted", "spaces"])
    func threadsFramesAndImagesEqualSentrysSnapshot(name: String) throws {
        let expected = try Self.snapshot(name)
        let (threads, images, _) = try Self.ours(name)
        #expect(!expected.threads.isEmpty && !expected.images.isEmpty)
        #expect(threads.map(\.id) == expected.threads.map(\.id))
        #expect(threads.filter(\.crashed).map(\.id) == expected.threads.filter(\.crashed).map(\.id))
        for (mine, theirs) in zip(threads, expected.threads) {
            #expect(mine.frames.map(\.address) == theirs.frames.map(\.address), "\(name) thread \(theirs.id): addresses")
            for (index, (frame, expectedFrame)) in zip(mine.frames, theirs.frames).enumerated() where frame != expectedFrame {
                Issue.record("\(name) thread \(theirs.id) frame \(index): ours \(frame), Sentry's \(expectedFrame)")
            }
        }
        #expect(images.count == expected.images.count)
        for (mine, theirs) in zip(images, expected.images) where mine != theirs {
            Issue.record("\(name): image ours \(mine), Sentry's \(theirs)")
        }
    }

    /// The header-only example of Apple's documentation: its moment with four fractional digits,
    /// and `Version: 1 (3.0)` read as an iOS 13 report writes it (build first).
    @Test func applesExampleHeader() throws {
        let conversion = convertFile(Self.folder.appendingPathComponent("xcode16.txt").path)
        let row = try #require(conversion.rows.first)
        #expect(conversion.errors.isEmpty, "\(conversion.diagnostics)")
        #expect(row.period_start == "2020-03-28T01:06:51Z" && row.app_build == 1 && row.app_version == "3.0")
        #expect(row.os == "13.3.1" && row.device == "iPhone8,1" && row.stack == nil)
    }

    /// The fragment (threads and images without a header) is refused by every entry, saying what it is.
    @Test func theFragmentIsRefusedWithAMessage() throws {
        let conversion = convertFile(Self.folder.appendingPathComponent("spaces.txt").path)
        #expect(conversion.rows.isEmpty && !conversion.succeeded)
        #expect(conversion.errors.map(\.message) == [CrashReports.fragmentMessage])
        #expect(CrashReports.fragmentMessage.contains("thread listing without a crash report's header"))
    }

    /// The macOS reports become rows: Mac OS X's version, the build from `Version:` alone, with a warning.
    @Test(arguments: [
        ("bruno", 4, "4.21.1", "10.14.0", "MacBookPro14,3"), ("handcrafted", 4, "4.21.1", "10.14.0", "MacBookPro14,3"),
        ("XCDYouTubeKit-54", 512, "512", "10.8.5", "MacBookPro5,3"),
    ])
    func macReportsAreRows(name: String, build: Int, version: String, os: String, device: String) throws {
        let conversion = convertFile(Self.folder.appendingPathComponent("\(name).txt").path)
        #expect(conversion.errors.isEmpty, "\(conversion.diagnostics)")
        let row = try #require(conversion.rows.first)
        #expect(conversion.rows.count == 1)
        #expect(row.app_build == build && row.app_version == version && row.os == os && row.device == device)
        #expect(conversion.warnings.map(\.message).contains { $0.contains("has no build in parentheses; build \(build) taken from it") })
        #expect(row.signal == 11 && (row.stack?.count ?? 0) > 0)
    }
}
