// libFuzzer entry for the Apple crash report readers, compiled into the PayloadDecode module by
// `fuzz/run`: target `crashreports` feeds the `.ips` reader (a JSON header over a JSON or a text
// body) and the form detection every command reads through; target `crashtext` (built with
// `-D FUZZ_TEXT_READER`) feeds the text reader, whatever the first line. Each report read becomes
// a row, which must hold to the table's rules, and its names go into the names table: no trap,
// no sanitizer report, no hang.
import Foundation

private let fuzzOptions = ConversionOptions(userID: "5B0E6C4E-2D2B-4C52-9E0F-0A1B2C3D4E5F")
private let parser = JSONParser(maxDepth: 512)
private let names = ReportFrameNames()

@_cdecl("LLVMFuzzerTestOneInput")
public func crashReportFuzz(_ data: UnsafePointer<UInt8>, _ size: Int) -> CInt {
    let bytes = UnsafeRawBufferPointer(start: data, count: size)
    // Both details: the full report (`symbolicate`) and what a row needs (`rows`).
    #if FUZZ_TEXT_READER
    let readings = [CrashTextReader.read(bytes, problem: { _ in }), CrashTextReader.read(bytes, detail: .row, problem: { _ in })]
    #else
    var readings = [IPSReader.read(bytes, parser: parser, problem: { _ in }), IPSReader.read(bytes, parser: parser, detail: .row, problem: { _ in })]
    if let (_, reports, _) = CrashReports.read(bytes, fileName: "fuzz") { readings.append(reports) }
    #endif
    for reports in readings {
        for report in reports {
            names.add(report)
            guard let row = CrashReportRow.row(report, ordinal: 0, options: fuzzOptions, place: "", problem: { _ in }) else { continue }
            // A row from a report holds to the table's rules, as every row must.
            let violations = row.tableViolations()
            precondition(violations.isEmpty, "a crash report made a row the table refuses: \(violations)")
        }
    }
    return 0
}
