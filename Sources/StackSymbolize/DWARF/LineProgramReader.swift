/// A DWARF 2-5 line program read from `.debug_line` as stored: the rows and file names libdw's
/// `dwarf_getsrclines` and `dwarf_getsrcfiles` give for the unit, or `nil` where this reader is not
/// sure to give the same (`DW_LNE_define_file`, VLIW operation indexes, DWARF 5 entry forms other
/// than inline, `.debug_str` and `.debug_line_str` strings and plain numbers, values libdw's row
/// fields cannot hold, bytes that run out); libdw then reads the unit.
///
/// Why not libdw: it decodes the whole program into a linked list, sorts it with `qsort` and keeps
/// it until `dwarf_end`, and `dwarf_getsrcfiles` does all of that too. That was an eighth of a cold
/// batch on docc (188 of 1,466 million instructions), and clang's DWARF 5 units, left to libdw,
/// a tenth of one on swift-build-sdk-interfaces.
struct LineProgram {
    struct Row {
        var address: UInt64
        var line: Int32
        /// Index into `fileNames`.
        var file: UInt64
        var endsSequence: Bool
    }

    /// Sorted as libdw sorts them: by address, an end of sequence before other rows at its
    /// address, otherwise in program order.
    var rows: [Row]
    /// The file table as libdw joins it, an absolute name as it is, a relative one after its
    /// directory. DWARF 2-4: index 0 is `???`, then each file of the header, directory 0 being the
    /// compilation directory (nothing when there is none). DWARF 5: the header's files from index
    /// 0, its directories from index 0.
    var fileNames: [[UInt8]] { (0..<fileCount).map { fileName($0) } }

    var fileCount: Int { joinedFiles?.count ?? files.count + 1 }

    /// File `index` of `fileNames`, joined only when asked: a Swift unit's table has a hundred
    /// files or more and a batch names a few (joining them all was a twentieth of a cold batch).
    func fileName(_ index: Int) -> [UInt8] {
        if let joinedFiles { return joinedFiles[index] }
        if index == 0 { return Array("???".utf8) }
        let file = files[index - 1]
        let name = Array(UnsafeRawBufferPointer(rebasing: section[Int(file.start)..<Int(file.start + file.count)]))
        if name.first == UInt8(ascii: "/") { return name }
        guard let base = directories[Int(file.directory)] else { return name }
        return base + [UInt8(ascii: "/")] + name
    }

    /// DWARF 5's table, joined as read; nil before DWARF 5.
    private var joinedFiles: [[UInt8]]?
    /// Before DWARF 5: the include directories (0 the compilation directory) and each file's
    /// name in `section` with its directory.
    private var directories: [[UInt8]?] = []
    private var files: [(directory: Int32, start: Int32, count: Int32)] = []
    private let section: UnsafeRawBufferPointer

