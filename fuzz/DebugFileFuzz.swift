// libFuzzer entry for the debug-file loader, compiled into the StackSymbolize module by `fuzz/run`.
// The bytes are written to a file and go the way a build folder's files go: the catalog decides
// ELF or Mach-O, the image is opened (ELF straight into libdw, Mach-O lifted into an ELF image),
// and addresses are looked up so the DWARF units, line tables and symbol tables get decoded.
import Foundation

private let fuzzFilePath: String = {
    let folder = ProcessInfo.processInfo.environment["FUZZ_SCRATCH"] ?? "/dev/shm"
    return "\(folder)/yui-perf-debugfile-fuzz-\(getpid())"
}()

@_cdecl("LLVMFuzzerTestOneInput")
public func debugFileFuzz(_ data: UnsafePointer<UInt8>, _ size: Int) -> CInt {
    guard size >= 4 else { return 0 }
    let descriptor = open(fuzzFilePath, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0o600)
    guard descriptor >= 0 else { fatalError("cannot write \(fuzzFilePath)") }
    var written = 0
    while written < size {
        let count = write(descriptor, data + written, size - written)
        guard count > 0 else { fatalError("cannot write \(fuzzFilePath)") }
        written += count
    }
    close(descriptor)

    guard let symbolizer = try? BuildSymbolizer(debugFiles: [fuzzFilePath]) else { return 0 }
    // Offsets from the input itself reach into whatever address ranges the file claims.
    var offsets: [UInt64] = [0, 4, 0x40, 0x1000, 0x4000]
    let tail = UnsafeRawBufferPointer(start: data, count: size).suffix(32)
    var word: UInt64 = 0
    for (index, byte) in tail.enumerated() {
        word = word << 8 | UInt64(byte)
        if index % 8 == 7 { offsets.append(word % 0x10_0000) }
    }
    for file in symbolizer.debugFiles {
        guard let uuid = file.uuids.first else { continue }
        let stack = offsets.enumerated().map { index, offset in
            FrameRequest(image: "fuzz", uuid: uuid, offset: offset, isReturnAddress: index > 0)
        }
        _ = symbolizer.symbolicate(stack)
    }
    return 0
}
