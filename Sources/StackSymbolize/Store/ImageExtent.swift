/// Where a debug file's image lies in its own address space, as its load commands place it:
/// `symbolicate --object` compares addresses with it to say when one lies past the image (a
/// runtime address given without the image's load address, most likely).
public enum ImageExtent {
    /// From the `__TEXT` segment's address to the end of the highest section the image loads
    /// (the dSYM's own `__DWARF` segment is not part of the image); nil for an ELF file, a slice
    /// with no sections, or a file that cannot be read.
    public static func addresses(of file: DebugFileInfo) -> Range<UInt64>? {
        guard file.kind != .elf, let mapped = try? MappedFile(path: file.path),
            let slices = try? MachOReader.slices(of: mapped.view),
            let slice = slices.first(where: { $0.sliceOffset == file.sliceOffset })
        else { return nil }
        let ends = slice.sections.filter { $0.segment != "__DWARF" }.map { $0.address &+ $0.size }
        guard let end = ends.max(), end > slice.textVMAddress else { return nil }
        return slice.textVMAddress..<end
    }
}
