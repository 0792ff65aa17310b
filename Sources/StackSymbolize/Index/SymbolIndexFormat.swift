// The warm path, for frames looked up again and again: one compact file per debug image, in the spirit of GSYM and symcache.
// Every address range of the image maps to a location record; a record is (name, file, line,
// parent record) so the inline chain is a walk up parents. The file is memory-mapped and searched
// in place; nothing is parsed when it is opened.
//
// Layout, little-endian, every array 8-byte aligned:
//   header (80 bytes): magic "YUISYMX1", version, reserved, entry count, location count,
//                      symbol count, string count, string bytes, text base, address base, symbol base
//   entry starts      UInt32 × entries: offsets from the address base (sorted; each entry runs to
//                     the next one's start)
//   entry locations   UInt32 × entries (a location index, or `none` for a gap)
//   locations         20 bytes each: name, file, line, parent with the flags in its top two bits
//                     (bit 30 inlined, bit 31 a linkage name; `parentMask` for no parent), function
//                     start (offset from the address base + 1; 0 for none)
//   symbols           12 bytes each: start (offset from the symbol base), size, name (UInt32 each) —
//                     the symbol-table fallback
//   string offsets    UInt32 × (strings + 1)
//   simplified names  UInt32 × strings: for a string that is a name (a location's or a symbol's),
//                     the string holding its simplified form (`Type.member`), demangled and
//                     simplified once when the index is built; `none` for every other string
//   string bytes
//   sampled starts    UInt32 × ceil(entries / 256): every 256th entry start, so opening reads these
//                     few pages instead of touching every page of the entry starts
//   checksum          UInt64: `IndexChecksum` of every byte before it
//
// Offsets from the lowest start keep an image's addresses in 32 bits (version 5; version 3 stored
// 64-bit starts and 32-byte locations, 1.2× SymCache's size): an image whose code spans 4 GB or
// more, or has 2^30 location records, gets no index (`unsupported`). Version 6 added the simplified
// names, so text output is written from the index's own bytes with nothing demangled at lookup time,
// and stored symbols in 12 bytes instead of 24 (the index stays smaller than Sentry's SymCache).

/// The constants of the layout above, shared by the builder and the reader.
enum SymbolIndexFormat {
    static let magic: UInt64 = 0x3158_4D59_5349_5559  // "YUISYMX1" read little-endian
    static let version: UInt32 = 6
    /// No string, no line, no parent, no location: a missing value in any UInt32 field.
    static let none: UInt32 = .max
    static let headerSize = Header.size
    static let symbolSize = SymbolRecord.size
    /// Why an image gets no index; `BuildSymbolizer` then answers it directly.
    static let imageTooLarge = "code spans 4 GB or more, or has too many locations or names, for a symbol index"
    static let locationSize = LocationRecord.size
    static let inlinedFlag: UInt32 = 1 << 30
    static let linkageFlag: UInt32 = 1 << 31
    /// The parent bits of a location; all set: no parent.
    static let parentMask: UInt32 = (1 << 30) - 1

    /// The header's fields by byte offset (UInt64 each but `version` and `reserved`).
    enum Header {
        static let magic = 0
        static let version = 8
        static let reserved = 12
        static let entryCount = 16
        static let locationCount = 24
        static let symbolCount = 32
        static let stringCount = 40
        static let stringBytes = 48
        static let textBase = 56
        static let addressBase = 64
        static let symbolBase = 72
        static let size = 80
    }

    /// A location record's fields by byte offset within it (UInt32 each).
    enum LocationRecord {
        static let name = 0
        static let file = 4
        static let line = 8
        /// The parent location with `inlinedFlag` and `linkageFlag` in its top bits.
        static let parentAndFlags = 12
        /// Offset from the address base + 1; 0 for none.
        static let functionStart = 16
        static let size = 20
    }

    /// A symbol record's fields by byte offset within it (UInt32 each).
    enum SymbolRecord {
        /// Offset from the symbol base.
        static let start = 0
        static let size = 12
        static let length = 4
        static let name = 8
    }
}