    /// Reads the program at `offset` of `section` for a unit whose addresses are `addressSize`
    /// bytes, with `compilationDirectory` (DW_AT_comp_dir) as directory 0 before DWARF 5, and
    /// `strings` and `lineStrings` (`.debug_str`, `.debug_line_str`) for DWARF 5's string forms.
    init?(
        _ section: UnsafeRawBufferPointer, at offset: Int, addressSize: Int, compilationDirectory: [UInt8]?,
        strings: UnsafeRawBufferPointer? = nil, lineStrings: UnsafeRawBufferPointer? = nil
    ) {
        guard offset >= 0, offset < section.count else { return nil }
        var reader = ByteReader(section, at: offset)
        guard let length32 = reader.fixed(4) else { return nil }
        var offsetSize = 4
        var length = length32
        if length32 == 0xffff_ffff {
            guard let long = reader.fixed(8) else { return nil }
            length = long
            offsetSize = 8
        } else if length32 >= 0xffff_fff0 {
            return nil
        }
        guard length <= UInt64(section.count - reader.position) else { return nil }
        let end = reader.position + Int(length)
        guard let version = reader.fixed(2), (2...5).contains(version) else { return nil }
        if version >= 5 {
            // The header's own address size must be the unit's, with no segment selector.
            guard end - reader.position >= 2, reader.u8() == UInt8(truncatingIfNeeded: addressSize), addressSize < 256, reader.u8() == 0
            else { return nil }
        }
        guard let headerLength = reader.fixed(offsetSize), headerLength <= UInt64(end - reader.position) else { return nil }
        let programStart = reader.position + Int(headerLength)
        guard let minimumInstructionLength = reader.u8() else { return nil }
        var maximumOperations: UInt8 = 1
        if version >= 4 {
            guard let value = reader.u8() else { return nil }
            maximumOperations = value
        }
        // VLIW operation indexes: libdw's, not ours.
        guard maximumOperations == 1, let defaultIsStatement = reader.u8(), let lineBaseByte = reader.u8(), let lineRange = reader.u8(),
            let opcodeBase = reader.u8(), opcodeBase > 0
        else { return nil }
        _ = defaultIsStatement
        let lineBase = Int64(Int8(bitPattern: lineBaseByte))
        var standardLengths = [UInt8](repeating: 0, count: Int(opcodeBase))
        for index in 1..<Int(opcodeBase) {
            guard let value = reader.u8() else { return nil }
            standardLengths[index] = value
        }
        self.section = section
        if version >= 5 {
            var entries = EntryReader(
                reader: reader, end: programStart, offsetSize: offsetSize, strings: strings, lineStrings: lineStrings)
            guard let found = entries.files() else { return nil }
            joinedFiles = found
            reader.position = entries.reader.position
        } else {
            // Include directories, directory 0 being the compilation directory.
            directories = [compilationDirectory]
            while true {
                let start = reader.position
                guard reader.cString() else { return nil }
                if reader.position == start + 1 { break }
                directories.append(Array(UnsafeRawBufferPointer(rebasing: section[start..<(reader.position - 1)])))
            }
            while true {
                let start = reader.position
                guard reader.cString() else { return nil }
                if reader.position == start + 1 { break }
                let nameEnd = reader.position - 1
                guard let directory = reader.uleb(), directory < UInt64(directories.count), reader.uleb() != nil, reader.uleb() != nil,
                    nameEnd < Int(Int32.max)
                else {
                    return nil
                }
                files.append((Int32(directory), Int32(start), Int32(nameEnd - start)))
            }
        }
        // libdw refuses a header that does not end where its length says (and reads a 4-byte
        // offset of CUBINs just before the end: its, too).
        guard reader.position == programStart else { return nil }

        // The state machine (DWARF 4, section 6.2.2), rows as libdw adds them.
        reader.position = programStart
        var rows: [Row] = []
        // About a row per two bytes of program in Swift and clang output.
        rows.reserveCapacity((end - programStart) / 2 + 1)
        // Where each sequence's rows end (after its end-of-sequence row).
        var sequenceEnds: [Int] = []
        var address: UInt64 = 0
        var file: UInt64 = 1
        var line: Int64 = 1
        // libdw keeps the line in an int and the file in an unsigned int; beyond, it refuses the
        // whole table.
        var representable: Bool { line >= Int64(Int32.min) && line <= Int64(Int32.max) && file <= UInt64(UInt32.max) }
        let minimumLength = UInt64(minimumInstructionLength)
        while reader.position < end {
            guard let opcode = reader.u8() else { return nil }
            if opcode >= opcodeBase {
                guard lineRange != 0 else { return nil }
                // One 32-bit division for both parts (two 64-bit ones cost several times more).
                let (quotient, remainder) = UInt32(opcode &- opcodeBase).quotientAndRemainder(dividingBy: UInt32(lineRange))
                line += lineBase + Int64(remainder)
                address &+= minimumLength &* UInt64(quotient)
                guard representable else { return nil }
                rows.append(Row(address: address, line: Int32(line), file: file, endsSequence: false))
            } else if opcode == 0 {
                // Extended: libdw reads the length as one byte.
                guard end - reader.position >= 2, let lengthByte = reader.u8(), lengthByte < 0x80 else { return nil }
                let length = Int(lengthByte)
                guard end - reader.position >= length, let sub = reader.u8() else { return nil }
                switch sub {
                case 1:  // DW_LNE_end_sequence
                    guard representable else { return nil }
                    rows.append(Row(address: address, line: Int32(line), file: file, endsSequence: true))
                    sequenceEnds.append(rows.count)
                    address = 0
                    file = 1
                    line = 1
                case 2:  // DW_LNE_set_address
                    guard end - reader.position >= addressSize, let value = reader.fixed(addressSize) else { return nil }
                    address = value
                case 4:  // DW_LNE_set_discriminator
                    guard reader.uleb() != nil else { return nil }
                case 3:  // DW_LNE_define_file: libdw's
                    return nil
                default:
                    guard length >= 1, reader.skip(length - 1) else { return nil }
                }
            } else if opcode <= 12 {
                switch opcode {
                case 1:  // DW_LNS_copy
                    guard standardLengths[1] == 0, representable else { return nil }
                    rows.append(Row(address: address, line: Int32(line), file: file, endsSequence: false))
                case 2:  // DW_LNS_advance_pc
                    guard standardLengths[2] == 1, let value = reader.uleb() else { return nil }
                    address &+= minimumLength &* value
                case 3:  // DW_LNS_advance_line
                    guard standardLengths[3] == 1, let value = reader.sleb() else { return nil }
                    line &+= value
                case 4:  // DW_LNS_set_file
                    guard standardLengths[4] == 1, let value = reader.uleb() else { return nil }
                    file = value
                case 5:  // DW_LNS_set_column (libdw keeps it in 16 bits and refuses more)
                    guard standardLengths[5] == 1, let value = reader.uleb(), value <= UInt64(UInt16.max) else { return nil }
                case 6, 7, 10, 11:  // negate_stmt, set_basic_block, set_prologue_end, set_epilogue_begin
                    guard standardLengths[Int(opcode)] == 0 else { return nil }
                case 8:  // DW_LNS_const_add_pc
                    guard standardLengths[8] == 0, lineRange != 0 else { return nil }
                    address &+= minimumLength &* UInt64((255 - Int(opcodeBase)) / Int(lineRange))
                case 9:  // DW_LNS_fixed_advance_pc
                    guard standardLengths[9] == 1, end - reader.position >= 2, let value = reader.fixed(2) else { return nil }
                    address &+= value
                case 12:  // DW_LNS_set_isa (8 bits in libdw)
                    guard standardLengths[12] == 1, let value = reader.uleb(), value <= 255 else { return nil }
                default:
                    return nil
                }
            } else {
                // An opcode this version does not define: its operands are skipped.
                for _ in 0..<Int(standardLengths[Int(opcode)]) {
                    guard reader.uleb() != nil else { return nil }
                }
            }
        }
        // libdw's order: by address, an end of sequence first at its address, else program order.
        var sorted = true
        for index in rows.indices.dropFirst() where Self.before(rows[index], rows[index - 1]) {
            sorted = false
            break
        }
        if !sorted, let bySequence = Self.sortedBySequence(rows, sequenceEnds: sequenceEnds) {
            rows = bySequence
        } else if !sorted {
            // Program order breaks ties explicitly (the standard library does not promise a
            // stable sort).
            rows = rows.enumerated().sorted { left, right in
                if Self.before(left.element, right.element) { return true }
                if Self.before(right.element, left.element) { return false }
                return left.offset < right.offset
            }.map(\.element)
        }
        self.rows = rows
    }

