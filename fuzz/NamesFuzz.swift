// libFuzzer entry for the name readers, compiled into the SymbolNames module by `fuzz/run`. Names
// come from debug files and payloads, so they are untrusted bytes: whatever they are, each reader
// answers (a name, or nil for "not mine") without a trap, a hang or a stack overflow. The runtime's
// demangler (`swift_demangle`) and libstdc++'s are called too, through `SwiftNames`, as every
// frame's name is.
import Foundation

@_cdecl("LLVMFuzzerTestOneInput")
public func namesFuzz(_ data: UnsafePointer<UInt8>, _ size: Int) -> CInt {
    let bytes = UnsafeBufferPointer(start: data, count: size)
    var reader = MangledSwiftName()
    _ = reader.simplifiedName(bytes: bytes)
    _ = CxxMangledName.simplifiedName(bytes: bytes)
    _ = LegacySwiftDemangler.demangle(Array(bytes))
    let text = String(decoding: bytes, as: UTF8.self)
    _ = SwiftNames.demangle(text)
    _ = SwiftNames.simplified(text)
    return 0
}
