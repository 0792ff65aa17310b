import Foundation
import SymbolNames

// The frames at an address: from a decoded unit (the inline chain of DIEs and the line row), else the symbol table.
extension DebugImage {
    /// The inline chain at `address`, innermost first, or `nil` when the unit has neither a
    /// function nor a line there.
    func frames(in unit: DecodedUnit, at address: UInt64) -> RawLookup? {
        var frames: [RawFrame] = []
        let (found, start) = visitFrames(in: unit, at: address) { frames.append(rawFrame($0, in: $1)) }
        return found ? RawLookup(source: .dwarf, frames: frames, functionStart: start) : nil
    }

    /// A frame's strings, from its place.
    func rawFrame(_ place: FramePlace, in unit: DecodedUnit) -> RawFrame {
        let names: (linkage: String?, plain: String?)
        switch place.name {
        case .symbol(let symbol): names = (name(of: symbol), nil)
        case .function(let dieOffset, let isInlined): names = name(dieOffset, isInlined: isInlined)
        case .none: names = (nil, nil)
        }
        let file: String?
        switch place.file {
        case .none: file = nil
        case .line(let index): file = unit.lineFileNames[index]
        case .call(let index): file = unit.callFileNames[index]
        }
        return RawFrame(linkageName: names.linkage, plainName: names.plain, file: file, line: place.line, isInlined: place.isInlined)
    }

    /// The frames at `address` in `unit` as places, innermost first: `found` is false (and
    /// nothing visited) when the unit has neither a function nor a line there; `functionStart` is
    /// the start of the outermost function's range holding the address. `visit` is lent the unit
    /// too: a closure capturing it copied the unit (a dozen arrays retained) per address.
    func visitFrames(
        in unit: DecodedUnit, at address: UInt64, _ visit: (FramePlace, DecodedUnit) -> Void
    ) -> (found: Bool, functionStart: UInt64?) {
        // The chain in an array kept from one address to the next (one allocated and freed per
        // address was a few percent of a cold batch).
        var chain = chainScratch
        chainScratch = []
        defer { chainScratch = chain }
        unit.scopeChain(at: address, into: &chain)
        let row = unit.locationRow(at: address)
        let rowFile: FramePlace.File = row.map { $0.file >= 0 ? .line(Int($0.file)) : .none } ?? .none
        if chain.isEmpty {
            guard let row else { return (false, nil) }
            // A line but no function DIE: the symbol table names it, as llvm-symbolizer does.
            let symbol = symbol(containing: address)
            visit(FramePlace(name: symbol.map { .symbol($0) } ?? .none, file: rowFile, line: row.line, isInlined: false), unit)
            return (true, symbol?.address)
        }
        for position in stride(from: chain.count - 1, through: 0, by: -1) {
            let node = unit.nodes[Int(chain[position])]
            // The outermost frame is a real function, named by the symbol that covers the address
            // as llvm-symbolizer names it: that gives a linkage name even where the DWARF has only
            // `DW_AT_name` (line-tables-only builds, Objective-C methods, `operator new`, a bitcode
            // build's `__hidden#12_`), and where one body has two names (a C++ constructor's `C1` and
            // `C2`, identical code folded) the symbol table's choice (docs/symbolication.md). Only
            // without a covering symbol does the DWARF name it.
            var name = FramePlace.Name.function(node.dieOffset, isInlined: node.isInlined)
            if position == 0, let symbol = symbol(containing: address) { name = .symbol(symbol) }
            var file = FramePlace.File.none
            var line: Int?
            if position == chain.count - 1 {
                file = rowFile
                line = row?.line
            } else {
                let callee = unit.nodes[Int(chain[position + 1])]
                if callee.callFile >= 0, Int(callee.callFile) < unit.callFileNames.count { file = .call(Int(callee.callFile)) }
                line = Int(callee.callLine)
            }
            visit(FramePlace(name: name, file: file, line: line, isInlined: position > 0), unit)
        }
        return (true, unit.start(of: chain[0], containing: address))
    }

    /// Until the table is loaded, this many lookups are answered by a pass over the stored table
    /// (`ELFSymbolTable.Scan`): a pass costs about a thirtieth of loading and sorting it.
    static let symbolLookupsBeforeLoading = 16

    func symbol(containing address: UInt64) -> SymbolEntry? {
        if scannedSymbolLookups < Self.symbolLookupsBeforeLoading, !sharedSymbols.isLoaded, let scan = symbolScan {
            scannedSymbolLookups += 1
            return scan.symbol(containing: address)
        }
        return symbolFromTable(containing: address)
    }

    /// `symbol(containing:)` from the loaded table (tests compare it with the pass).
    func symbolFromTable(containing address: UInt64) -> SymbolEntry? {
        let table = symbols
        var low = 0
        var high = table.count
        while low < high {
            let middle = (low + high) / 2
            if table[middle].address <= address { low = middle + 1 } else { high = middle }
        }
        guard low > 0 else { return nil }
        // Sizes are bounded when the table is loaded (to the next symbol or the section's end), so
        // an address past the last function, or before the first, is not found.
        let candidate = table[low - 1]
        guard address - candidate.address < candidate.size else { return nil }
        return candidate
    }
}