    /// The rows in libdw's order when each sequence is in order and the sequences do not
    /// overlap (every row of one sorts before every row of the next): the sequences put in order
    /// by their first rows, not every row sorted (that sort was a fifth of reading a line program);
    /// nil otherwise.
    private static func sortedBySequence(_ rows: [Row], sequenceEnds: [Int]) -> [Row]? {
        var sequences: [Range<Int>] = []
        sequences.reserveCapacity(sequenceEnds.count + 1)
        var start = 0
        for end in sequenceEnds {
            sequences.append(start..<end)
            start = end
        }
        if start < rows.count { sequences.append(start..<rows.count) }
        for sequence in sequences {
            for index in sequence.dropFirst() where before(rows[index], rows[index - 1]) { return nil }
        }
        sequences.sort { rows[$0.lowerBound].address < rows[$1.lowerBound].address }
        for (earlier, later) in zip(sequences, sequences.dropFirst()) where !before(rows[earlier.upperBound - 1], rows[later.lowerBound]) {
            return nil
        }
        var result: [Row] = []
        result.reserveCapacity(rows.count)
        for sequence in sequences { result.append(contentsOf: rows[sequence]) }
        return result
    }

    /// Whether `left` sorts before `right` regardless of program order.
    private static func before(_ left: Row, _ right: Row) -> Bool {
        if left.address != right.address { return left.address < right.address }
        return left.endsSequence && !right.endsSequence
    }
}

/// The directory and file tables of a DWARF 5 line program header, read as libdw reads them: each
/// entry's `DW_LNCT_path` and `DW_LNCT_directory_index`, every other field skipped by its form.
private struct EntryReader {
    var reader: ByteReader
    let end: Int
    let offsetSize: Int
    let strings: UnsafeRawBufferPointer?
    let lineStrings: UnsafeRawBufferPointer?

