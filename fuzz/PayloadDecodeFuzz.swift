// libFuzzer entry for the payload decoder, compiled into the PayloadDecode module by `fuzz/run`.
// Whatever the bytes, converting them must report and return: no trap, no sanitizer report, no hang.
import Foundation

private let fuzzOptions: ConversionOptions = {
    var options = ConversionOptions(userID: "5B0E6C4E-2D2B-4C52-9E0F-0A1B2C3D4E5F")
    // Bare call-stack trees are read too (as `symbolicate --build 130 --all-samples` reads them).
    options.treeBuild = 130
    options.treeAllSamples = true
    // Smaller limits than the defaults so the fuzzer reaches them with inputs it can build.
    options.maxFileBytes = 1 << 20
    options.maxLineBytes = 64 << 10
    return options
}()

@_cdecl("LLVMFuzzerTestOneInput")
public func payloadDecodeFuzz(_ data: UnsafePointer<UInt8>, _ size: Int) -> CInt {
    let bytes = UnsafeRawBufferPointer(start: data, count: size)
    var rows = 0
    RowSource.rows(fromBytes: bytes, fileName: "fuzz-input", options: fuzzOptions, report: { _ in }, emit: { row in
        // Touch what a writer would: every row must hold together as a row.
        rows += row.stack?.count ?? 0
    })
    return 0
}
