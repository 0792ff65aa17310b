import Foundation

/// A unit header of `.debug_info` (DWARF 2 to 5, 32- or 64-bit), for compile and partial units
/// only: skeleton and split units belong to split DWARF, type units hold no code.
struct DWARFUnitHeader {
    var version: Int
    var offsetSize: Int
    var addressSize: Int
    var abbrevOffset: Int
    /// Where the unit DIE starts, and the byte after the unit.
    var dieOffset: Int
    var end: Int

    init?(_ info: UnsafeRawBufferPointer, at start: Int) {
        var reader = ByteReader(info, at: start)
        guard var length = reader.fixed(4) else { return nil }
        offsetSize = 4
        if length == 0xffff_ffff {
            guard let long = reader.fixed(8) else { return nil }
            length = long
            offsetSize = 8
        } else if length >= 0xffff_fff0 {
            return nil  // reserved
        }
        guard length <= UInt64(info.count - reader.position) else { return nil }
        end = reader.position + Int(length)
        guard let version = reader.fixed(2), (2...5).contains(version) else { return nil }
        self.version = Int(version)
        let abbrev: UInt64
        let size: UInt8
        if version >= 5 {
            guard let unitType = reader.u8(), unitType == 1 || unitType == 3, let addressSize = reader.u8(),
                let offset = reader.fixed(offsetSize)
            else { return nil }
            size = addressSize
            abbrev = offset
        } else {
            guard let offset = reader.fixed(offsetSize), let addressSize = reader.u8() else { return nil }
            size = addressSize
            abbrev = offset
        }
        guard size == 4 || size == 8, abbrev < UInt64(Int.max) else { return nil }
        addressSize = Int(size)
        abbrevOffset = Int(abbrev)
        dieOffset = reader.position
    }
}
