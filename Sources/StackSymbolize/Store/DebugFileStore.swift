import Foundation
import SystemIO

/// The debug-file store: `<root>/<build>/` folders of debug files, one concept with written rules
/// (docs/symbolication.md, "The store"), not a folder walk per frame.
///
/// - The root is `--dsyms`, else `$YUI_DSYMS`, else `$HOME/.yui-dsyms` (`HomeFolder`).
/// - Build folders are named by build number (`StoreBuild`); `system` is the system-symbols
///   folder (`--symbols`' default), never a build, and dot-names are the store's own files.
/// - A frame's UUID is looked up in its payload's build folder first (`BuildSymbolizer`), then here
///   across every other build, then in `--symbols`: a framework's dSYM carries the framework's own
///   `CFBundleVersion`, so it lands in another build's folder than the app's frames.
/// - Of several files with one UUID, one with DWARF always answers before one without; then the
///   newest build.
/// - A UUID index (`<root>/.uuid-index.json`) keeps the lookup to one file read with thousands of
///   builds. It is rebuilt, folder by folder, when a build folder's modification time or inode
///   differs from the one recorded (a file placed, renamed or removed in it), and a located file is
///   checked for its UUID before it is used. Written under a temporary name and renamed, so
///   parallel runs each leave a whole file; an unwritable root keeps it in memory only.
///
/// Not thread-safe (one per command run, as `BuildSymbolizer`).
public final class DebugFileStore {
    public let root: String
    private var loaded: Contents?

    /// The store at `root` (`--dsyms`), else `$YUI_DSYMS`, else `$HOME/.yui-dsyms`.
    public init(root given: String?) {
        root = Self.rootFolder(given: given)
    }

    /// `--dsyms`, else `$YUI_DSYMS`, else `$HOME/.yui-dsyms`, with `~` expanded.
    public static func rootFolder(given: String?) -> String {
        var base = given ?? ProcessInfo.processInfo.environment["YUI_DSYMS"] ?? ""
        if base.isEmpty { base = HomeFolder.appending(".yui-dsyms") }
        if base == "~" || base.hasPrefix("~/") { base = HomeFolder.path + base.dropFirst() }
        return base
    }

    /// What `--object PATH` reads: PATH, and before it the dSYM bundle Xcode puts beside a binary
    /// (`X.dSYM` beside `X`, or `Y.app.dSYM` beside the `Y.app` or `Y.framework` holding it), as
    /// llvm-symbolizer and atos look for it. The dSYM's DWARF then answers for the UUIDs it shares
    /// with the binary (a file with DWARF answers first), the binary for any others.
    public static func objectPaths(_ object: String) -> [String] {
        var isDirectory: ObjCBool = false
        guard FileManager.default.fileExists(atPath: object, isDirectory: &isDirectory), !isDirectory.boolValue else { return [object] }
        var companions = [object + ".dSYM"]
        let bundle = (object as NSString).deletingLastPathComponent
        if [".app", ".framework", ".appex"].contains(where: { bundle.hasSuffix($0) }) { companions.append(bundle + ".dSYM") }
        for companion in companions {
            guard FileManager.default.fileExists(atPath: companion, isDirectory: &isDirectory), isDirectory.boolValue else { continue }
            let binaryUUIDs = Set(DebugFileCatalog.scan([object], quietIfForeign: true).files.flatMap(\.uuids))
            let dsymUUIDs = Set(DebugFileCatalog.scan([companion], quietIfForeign: true).files.flatMap(\.uuids))
            // Only a dSYM of this very binary: one left from another build would answer wrongly.
            if !binaryUUIDs.isDisjoint(with: dsymUUIDs) { return [companion, object] }
        }
        return [object]
    }

    /// Reads the UUID index again on next use (files were placed since it was read).
    public func reload() { loaded = nil }

    /// Whether `<root>/<build>` is a folder.
    public func hasBuildFolder(_ build: String) -> Bool {
        var isDirectory: ObjCBool = false
        return FileManager.default.fileExists(atPath: (root as NSString).appendingPathComponent(build), isDirectory: &isDirectory)
            && isDirectory.boolValue
    }

    /// The folder name of the system symbols (`<root>/system`), searched by `--symbols`' default.
    public static let systemFolderName = "system"

    /// The UUID index's file name under the root.
    static let indexFileName = ".uuid-index.json"