    /// The files, each joined to its directory (an absolute name kept as it is); nil for anything
    /// this reader leaves to libdw.
    mutating func files() -> [[UInt8]]? {
        guard let directoryFormats = formats(), directoryFormats.isEmpty || directoryFormats.path != nil,
            let directoryCount = reader.uleb(), directoryFormats.count > 0 || directoryCount == 0,
            directoryCount <= UInt64(end - reader.position)
        else { return nil }
        var directories: [[UInt8]] = []
        for _ in 0..<directoryCount {
            guard let entry = entry(directoryFormats), let path = entry.path else { return nil }
            directories.append(path)
        }
        guard let fileFormats = formats(), fileFormats.isEmpty || (fileFormats.path != nil && fileFormats.directory != nil),
            let fileCount = reader.uleb(), fileFormats.count > 0 || fileCount == 0, fileCount <= UInt64(end - reader.position)
        else { return nil }
        // Index 0 is the first file of the table (libdw's `???` until one is there).
        var files: [[UInt8]] = [Array("???".utf8)]
        for index in 0..<fileCount {
            guard let entry = entry(fileFormats), let name = entry.path, let directory = entry.directory,
                directory < UInt64(directories.count)
            else { return nil }
            let joined = name.first == UInt8(ascii: "/") ? name : directories[Int(directory)] + [UInt8(ascii: "/")] + name
            if index == 0 { files[0] = joined } else { files.append(joined) }
        }
        return files
    }

    struct Formats {
        var forms: [UInt64] = []
        var path: Int?
        var directory: Int?
        var count: Int { forms.count }
        var isEmpty: Bool { forms.isEmpty }
    }

    /// An entry format: (content type, form) pairs.
    private mutating func formats() -> Formats? {
        guard reader.position < end, let count = reader.u8() else { return nil }
        var formats = Formats()
        for index in 0..<Int(count) {
            // libdw keeps both in 16 bits: larger values are its to read.
            guard reader.position < end, let content = reader.uleb(), content <= 0xffff, reader.position < end, let form = reader.uleb(),
                form <= 0xffff
            else { return nil }
            formats.forms.append(form)
            if content == 1 { formats.path = index }  // DW_LNCT_path
            if content == 2 { formats.directory = index }  // DW_LNCT_directory_index
        }
        return formats
    }

    /// One entry's path and directory index.
    private mutating func entry(_ formats: Formats) -> (path: [UInt8]?, directory: UInt64?)? {
        var path: [UInt8]?
        var directory: UInt64?
        for (index, form) in formats.forms.enumerated() {
            let start = reader.position
            switch form {
            case 0x08:  // DW_FORM_string
                guard reader.cString(), reader.position <= end else { return nil }
                if index == formats.path { path = Array(UnsafeRawBufferPointer(rebasing: reader.bytes[start..<(reader.position - 1)])) }
            case 0x0e, 0x1f:  // DW_FORM_strp, DW_FORM_line_strp
                guard end - reader.position >= offsetSize, let offset = reader.fixed(offsetSize) else { return nil }
                if index == formats.path {
                    guard let text = Self.string(form == 0x0e ? strings : lineStrings, at: offset) else { return nil }
                    path = text
                }
            case 0x0b, 0x05, 0x06, 0x07:  // DW_FORM_data1, 2, 4, 8
                let size = form == 0x0b ? 1 : form == 0x05 ? 2 : form == 0x06 ? 4 : 8
                guard end - reader.position >= size, let value = reader.fixed(size) else { return nil }
                if index == formats.directory { directory = value }
            case 0x0f:  // DW_FORM_udata
                guard let value = reader.uleb(), reader.position <= end else { return nil }
                if index == formats.directory { directory = value }
            case 0x1e:  // DW_FORM_data16 (an MD5)
                guard end - reader.position >= 16, reader.skip(16) else { return nil }
            case 0x09:  // DW_FORM_block
                guard let length = reader.uleb(), length <= UInt64(end - reader.position), reader.skip(Int(length)) else { return nil }
            default:
                return nil
            }
            // A path or directory index in a form read above as something else: libdw's.
            if index == formats.path, path == nil { return nil }
            if index == formats.directory, directory == nil { return nil }
        }
        return (path, directory)
    }

    /// The NUL-terminated string at `offset` of `section`.
    private static func string(_ section: UnsafeRawBufferPointer?, at offset: UInt64) -> [UInt8]? {
        guard let section, offset < UInt64(section.count) else { return nil }
        let rest = UnsafeRawBufferPointer(rebasing: section[Int(offset)...])
        guard let terminator = rest.firstIndex(of: 0) else { return nil }
        return Array(UnsafeRawBufferPointer(rebasing: rest[..<terminator]))
    }
}
