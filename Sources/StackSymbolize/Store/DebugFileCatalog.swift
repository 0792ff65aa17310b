import Foundation
import SystemIO

/// Finds debug files: plain files, `.dSYM` bundles and folders (searched recursively).
enum DebugFileCatalog {
    /// Every debug file under `paths`, and a problem for each file that looked like one but could
    /// not be read. Files of other kinds are skipped silently (a bundle's `Info.plist`, YAML maps).
    /// A path given as a file (not found in a folder) that is neither Mach-O nor ELF is a problem
    /// unless `quietIfForeign`.
    static func scan(_ paths: [String], quietIfForeign: Bool = false) -> (files: [DebugFileInfo], problems: [SymbolizeError]) {
        var files: [DebugFileInfo] = []
        var problems: [SymbolizeError] = []
        for path in paths {
            var isDirectory: ObjCBool = false
            guard FileManager.default.fileExists(atPath: path, isDirectory: &isDirectory) else {
                problems.append(SymbolizeError.fileSystem(path: path, "no such file or folder"))
                continue
            }
            if isDirectory.boolValue {
                var found: [String] = []
                var visited: Set<VisitedFile> = []
                walk(path, depth: 0, into: &found, visited: &visited, problems: &problems)
                for file in found { inspect(file, quietIfForeign: true, &files, &problems) }
            } else {
                inspect(path, quietIfForeign: quietIfForeign, &files, &problems)
            }
        }
        return (files, problems)
    }

    /// A file or folder as the system knows it, so one reached twice (through links) counts once.
    private struct VisitedFile: Hashable {
        var device: UInt64
        var inode: UInt64
    }

    /// Folders this deep are not searched (a debug-file tree is a few levels deep).
    static let deepestFolder = 32

    /// Every regular file below `folder`, in name order. Symbolic links are followed, to folders
    /// as to files (a build folder or a `.dSYM` bundle linked from another volume is the user's
    /// own layout); each real folder and file is visited once, so a link back up ends there. A
    /// folder or link that cannot be read is a problem named with its path, never a silent skip.
    private static func walk(
        _ folder: String, depth: Int, into found: inout [String], visited: inout Set<VisitedFile>, problems: inout [SymbolizeError]
    ) {
        guard let status = FileIO.status(of: folder).value(orAppendingTo: &problems, path: folder, action: "cannot read")
        else { return }
        guard visited.insert(VisitedFile(device: status.device, inode: status.inode)).inserted else { return }
        guard depth < deepestFolder else {
            problems.append(SymbolizeError.fileSystem(path: folder, "more than \(deepestFolder) folders deep; not searched"))
            return
        }
        guard let names = FileIO.folderEntries(folder).value(orAppendingTo: &problems, path: folder, action: "cannot read the folder")
        else { return }
        for name in names.sorted() {
            let path = (folder as NSString).appendingPathComponent(name)
            guard let entryStatus = FileIO.status(of: path).value(orAppendingTo: &problems, path: path, action: "cannot read")
            else { continue }
            switch entryStatus.kind {
            case .folder:
                walk(path, depth: depth + 1, into: &found, visited: &visited, problems: &problems)
            case .regular:
                if visited.insert(VisitedFile(device: entryStatus.device, inode: entryStatus.inode)).inserted {
                    found.append(path)
                }
            default:
                break  // devices, FIFOs, sockets: not debug files, and reading a FIFO would block
            }
        }
    }

    private static func inspect(
        _ path: String, quietIfForeign: Bool, _ files: inout [DebugFileInfo], _ problems: inout [SymbolizeError]
    ) {
        guard case .success(let status) = FileIO.status(of: path, retryOnInterrupt: false), status.kind == .regular else { return }
        let mapped: MappedFile
        do { mapped = try MappedFile(path: path) } catch {
            problems.append(error)
            return
        }
        let head = UnsafeRawBufferPointer(rebasing: mapped.bytes.prefix(8))
        if MachOReader.looksLikeMachO(head) {
            // Java class files share the fat magic; a small slice count tells them apart.
            do {
                let slices = try MachOReader.slices(of: mapped.view)
                let isFat = slices.count > 1 || slices.first?.sliceOffset != 0
                for slice in slices {
                    guard let uuid = slice.uuid else {
                        problems.append(SymbolizeError.unsupported(path: path, "the \(slice.architecture) slice has no LC_UUID"))
                        continue
                    }
                    files.append(
                        DebugFileInfo(
                            path: path, uuids: [uuid], arch: slice.architecture, kind: isFat ? .fatSlice : .machO,
                            sliceOffset: slice.sliceOffset, hasDebugInfo: slice.hasDebugInfo))
                }
            } catch {
                problems.append(error)
            }
            return
        }
        if head.count >= 4, head[0] == 0x7f, head[1] == 0x45, head[2] == 0x4c, head[3] == 0x46 {
            do {
                let reader = try DwarfReader(elfPath: path, openingDWARF: false)
                guard let buildID = reader.buildID() else {
                    problems.append(SymbolizeError.unsupported(path: path, "ELF file without a GNU build-id; cannot be matched by UUID"))
                    return
                }
                let forms = UUIDText.fromBuildID(buildID)
                let machine = reader.machine()
                let arch = machine == 62 ? "x86_64" : machine == 183 ? "arm64" : machine == 3 ? "i386" : "elf-machine-\(machine)"
                files.append(
                    DebugFileInfo(
                        path: path, uuids: [forms.plain, forms.swapped], arch: arch, kind: .elf, sliceOffset: 0,
                        hasDebugInfo: reader.hasDebugInfoSection()))
            } catch {
                problems.append(error)
            }
            return
        }
        if !quietIfForeign { problems.append(SymbolizeError.unsupported(path: path, "neither a Mach-O nor an ELF file")) }
    }

    /// Opens the debug image a catalog entry describes.
    static func open(_ info: DebugFileInfo) throws(SymbolizeError) -> DebugImage {
        if info.kind == .elf { return try DebugImage(elfPath: info.path) }
        let mapped = try MappedFile(path: info.path)
        let slices = try MachOReader.slices(of: mapped.view)
        guard let slice = slices.first(where: { $0.sliceOffset == info.sliceOffset }) else {
            throw SymbolizeError.changedWhileRead(path: info.path, missingSlice: info.sliceOffset)
        }
        return try DebugImage(machO: mapped, slice: slice)
    }
}