    /// The file that answers `uuid` in a build other than `excludingBuild`: every slice of the best
    /// file (DWARF first, then the highest build), or empty when no other build has one.
    public func locate(uuid: String, excludingBuild: String?) -> [DebugFileInfo] {
        guard let canonical = UUIDText.normalized(uuid) else { return [] }
        for attempt in 0..<2 {
            let contents = self.contents(forcingFolders: [])
            let candidates = (contents.byUUID[canonical] ?? []).filter { $0.build != excludingBuild }.sorted { lhs, rhs in
                if lhs.hasDebugInfo != rhs.hasDebugInfo { return lhs.hasDebugInfo }
                return (Int(lhs.build) ?? -1, lhs.path) > (Int(rhs.build) ?? -1, rhs.path)
            }
            guard let best = candidates.first else { return [] }
            let path = (root as NSString).appendingPathComponent(best.path)
            let slices = DebugFileCatalog.scan([path]).files
            if slices.contains(where: { $0.uuids.contains(canonical) }) { return slices }
            // The file changed since the index was written: read its folder again, once.
            if attempt == 0 { loaded = self.contents(forcingFolders: [best.build]) }
        }
        return []
    }

    /// Every UUID of the store (or of one build) and the stored file that answers it, by
    /// `locate`'s choice (DWARF first, then the highest build): what `dsyms export` writes.
    public func answeringFiles(build: String? = nil) -> [(uuid: String, path: String)] {
        contents(forcingFolders: []).byUUID.compactMap { uuid, entries -> (uuid: String, path: String)? in
            let best = entries.filter { build == nil || $0.build == build }.sorted { lhs, rhs in
                if lhs.hasDebugInfo != rhs.hasDebugInfo { return lhs.hasDebugInfo }
                return (Int(lhs.build) ?? -1, lhs.path) > (Int(rhs.build) ?? -1, rhs.path)
            }.first
            return best.map { (uuid, (root as NSString).appendingPathComponent($0.path)) }
        }.sorted { $0.uuid < $1.uuid }
    }

    /// True when the store holds a debug file (or an archive's binary) of an image called `name`
    /// in any build: such an image is the app's (docs/top.md, "App frames"). Xcode 16's debug
    /// builds put the code of `Splash` in `Splash.debug.dylib`: either name knows the other.
    public func knowsImage(named name: String) -> Bool {
        let names = contents(forcingFolders: []).imageNames
        return names.contains(name) || names.contains(Self.imageBase(name))
    }

    /// True when no build folder holds a debug file: then nothing is known about which images are
    /// the app's, and the shipped list of Apple's images decides.
    public var isEmpty: Bool { contents(forcingFolders: []).byUUID.isEmpty }

    /// `Splash.debug.dylib` → `Splash`; any other name as it is.
    static func imageBase(_ name: String) -> String {
        name.hasSuffix(".debug.dylib") ? String(name.dropLast(".debug.dylib".count)) : name
    }

    /// Whether a file name is one `dsyms import` gives: `UUID[_UUID...]-image`.
    public static func isImportedName(_ fileName: String) -> Bool {
        imageName(ofStoredFile: fileName) != fileName
    }

    /// The image a stored file is of: its name without the `UUID[_UUID...]-` that `dsyms import`
    /// puts in front.
    static func imageName(ofStoredFile fileName: String) -> String {
        var rest = Substring(fileName)
        var strippedAny = false
        while rest.count > 37, UUIDText.isCanonical(String(rest.prefix(36))) {
            let separator = rest[rest.index(rest.startIndex, offsetBy: 36)]
            guard separator == "_" || separator == "-" else { break }
            rest = rest.dropFirst(37)
            strippedAny = true
            if separator == "-" { break }
        }
        return strippedAny ? String(rest) : fileName
    }

    // MARK: The UUID index

    /// One slice of one stored file, as the index records it.
    struct Entry: Codable, Hashable {
        var build: String
        /// Relative to the root.
        var path: String
        var uuids: [String]
        var image: String
        var hasDebugInfo: Bool
    }

    /// A build folder as it was when its entries were read.
    struct FolderStamp: Codable, Hashable {
        var seconds: Int
        var nanoseconds: Int
        var inode: UInt64
    }

    /// The index file: the stamps of the folders read and their entries.
    struct IndexFile: Codable {
        static let currentVersion = 1
        var version: Int
        var folders: [String: FolderStamp]
        var entries: [String: [Entry]]
    }

