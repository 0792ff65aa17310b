// The warm path (issue 5): one compact file per debug image, in the spirit of GSYM and symcache.
// Every address range of the image maps to a location record; a record is (name, file, line,
// parent record) so the inline chain is a walk up parents. The file is memory-mapped and searched
// in place; nothing is parsed when it is opened.
//
// Layout, little-endian, every array 8-byte aligned:
//   header (64 bytes): magic "YUISYMX1", version, reserved, entry count, location count,
//                      symbol count, string count, string bytes, text base
//   entry starts      UInt64 × entries (sorted; each entry runs to the next one's start)
//   entry locations   UInt32 × entries (a location index, or `none` for a gap), padded
//   locations         32 bytes each: name, file, line, parent, flags (UInt32), pad, function start (UInt64)
//   symbols           24 bytes each: address, size (UInt64), name (UInt32), pad — the symbol-table fallback
//   string offsets    UInt32 × (strings + 1), padded
//   string bytes, padded
//   sampled starts    UInt64 × ceil(entries / 256): every 256th entry start, so opening reads these
//                     few pages instead of touching every page of the entry starts
//   checksum          UInt64: `IndexChecksum` of every byte before it

/// The constants of the layout above, shared by the builder and the reader.
enum SymbolIndexFormat {
    static let magic: UInt64 = 0x3158_4D59_5349_5559  // "YUISYMX1" read little-endian
    static let version: UInt32 = 3
    /// No string, no line, no parent, no location: a missing value in any UInt32 field.
    static let none: UInt32 = .max
}
