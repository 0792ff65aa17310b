/// The function symbols of an ELF file's symbol table: the fallback where no DWARF covers an
/// address, and the source of outermost linkage names.
enum ELFSymbolTable {
    /// Function symbols of `.symtab` (or `.dynsym` when stripped), sorted by address, each bounded
    /// by the next symbol and by the end of its section.
    static func functionSymbols(of elf: ElfHandle) -> [SymbolEntry] {
        guard let file = elf.rawBytes() else { return [] }
        var table: ElfSection?
        var dynamicTable: ElfSection?
        for section in elf.sections() {
            if section.type == ElfNumber.sectionSymbolTable { table = section }
            if section.type == ElfNumber.sectionDynamicSymbols { dynamicTable = section }
        }
        guard let chosen = table ?? dynamicTable, let symbols = elf.symbols(of: chosen),
            let strings = elf.section(at: Int(chosen.link)), strings.type == ElfNumber.sectionStringTable,
            strings.offset <= UInt64(file.count), strings.size <= UInt64(file.count) - strings.offset
        else { return [] }
        let stringsStart = Int(strings.offset)
        let stringsSize = Int(strings.size)
        // Where each symbol's section ends: no symbol reaches past it (a size-0 symbol such as
        // `_fini` would otherwise claim every address above it, up to 2^64).
        var sectionEnds: [UInt16: UInt64] = [:]
        func sectionEnd(_ index: UInt16) -> UInt64? {
            if let known = sectionEnds[index] { return known }
            guard let section = elf.section(at: Int(index)), section.flags & ElfNumber.flagExecutable != 0 else { return nil }
            let (end, overflow) = section.address.addingReportingOverflow(section.size)
            let bounded = overflow ? UInt64.max : end
            sectionEnds[index] = bounded
            return bounded
        }
        var result: [SymbolEntry] = []
        var ends: [UInt64] = []
        result.reserveCapacity(symbols.count)
        ends.reserveCapacity(symbols.count)
        for symbol in symbols {
            guard symbol.type == ElfNumber.symbolFunction || symbol.type == ElfNumber.symbolIndirectFunction,
                symbol.sectionIndex != ElfNumber.sectionUndefined, symbol.sectionIndex < ElfNumber.sectionReservedLow,
                symbol.value != 0, Int(symbol.nameOffset) < stringsSize,
                let end = sectionEnd(symbol.sectionIndex), symbol.value < end
            else { continue }
            result.append(SymbolEntry(address: symbol.value, size: symbol.size, nameOffset: stringsStart + Int(symbol.nameOffset)))
            ends.append(end)
        }
        return bounded(result, sectionEnds: ends)
    }

    /// Sorts the symbols by address; a symbol covers its size, or (size 0) up to the next symbol;
    /// never past its section.
    private static func bounded(_ symbols: [SymbolEntry], sectionEnds: [UInt64]) -> [SymbolEntry] {
        // The entries sorted with their section ends beside them (the same comparisons as sorting
        // their indices, so the same order, without reaching back into two arrays per comparison).
        let sorted = zip(symbols, sectionEnds).sorted { $0.0.address < $1.0.address }
        var result = sorted.map(\.0)
        let ends = sorted.map(\.1)
        for index in result.indices {
            let room = ends[index] - result[index].address
            var size = result[index].size
            if size == 0 {
                size = room
                if index + 1 < result.count, result[index + 1].address > result[index].address {
                    size = min(size, result[index + 1].address - result[index].address)
                }
            }
            result[index].size = min(size, room)
        }
        return result
    }
}
