import Foundation
import TestSupport
import Testing

@testable import PayloadDecode

/// `rows` reads a report as far as a row needs (`CrashReportDetail.row`: the crashed thread, the
/// images its frames lie in, no names); `symbolicate` and `top` read it whole. The rows are the
/// same, and so are the errors (warnings about the threads a row does not keep are the whole
/// reading's only).
@Suite struct CrashReportDetailTests {
    static let folder = Repository.testFixtures.appendingPathComponent("crash-reports")

    static var files: [String] {
        let enumerator = FileManager.default.enumerator(atPath: folder.path)
        return (enumerator?.allObjects as? [String] ?? []).filter { $0.hasSuffix(".ips") || $0.hasSuffix(".crash") || $0.hasSuffix(".txt") }
            .sorted()
    }

    @Test func everyReportIsRead() { #expect(Self.files.count >= 33) }

    @Test(arguments: files)
    func aRowIsTheSameReadInPartAsReadWhole(file: String) throws {
        let whole = ConversionOptions()
        var named = ConversionOptions()
        named.frameNames = ReportFrameNames()
        let path = Self.folder.appendingPathComponent(file).path
        let part = convertFile(path, options: whole)
        let full = convertFile(path, options: named)
        #expect(part.rows == full.rows, "\(file)")
        #expect(part.errors.map(\.description) == full.errors.map(\.description), "\(file)")
        #expect(part.succeeded == full.succeeded)
    }
}
