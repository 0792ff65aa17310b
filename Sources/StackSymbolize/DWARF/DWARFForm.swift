/// DWARF form numbers, and reading an attribute's value by its form, for the readers that go over
/// the section bytes without libdw (`UnitRangeReader`, `DebugInfoBytes`).
enum DWARFForm {
    static let addr: UInt64 = 0x01
    static let block2: UInt64 = 0x03
    static let block4: UInt64 = 0x04
    static let data2: UInt64 = 0x05
    static let data4: UInt64 = 0x06
    static let data8: UInt64 = 0x07
    static let string: UInt64 = 0x08
    static let block: UInt64 = 0x09
    static let block1: UInt64 = 0x0a
    static let data1: UInt64 = 0x0b
    static let flag: UInt64 = 0x0c
    static let sdata: UInt64 = 0x0d
    static let strp: UInt64 = 0x0e
    static let udata: UInt64 = 0x0f
    static let refAddr: UInt64 = 0x10
    static let ref1: UInt64 = 0x11
    static let ref2: UInt64 = 0x12
    static let ref4: UInt64 = 0x13
    static let ref8: UInt64 = 0x14
    static let refUdata: UInt64 = 0x15
    static let indirect: UInt64 = 0x16
    static let secOffset: UInt64 = 0x17
    static let exprloc: UInt64 = 0x18
    static let flagPresent: UInt64 = 0x19
    static let strx: UInt64 = 0x1a
    static let addrx: UInt64 = 0x1b
    static let refSup4: UInt64 = 0x1c
    static let strpSup: UInt64 = 0x1d
    static let data16: UInt64 = 0x1e
    static let lineStrp: UInt64 = 0x1f
    static let refSig8: UInt64 = 0x20
    static let implicitConst: UInt64 = 0x21
    static let loclistx: UInt64 = 0x22
    static let rnglistx: UInt64 = 0x23
    static let refSup8: UInt64 = 0x24
    static let strx1: UInt64 = 0x25
    static let strx2: UInt64 = 0x26
    static let strx3: UInt64 = 0x27
    static let strx4: UInt64 = 0x28
    static let addrx1: UInt64 = 0x29
    static let addrx2: UInt64 = 0x2a
    static let addrx3: UInt64 = 0x2b
    static let addrx4: UInt64 = 0x2c
    static let gnuAddrIndex: UInt64 = 0x1f01
    static let gnuStrIndex: UInt64 = 0x1f02
    static let gnuRefAlt: UInt64 = 0x1f20
    static let gnuStrpAlt: UInt64 = 0x1f21

    /// The constant class (a high pc given as an offset from the low one).
    static func isConstant(_ form: UInt64) -> Bool {
        [data1, data2, data4, data8, udata, sdata, implicitConst].contains(form)
    }

    /// Reads one attribute value of `form`: the number it holds (an address, a constant, an
    /// offset, an index), or 0 for forms whose value is not needed here; `nil` for a form this
    /// reader does not know or bytes that run out.
    static func read(_ form: UInt64, from reader: inout ByteReader, _ header: DWARFUnitHeader, implicitConstant: Int64?) -> UInt64? {
        switch form {
        case addr: return reader.fixed(header.addressSize)
        case data1, ref1, flag, strx1, addrx1: return reader.fixed(1)
        case data2, ref2, strx2, addrx2: return reader.fixed(2)
        case strx3, addrx3: return reader.fixed(3)
        case data4, ref4, strx4, addrx4, refSup4: return reader.fixed(4)
        case data8, ref8, refSig8, refSup8: return reader.fixed(8)
        case data16: return reader.skip(16) ? 0 : nil
        case udata, refUdata, strx, addrx, loclistx, rnglistx, gnuAddrIndex, gnuStrIndex:
            return reader.uleb()
        case sdata: return reader.sleb().map { UInt64(bitPattern: $0) }
        case strp, secOffset, lineStrp, strpSup, gnuRefAlt, gnuStrpAlt:
            return reader.fixed(header.offsetSize)
        case refAddr: return reader.fixed(header.version == 2 ? header.addressSize : header.offsetSize)
        case string: return reader.cString() ? 0 : nil
        case flagPresent: return 1
        case implicitConst: return implicitConstant.map { UInt64(bitPattern: $0) }
        case block1: return reader.fixed(1).flatMap { reader.skip(Int($0)) ? 0 : nil }
        case block2: return reader.fixed(2).flatMap { reader.skip(Int($0)) ? 0 : nil }
        case block4: return reader.fixed(4).flatMap { reader.skip(Int($0)) ? 0 : nil }
        case block, exprloc:
            guard let length = reader.uleb(), length <= UInt64(reader.bytes.count) else { return nil }
            return reader.skip(Int(length)) ? 0 : nil
        default: return nil
        }
    }
}

/// DWARF attribute numbers the byte readers look for.
enum DWARFAttribute {
    static let name: UInt64 = 0x03
    static let statementList: UInt64 = 0x10
    static let lowPC: UInt64 = 0x11
    static let highPC: UInt64 = 0x12
    static let compilationDirectory: UInt64 = 0x1b
    static let abstractOrigin: UInt64 = 0x31
    static let specification: UInt64 = 0x47
    static let entryPC: UInt64 = 0x52
    static let ranges: UInt64 = 0x55
    static let callFile: UInt64 = 0x58
    static let callLine: UInt64 = 0x59
    static let linkageName: UInt64 = 0x6e
    static let stringOffsetsBase: UInt64 = 0x72
    static let addrBase: UInt64 = 0x73
    static let rnglistsBase: UInt64 = 0x74
    static let dwoName: UInt64 = 0x76
    static let mipsLinkageName: UInt64 = 0x2007
    static let gnuDWOName: UInt64 = 0x2130
    static let gnuDWOID: UInt64 = 0x2131
    static let gnuRangesBase: UInt64 = 0x2132
    static let gnuAddrBase: UInt64 = 0x2133
}
