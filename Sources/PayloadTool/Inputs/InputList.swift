import Foundation
import PayloadDecode
import SystemIO

/// One input a command reads: standard input (`-`), a file named on the command line or in a
/// `--from-list` file, or a file found in a folder. A file is told by its content, never its name
/// (a payload dump, a row file, a crash report, a zip of them); a file found in a folder whose
/// content is none of those is skipped and counted, where a file named is an error.
struct InputItem: Sendable, Hashable {
    var path: String
    var isFromFolder: Bool

    var isStandardInput: Bool { path == "-" }
    /// The name messages give it.
    var displayName: String { isStandardInput ? "<stdin>" : path }
}

/// The inputs of a command, with folders walked and `--from-list` files read: what every command
/// that reads inputs reads (docs/command-line.md, "Inputs").
struct InputList {
    var items: [InputItem] = []
    /// Folders that could not be read, symbolic links that loop, lists that could not be read:
    /// each an error that names it (the other inputs are still read; exit 1).
    var errors: [String] = []
    /// Symbolic links that lead nowhere inside a walked folder: warnings.
    var warnings: [String] = []

    /// `arguments` (and the lines of each `--from-list` file, `-` for standard input) expanded:
    /// each folder into the files below it, recursively, in the order of their sorted paths (byte
    /// order, as `find DIR | LC_ALL=C sort`), through symbolic links as `find -L` goes (a link back
    /// to a folder being walked is a loop: named, not followed). Hidden files are read as `find`
    /// reads them; what is not an input is skipped by content.
    static func expand(_ arguments: [String], fromLists: [String] = [], standardInput: FileHandle? = nil) -> InputList {
        var list = InputList()
        for argument in arguments { list.add(argument) }
        for source in fromLists {
            let data: Data?
            if source == "-" {
                data = (standardInput ?? FileHandle.standardInput).readDataToEndOfFile()
            } else {
                data = FileManager.default.contents(atPath: source)
            }
            guard let data else {
                list.errors.append("--from-list \(source): cannot read: \(FileIO.status(of: source).errorDescription)")
                continue
            }
            for line in data.split(separator: 0x0a, omittingEmptySubsequences: true) {
                var path = String(decoding: line, as: UTF8.self)
                if path.hasSuffix("\r") { path.removeLast() }
                if !path.isEmpty { list.add(path) }
            }
        }
        return list
    }

    /// One argument: a folder walked, anything else kept as it is (a missing file is reported
    /// when it is read, with the reason).
    private mutating func add(_ path: String) {
        guard path != "-", case .success(let status) = FileIO.status(of: path), status.kind == .folder else {
            items.append(InputItem(path: path, isFromFolder: false))
            return
        }
        var found: [String] = []
        walk(path, ancestors: [FolderIdentity(status)], into: &found)
        items += found.map { InputItem(path: $0, isFromFolder: true) }
    }

    /// A folder as the system knows it, so a link back to one being walked is seen.
    private struct FolderIdentity: Hashable {
        var device: UInt64
        var inode: UInt64
        init(_ status: FileStatus) {
            device = status.device
            inode = status.inode
        }
    }

    /// The files below `folder`, appended in the order of their sorted paths: siblings sorted by
    /// name, a folder's name with the `/` its paths go on with, is that order without sorting
    /// every path at the end (`a.json` before the folder `a`, whose paths are `a/...`).
    private mutating func walk(_ folder: String, ancestors: Set<FolderIdentity>, into found: inout [String]) {
        let listed: [(name: String, kind: FileStatus.Kind?)]
        switch FileIO.folderEntriesWithKinds(folder) {
        case .success(let entries): listed = entries
        case .failure(let error):
            errors.append("\(folder): cannot read the folder: \(error)")
            return
        }
        var entries: [(key: [UInt8], path: String, kind: FileStatus.Kind, status: FileStatus?)] = []
        entries.reserveCapacity(listed.count)
        for (name, listedKind) in listed {
            let path = folder.hasSuffix("/") ? folder + name : folder + "/" + name
            var kind = listedKind
            var status: FileStatus?
            if kind != .regular {
                // A folder's identity is needed to see loops; a link or an unknown kind is followed.
                guard case .success(let followed) = FileIO.status(of: path) else {
                    warnings.append("\(path): a symbolic link to nothing; skipped")
                    continue
                }
                status = followed
                kind = followed.kind
            }
            var key = Array(name.utf8)
            if kind == .folder { key.append(UInt8(ascii: "/")) }
            entries.append((key, path, kind ?? .other, status))
        }
        entries.sort { $0.key.lexicographicallyPrecedes($1.key) }
        for (_, path, kind, status) in entries {
            switch kind {
            case .folder:
                guard let status else { continue }
                let identity = FolderIdentity(status)
                if ancestors.contains(identity) {
                    errors.append("\(path): a symbolic link loop (it leads back to a folder it is in); not followed")
                    continue
                }
                walk(path, ancestors: ancestors.union([identity]), into: &found)
            case .regular:
                found.append(path)
            default:
                // FIFOs, sockets and devices found in a folder are not read: reading one could wait forever.
                continue
            }
        }
    }
}

extension Result where Failure == SystemErrno {
    /// `errno`'s text, or "" when there was none.
    fileprivate var errorDescription: String {
        if case .failure(let error) = self { return "\(error)" }
        return "not a readable file"
    }
}
