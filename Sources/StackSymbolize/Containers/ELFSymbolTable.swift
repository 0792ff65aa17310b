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
        guard let chosen = table ?? dynamicTable,
            let strings = elf.section(at: Int(chosen.link)), strings.type == ElfNumber.sectionStringTable,
            strings.offset <= UInt64(file.count), strings.size <= UInt64(file.count) - strings.offset
        else { return [] }
        let stringsStart = Int(strings.offset)
        let stringsSize = Int(strings.size)
        // Where each symbol's section ends: no symbol reaches past it (a size-0 symbol such as
        // `_fini` would otherwise claim every address above it, up to 2^64).
        // Where each executable section ends, by section index (nil: not executable), found once
        // for the few sections there are rather than looked up per symbol.
        let executableEnds: [UInt64?] = (0..<(elf.sectionCount() ?? 0)).map { index in
            guard let section = elf.section(at: index), section.flags & ElfNumber.flagExecutable != 0 else { return nil }
            let (end, overflow) = section.address.addingReportingOverflow(section.size)
            return overflow ? UInt64.max : end
        }
        func sectionEnd(_ index: UInt16) -> UInt64? { Int(index) < executableEnds.count ? executableEnds[Int(index)] : nil }
        var result: [SymbolEntry] = []
        var ends: [UInt64] = []
        if let raw = rawFunctionSymbols(elf, chosen, file: file, stringsStart: stringsStart, stringsSize: stringsSize, sectionEnd: sectionEnd) {
            return bounded(raw.symbols, sectionEnds: raw.ends)
        }
        guard let symbols = elf.symbols(of: chosen) else { return [] }
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
    /// `functionSymbols`' selection read straight from the table's bytes, for a 64-bit
    /// little-endian file (every ELF this tool meets): an array of every symbol read through libelf
    /// first (a call and 32 bytes per symbol, 60,000 symbols on a small binary) was most of loading
    /// the table. The same tests as `functionSymbols`' loop, in the same order; nil for other files.
    private static func rawFunctionSymbols(
        _ elf: ElfHandle, _ table: ElfSection, file: UnsafeRawBufferPointer, stringsStart: Int, stringsSize: Int,
        sectionEnd: (UInt16) -> UInt64?
    ) -> (symbols: [SymbolEntry], ends: [UInt64])? {
        let entrySize = 24
        guard file.count > 5, file[4] == 2, file[5] == 1, table.entrySize == UInt64(entrySize), let entries = elf.contents(of: table)
        else { return nil }
        let count = entries.count / entrySize
        var symbols: [SymbolEntry] = []
        var ends: [UInt64] = []
        symbols.reserveCapacity(count)
        ends.reserveCapacity(count)
        for index in 0..<count {
            let base = index * entrySize
            let type = entries[base + 4] & 0xf
            guard type == ElfNumber.symbolFunction || type == ElfNumber.symbolIndirectFunction else { continue }
            let name = Int(entries.loadUnaligned(fromByteOffset: base, as: UInt32.self).littleEndian)
            let sectionIndex = entries.loadUnaligned(fromByteOffset: base + 6, as: UInt16.self).littleEndian
            let value = entries.loadUnaligned(fromByteOffset: base + 8, as: UInt64.self).littleEndian
            guard sectionIndex != ElfNumber.sectionUndefined, sectionIndex < ElfNumber.sectionReservedLow, value != 0, name < stringsSize,
                let end = sectionEnd(sectionIndex), value < end
            else { continue }
            let size = entries.loadUnaligned(fromByteOffset: base + 16, as: UInt64.self).littleEndian
            symbols.append(SymbolEntry(address: value, size: size, nameOffset: stringsStart + name))
            ends.append(end)
        }
        return (symbols, ends)
    }

    private static func bounded(_ symbols: [SymbolEntry], sectionEnds: [UInt64]) -> [SymbolEntry] {
        // The entries sorted with their section ends beside them (the same comparisons as sorting
        // their indices, so the same order, without reaching back into two arrays per comparison).
        let order = symbols.map(\.address).ascendingOrder()
        var result = order.map { symbols[$0] }
        let ends = order.map { sectionEnds[$0] }
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

    /// A pass over the function symbols as stored, for the first few lookups of a run.
    static func scan(of elf: ElfHandle) -> Scan? { Scan(elf) }

    /// The function symbol covering an address, found by one pass over the table as stored, with
    /// exactly the answer `functionSymbols(of:)` and a binary search give (the same filter, the
    /// last of several symbols at one address, the same bounds). A run that asks about a few
    /// addresses would otherwise read and sort the whole table: 7 of the 27 million instructions
    /// of one address on swift-help. 64-bit little-endian files only (every other file loads the
    /// table).
    struct Scan {
        private let entries: UnsafeRawBufferPointer
        private let stringsStart: Int
        private let stringsSize: Int
        /// Per section index: where an executable section ends, nil for any other section.
        private let sectionEnds: [UInt64?]
        private static let entrySize = 24

        fileprivate init?(_ elf: ElfHandle) {
            guard let file = elf.rawBytes(), file.count > 5, file[4] == 2, file[5] == 1 else { return nil }  // ELFCLASS64, ELFDATA2LSB
            var table: ElfSection?
            var dynamicTable: ElfSection?
            var ends: [UInt64?] = []
            for section in elf.sections() {
                if section.type == ElfNumber.sectionSymbolTable { table = section }
                if section.type == ElfNumber.sectionDynamicSymbols { dynamicTable = section }
                if section.index >= ends.count { ends += [UInt64?](repeating: nil, count: section.index + 1 - ends.count) }
                if section.flags & ElfNumber.flagExecutable != 0 {
                    let (end, overflow) = section.address.addingReportingOverflow(section.size)
                    ends[section.index] = overflow ? UInt64.max : end
                }
            }
            guard let chosen = table ?? dynamicTable, chosen.entrySize == UInt64(Self.entrySize), let entries = elf.contents(of: chosen),
                let strings = elf.section(at: Int(chosen.link)), strings.type == ElfNumber.sectionStringTable,
                strings.offset <= UInt64(file.count), strings.size <= UInt64(file.count) - strings.offset
            else { return nil }
            self.entries = entries
            stringsStart = Int(strings.offset)
            stringsSize = Int(strings.size)
            sectionEnds = ends
        }

        func symbol(containing target: UInt64) -> SymbolEntry? {
            var best: (address: UInt64, size: UInt64, name: Int, end: UInt64)?
            var nextAbove = UInt64.max
            let count = entries.count / Self.entrySize
            for index in 0..<count {
                let base = index * Self.entrySize
                let type = entries[base + 4] & 0xf
                guard type == ElfNumber.symbolFunction || type == ElfNumber.symbolIndirectFunction else { continue }
                let name = Int(entries.loadUnaligned(fromByteOffset: base, as: UInt32.self).littleEndian)
                let sectionIndex = entries.loadUnaligned(fromByteOffset: base + 6, as: UInt16.self).littleEndian
                let value = entries.loadUnaligned(fromByteOffset: base + 8, as: UInt64.self).littleEndian
                guard sectionIndex != ElfNumber.sectionUndefined, sectionIndex < ElfNumber.sectionReservedLow, value != 0,
                    name < stringsSize, Int(sectionIndex) < sectionEnds.count, let end = sectionEnds[Int(sectionIndex)], value < end
                else { continue }
                if value <= target {
                    // The last of several symbols at one address, as the stable sort leaves it.
                    if best == nil || value >= best!.address {
                        let size = entries.loadUnaligned(fromByteOffset: base + 16, as: UInt64.self).littleEndian
                        best = (value, size, name, end)
                    }
                } else if value < nextAbove {
                    nextAbove = value
                }
            }
            guard let best else { return nil }
            // Bounded as `bounded(_:sectionEnds:)` bounds it: a size-0 symbol reaches the next one.
            let room = best.end - best.address
            var size = best.size
            if size == 0 {
                size = room
                if nextAbove != UInt64.max { size = min(size, nextAbove - best.address) }
            }
            size = min(size, room)
            guard target - best.address < size else { return nil }
            return SymbolEntry(address: best.address, size: size, nameOffset: stringsStart + best.name)
        }
    }
}
