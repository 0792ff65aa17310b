import Foundation

/// Reads a unit's line table and file table into a `DecodedUnit`, file names as llvm-symbolizer
/// prints them.
enum LineTableReader {
    /// Reads the line rows (only the row each `wanted` address falls in, when given) and the file
    /// table `DW_AT_call_file` indexes.
    static func read(unitDIE: inout DwarfDIE, wanted: [UInt64]?, into unit: inout DecodedUnit) {
        let compDir = unitDIE.compilationDirectory()
        if let lines = unitDIE.lineTable() {
            let rows = wanted.map { rowsHolding($0, in: lines) }
            let rowCount = rows?.count ?? lines.count
            unit.lineAddress.reserveCapacity(rowCount)
            unit.lineNumber.reserveCapacity(rowCount)
            unit.lineFile.reserveCapacity(rowCount)
            var fileIndexByName: [UnsafePointer<CChar>: Int32] = [:]
            for position in 0..<rowCount {
                guard let row = lines.row(at: rows?[position] ?? position) else { continue }
                var file: Int32 = -1
                if !row.endsSequence {
                    if let name = row.file {
                        if let known = fileIndexByName[name] {
                            file = known
                        } else {
                            file = Int32(unit.lineFileNames.count)
                            unit.lineFileNames.append(cleanPath(name, compDir: compDir))
                            fileIndexByName[name] = file
                        }
                    } else {
                        file = -2
                    }
                }
                unit.lineAddress.append(row.address)
                unit.lineNumber.append(row.line)
                unit.lineFile.append(file)
            }
        }
        if let files = unitDIE.fileTable() {
            unit.callFileNames.reserveCapacity(files.count)
            for index in 0..<files.count {
                unit.callFileNames.append(files.name(at: index).map { cleanPath($0, compDir: compDir) } ?? "")
            }
        }
    }

    /// `read(unitDIE:wanted:into:)` from a line program read over the section bytes. With
    /// `wanted`, the unit's tree is walked already and only the files its inlined calls name are
    /// joined and cleaned (the others stay empty): a Swift unit's file table has a hundred files
    /// or more, a batch names a few of them.
    static func read(program: LineProgram, compDir: [UInt8]?, wanted: [UInt64]?, into unit: inout DecodedUnit) {
        let rows = wanted.map { rowsHolding($0, count: program.rows.count) { program.rows[$0].address } }
        let rowCount = rows?.count ?? program.rows.count
        unit.lineAddress.reserveCapacity(rowCount)
        unit.lineNumber.reserveCapacity(rowCount)
        unit.lineFile.reserveCapacity(rowCount)
        // By file entry, its index in `lineFileNames` (-1: not yet met); an array, as the entries
        // are numbered (a dictionary hashed every row's file: 2% of an index build).
        var fileIndexByEntry = [Int32](repeating: -1, count: program.fileCount)
        for position in 0..<rowCount {
            let row = program.rows[rows?[position] ?? position]
            var file: Int32 = -1
            if !row.endsSequence {
                if row.file < UInt64(program.fileCount) {
                    let known = fileIndexByEntry[Int(row.file)]
                    if known >= 0 {
                        file = known
                    } else {
                        file = Int32(unit.lineFileNames.count)
                        unit.lineFileNames.append(cleanPath(program.fileName(Int(row.file)), compDir: compDir))
                        fileIndexByEntry[Int(row.file)] = file
                    }
                } else {
                    file = -2
                }
            }
            unit.lineAddress.append(row.address)
            unit.lineNumber.append(row.line)
            unit.lineFile.append(file)
        }
        guard wanted != nil else {
            unit.callFileNames = (0..<program.fileCount).map { cleanPath(program.fileName($0), compDir: compDir) }
            return
        }
        unit.callFileNames = Array(repeating: "", count: program.fileCount)
        for node in unit.nodes where node.isInlined && node.callFile >= 0 && Int(node.callFile) < program.fileCount {
            if unit.callFileNames[Int(node.callFile)].isEmpty {
                unit.callFileNames[Int(node.callFile)] = cleanPath(program.fileName(Int(node.callFile)), compDir: compDir)
            }
        }
    }

    /// The rows the sorted `wanted` addresses fall in: for each, the last row at or before it
    /// (each row once).
    private static func rowsHolding(_ wanted: [UInt64], in lines: DwarfLineTable) -> [Int] {
        rowsHolding(wanted, count: lines.count) { lines.address(at: $0) }
    }

    private static func rowsHolding(_ wanted: [UInt64], count: Int, address: (Int) -> UInt64) -> [Int] {
        var rows: [Int] = []
        var previous = -1
        for target in wanted {
            var low = 0
            var high = count
            while low < high {
                let middle = (low + high) / 2
                if address(middle) <= target { low = middle + 1 } else { high = middle }
            }
            if low > 0, low - 1 != previous {
                rows.append(low - 1)
                previous = low - 1
            }
        }
        return rows
    }

    /// A file name of the line table as llvm-symbolizer prints it.
    ///
    /// libdw joins a file of directory 0 with the compilation directory, and a file of another
    /// directory with that directory only, so a relative include directory (`../examples`, or the
    /// `__hidden#12_` of a bitcode build) comes out relative. llvm-symbolizer (and atos) put the
    /// compilation directory in front of those: `/Users/x/breakpad/examples/../examples/a.cpp`.
    /// So a relative result that does not already start with the compilation directory gets it.
    /// Repeated slashes are collapsed as path joining would (libdw joins `/` and Swift's
    /// `/<compiler-generated>` into `//<compiler-generated>`).
    static func cleanPath(_ name: UnsafePointer<CChar>, compDir: [UInt8]?) -> String {
        cleanPath(UnsafeRawBufferPointer(start: name, count: strlen(name)), compDir: compDir)
    }

    static func cleanPath(_ name: [UInt8], compDir: [UInt8]?) -> String {
        name.withUnsafeBytes { cleanPath($0, compDir: compDir) }
    }

    static func cleanPath(_ bytes: UnsafeRawBufferPointer, compDir: [UInt8]?) -> String {
        let length = bytes.count
        var result: [UInt8] = []
        result.reserveCapacity(length + (compDir?.count ?? 0) + 1)
        if let compDir, length > 0, bytes[0] != UInt8(ascii: "/") {
            let underCompDir =
                length > compDir.count && bytes[compDir.count] == UInt8(ascii: "/")
                && zip(bytes.prefix(compDir.count), compDir).allSatisfy { $0 == $1 }
            if !underCompDir {
                result.append(contentsOf: compDir)
                result.append(UInt8(ascii: "/"))
            }
        }
        result.append(contentsOf: bytes)
        var cleaned: [UInt8] = []
        cleaned.reserveCapacity(result.count)
        var previousSlash = false
        for byte in result {
            if byte == UInt8(ascii: "/") && previousSlash { continue }
            previousSlash = byte == UInt8(ascii: "/")
            cleaned.append(byte)
        }
        return String(decoding: cleaned, as: UTF8.self)
    }
}