    private struct Contents {
        var file: IndexFile
        var byUUID: [String: [Entry]]
        var imageNames: Set<String>
    }

    /// The index, brought up to date with the build folders on disk (once per run, and again for
    /// `forcingFolders`).
    private func contents(forcingFolders forced: Set<String>) -> Contents {
        if let loaded, forced.isEmpty { return loaded }
        var file = loaded?.file ?? readIndexFile() ?? IndexFile(version: IndexFile.currentVersion, folders: [:], entries: [:])
        var changed = false
        let onDisk = buildFolderStamps()
        for name in file.folders.keys where onDisk[name] == nil {
            file.folders[name] = nil
            file.entries[name] = nil
            changed = true
        }
        for (name, stamp) in onDisk where file.folders[name] != stamp || forced.contains(name) {
            file.entries[name] = entries(ofBuild: name)
            file.folders[name] = stamp
            changed = true
        }
        if changed { writeIndexFile(file) }
        var byUUID: [String: [Entry]] = [:]
        var names: Set<String> = []
        for (_, entries) in file.entries {
            for entry in entries {
                for uuid in entry.uuids { byUUID[uuid, default: []].append(entry) }
                names.insert(entry.image)
                names.insert(Self.imageBase(entry.image))
            }
        }
        let contents = Contents(file: file, byUUID: byUUID, imageNames: names)
        loaded = contents
        return contents
    }

    /// The root's build folders (names that are build numbers) and their stamps.
    private func buildFolderStamps() -> [String: FolderStamp] {
        guard let names = try? FileManager.default.contentsOfDirectory(atPath: root) else { return [:] }
        var stamps: [String: FolderStamp] = [:]
        for name in names where StoreBuild.number(fromVersion: name) != nil {
            guard case .success(let status) = FileIO.status(of: (root as NSString).appendingPathComponent(name), retryOnInterrupt: false),
                status.kind == .folder
            else { continue }
            stamps[name] = FolderStamp(seconds: Int(status.modifiedSeconds), nanoseconds: Int(status.modifiedNanoseconds), inode: status.inode)
        }
        return stamps
    }

    private func entries(ofBuild build: String) -> [Entry] {
        let folder = (root as NSString).appendingPathComponent(build)
        let prefix = root.hasSuffix("/") ? root : root + "/"
        return DebugFileCatalog.scan([folder]).files.map { file in
            Entry(
                build: build, path: file.path.hasPrefix(prefix) ? String(file.path.dropFirst(prefix.count)) : file.path, uuids: file.uuids,
                image: Self.imageName(ofStoredFile: (file.path as NSString).lastPathComponent), hasDebugInfo: file.hasDebugInfo)
        }
    }

    /// The largest index file read (a store of 10,000 builds of ten files each is about 3 MB).
    static let largestIndexFile = 64 << 20

    private func readIndexFile() -> IndexFile? {
        let path = (root as NSString).appendingPathComponent(Self.indexFileName)
        guard case .success(let status) = FileIO.status(of: path, retryOnInterrupt: false), status.kind == .regular,
            Int(status.size) <= Self.largestIndexFile,
            let data = FileManager.default.contents(atPath: path),
            let file = try? JSONDecoder().decode(IndexFile.self, from: data), file.version == IndexFile.currentVersion
        else { return nil }
        // An index whose entries leave the root (edited by hand) is not used.
        for entries in file.entries.values {
            for entry in entries where entry.path.hasPrefix("/") || entry.path.split(separator: "/").contains("..") { return nil }
        }
        return file
    }

    private func writeIndexFile(_ file: IndexFile) {
        guard let data = try? JSONEncoder().encode(file) else { return }
        let path = (root as NSString).appendingPathComponent(Self.indexFileName)
        let temporary = path + StoreTemporaryFiles.suffix(for: Processes.currentID) + "-\(UInt32.random(in: 0...UInt32.max))"
        guard let descriptor = try? FileIO.createNew(temporary, mode: 0o644) else { return }  // a read-only root: memory only
        var written = true
        data.withUnsafeBytes { bytes in
            do { try FileIO.writeAll(descriptor, bytes, path: temporary) } catch { written = false }
        }
        FileIO.close(descriptor)
        if !written || FileIO.rename(temporary, to: path, retryOnInterrupt: false) != nil { FileIO.remove(temporary) }
    }
}

@available(*, unavailable) extension DebugFileStore: Sendable {}
