@testable import StackSymbolize

// Both unit decoders asked the same questions of one image, for the tests that compare the bytes
// reader with libdw (`DIECursorTests`, `UnitRangeReaderTests`, `LineProgramTests`,
// `DebugInfoBytesTests`). Kept here: the production types have no hooks for tests.
extension DebugImage {
    /// The unit map's ranges read over the bytes (libdw answering what those decline) and by libdw
    /// alone, and how many units the bytes reader has left to libdw so far.
    func unitRangesBothWays() -> (bytes: [UnitRanges], libdw: [UnitRanges], leftToLibdw: Int) {
        let offsets = reader.unitDIEOffsets()
        let bytes = reader.unitRanges(dieOffsets: offsets[...])
        var libdw: [UnitRanges] = []
        if let decoder = reader.libdwDecoder {
            for offset in offsets {
                guard case .success(let ranges) = decoder.unitRanges(UnitLocation(dieOffset: offset, start: nil)), !ranges.isEmpty else {
                    continue
                }
                libdw.append(UnitRanges(unitDIEOffset: offset, ranges: ranges))
            }
        }
        return (bytes, libdw, decoderFallbacks.libdwCount(.unitRanges))
    }

    /// Unit `index` decoded by libdw alone: its tree and its lines.
    func wholeUnitWalkedByLibdw(_ index: Int) -> DecodedUnit {
        var unit = DecodedUnit()
        guard let decoder = reader.libdwDecoder else { return unit }
        let location = UnitLocation(dieOffset: unitMap.unitOffsets[index], start: nil)
        _ = decoder.readScopes(location, wanted: nil, into: &unit)
        _ = decoder.readLines(location, wanted: nil, into: &unit)
        unit.finishTopLevel()
        return unit
    }

    /// A DIE's names and name origin as `DwarfReader` reads them (bytes first) and by libdw alone.
    func namesBothWays(_ dieOffset: UInt64) -> (bytes: DIENames, libdw: DIENames, bytesOrigin: UInt64?, libdwOrigin: UInt64?) {
        let decoder = reader.libdwDecoder
        let libdwNames = (try? decoder?.names(atDIE: dieOffset).get()) ?? (nil, nil)
        let libdwOrigin = (try? decoder?.nameOrigin(atDIE: dieOffset).get()) ?? nil
        return (reader.functionName(dieOffset: dieOffset), libdwNames, reader.nameOrigin(dieOffset: dieOffset), libdwOrigin)
    }

    /// Units whose tree, units whose line table, and names libdw read because the bytes reader declined.
    var unitsWalkedByLibdw: Int { decoderFallbacks.libdwCount(.scopes) }
    var unitsLinedByLibdw: Int { decoderFallbacks.libdwCount(.lines) }
    var namesReadByLibdw: Int { decoderFallbacks.libdwCount(.names) }
}
