// libFuzzer entry for the Apple crash report readers (.ips and .crash text), compiled into the
// PayloadDecode module by `fuzz/run`. Both readers get every input, whatever its first line, and
// each report read becomes a row: no trap, no sanitizer report, no hang.
import Foundation

private let fuzzOptions = ConversionOptions(userID: "5B0E6C4E-2D2B-4C52-9E0F-0A1B2C3D4E5F")
private let parser = JSONParser(maxDepth: 512)

@_cdecl("LLVMFuzzerTestOneInput")
public func crashReportFuzz(_ data: UnsafePointer<UInt8>, _ size: Int) -> CInt {
    let bytes = UnsafeRawBufferPointer(start: data, count: size)
    var frames = 0
    for reports in [IPSReader.read(bytes, parser: parser, problem: { _ in }), CrashTextReader.read(bytes, problem: { _ in })] {
        for report in reports {
            guard let row = CrashReportRow.row(report, ordinal: 0, options: fuzzOptions, place: "", problem: { _ in }) else { continue }
            // A row from a report holds to the table's rules, as every row must.
            let violations = row.tableViolations()
            precondition(violations.isEmpty, "a crash report made a row the table refuses: \(violations)")
            frames += row.stack?.count ?? 0
        }
    }
    return 0
}
