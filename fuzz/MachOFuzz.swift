// libFuzzer entry for the Mach-O reader, compiled into the StackSymbolize module by `fuzz/run`:
// slices (fat and thin), load commands, segments and sections, the symbol table, and the lift of
// the __DWARF sections into an ELF image. Hostile bytes must give a `SymbolizeError`, never a trap.
import Foundation

@_cdecl("LLVMFuzzerTestOneInput")
public func machOFuzz(_ data: UnsafePointer<UInt8>, _ size: Int) -> CInt {
    let bytes = UnsafeRawBufferPointer(start: data, count: size)
    let view = ByteView(bytes: bytes, path: "fuzz-input")
    guard MachOReader.looksLikeMachO(UnsafeRawBufferPointer(rebasing: bytes.prefix(8))) else { return 0 }
    guard let slices = try? MachOReader.slices(of: view) else { return 0 }
    for slice in slices {
        _ = MachOReader.functionSymbols(of: slice, view: view)
        if !slice.dwarfSections.isEmpty {
            let image = MachOReader.liftedELFImage(of: slice, view: view)
            image.deallocate()
        }
    }
    return 0
}
