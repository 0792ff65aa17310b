/// `UnitDecoder` by libdw: the reference reader, and the one that answers whatever the bytes
/// reader declines. Its only refusal is a DIE libdw cannot read.
struct LibdwUnitDecoder: UnitDecoder {
    let dwarf: DwarfHandle

    private func die(_ offset: UInt64) -> Result<DwarfDIE, DecodeRefusal> {
        guard let die = dwarf.die(at: offset) else {
            return .failure(DecodeRefusal(reason: "corrupt DWARF: the unit DIE at offset \(offset) cannot be read (\(libdwMessage()))"))
        }
        return .success(die)
    }

    func unitRanges(_ unit: UnitLocation) -> Result<[AddressRange], DecodeRefusal> {
        var tag: UInt32 = 0
        var unitDIE = dwarf.die(at: unit.dieOffset)
        if unitDIE != nil { tag = unitDIE!.tag() }
        guard tag != 0 else {
            return .failure(DecodeRefusal(reason: "corrupt DWARF: the unit DIE at offset \(unit.dieOffset) cannot be read (\(libdwMessage()))"))
        }
        // Type units and the like describe no code.
        guard tag == DWARFTag.compileUnit || tag == DWARFTag.partialUnit || tag == DWARFTag.skeletonUnit else { return .success([]) }
        return .success(unitDIE!.ranges())
    }

    func readScopes(_ unit: UnitLocation, wanted: [UInt64]?, into decoded: inout DecodedUnit) -> Result<Void, DecodeRefusal> {
        die(unit.dieOffset).map { found in
            var unitDIE = found
            LibdwScopeWalk.read(unitDIE: &unitDIE, wanted: wanted, into: &decoded)
        }
    }

    func readLines(_ unit: UnitLocation, wanted: [UInt64]?, into decoded: inout DecodedUnit) -> Result<Void, DecodeRefusal> {
        die(unit.dieOffset).map { found in
            var unitDIE = found
            LineTableReader.read(unitDIE: &unitDIE, wanted: wanted, into: &decoded)
        }
    }

    func names(atDIE offset: UInt64) -> Result<DIENames, DecodeRefusal> {
        die(offset).map { found in
            var die = found
            return die.names()
        }
    }

    func nameOrigin(atDIE offset: UInt64) -> Result<UInt64?, DecodeRefusal> {
        die(offset).map { found in
            var die = found
            return die.nameOrigin()
        }
    }
}

@available(*, unavailable) extension LibdwUnitDecoder: Sendable {}
