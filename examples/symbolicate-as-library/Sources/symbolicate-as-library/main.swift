import Foundation
import StackSymbolize

// symbolicate-as-library DEBUG_FILE ADDRESS...: each address's frames, innermost first, as
// `ADDRESS function file:line`, through the library's public API alone.
let arguments = CommandLine.arguments.dropFirst()
guard let debugFile = arguments.first, arguments.count >= 2 else {
    FileHandle.standardError.write(Data("usage: symbolicate-as-library DEBUG_FILE ADDRESS...\n".utf8))
    exit(64)
}
let addresses = arguments.dropFirst().compactMap { UInt64($0.hasPrefix("0x") ? String($0.dropFirst(2)) : $0, radix: 16) }
do {
    let symbolizer = try BuildSymbolizer(debugFiles: [debugFile])
    for answer in try symbolizer.lookup(addresses: addresses, uuid: nil) {
        for frame in answer.frames {
            print("0x\(String(answer.lookupAddress ?? 0, radix: 16)) \(frame.simplifiedName) \(frame.file ?? "?"):\(frame.line ?? 0)")
        }
    }
} catch {
    FileHandle.standardError.write(Data("error: \(error)\n".utf8))
    exit(1)
}
