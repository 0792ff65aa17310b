import Foundation
import SymbolNames
import SystemIO

/// Symbolicates stacks against one build's debug files, matched by UUID: the build's folder
/// first, then the rest of the store (`DebugFileStore`), then the system symbol folders.
///
/// Debug files are opened on first use and kept; names are demangled once each. Not thread-safe.
public final class BuildSymbolizer {
    /// Every debug file found, one entry per ELF file or Mach-O slice: the build's own, the system
    /// symbol files (`systemSymbolFiles`), and those found since in other builds of the store
    /// (`filesFromOtherBuilds`).
    public private(set) var debugFiles: [DebugFileInfo]
    /// Files that looked like debug files but could not be read, each naming the file and why.
    public let problems: [SymbolizeError]
    /// UUID → the build's own file that answers it (one with DWARF before one without).
    var indexByUUID: [String: Int] = [:]
    /// UUID → the system symbol file that answers it, asked after the store.
    var systemIndexByUUID: [String: Int] = [:]
    /// The rest of the store, searched by UUID for frames the build's own files do not cover.
    let store: DebugFileStore?
    /// The build folder's name in the store (its files are not looked up again there).
    let ownBuild: String?
    /// UUIDs the store was asked about and has no file for.
    var storeMisses: Set<String> = []
    /// Indices into `debugFiles` of the files found in other builds of the store.
    public private(set) var filesFromOtherBuilds: Set<Int> = []
    /// Image names → whether the store knows them as the app's (`appImage(uuid:name:)`).
    var knownImageNames: [String: Bool] = [:]
    var images: [Int: DebugImage] = [:]
    /// Files whose first large batch is being prepared on another thread (`prepareForBatch`), and
    /// the second handles those preparations made, until a batch takes them.
    var preparations: [Int: SecondThread<ParallelLookup.PreparedWorker>] = [:]
    var preparedWorkers: [Int: ParallelLookup.PreparedWorker] = [:]
    /// Where UUIDs nothing local answers are fetched from (shared by a run's builds), or nil.
    public var symbolServers: SymbolServerFetcher?
    var openFailures: [Int: SymbolizeError] = [:]
    var names = NameCache()

    /// Whether frames carry full demangled names (`SourceFrame.function`). Text and folded output
    /// print only simplified names: without full names a frame's `function` is its stored
    /// (linkage) name, and Swift names are read straight to their simplified form, at a fraction
    /// of the cost. Setting it starts a new name cache.
    public var makesFullNames: Bool {
        get { names.makesFullNames }
        set {
            names = NameCache()
            names.makesFullNames = newValue
        }
    }
    /// Folder of on-disk symbol indexes; `nil` looks up in the debug files directly.
    let indexFolder: String?
    var indexes: [Int: SymbolIndex] = [:]
    /// Why the index folder could not be used, not yet handed out (`takeWarnings`), and every
    /// reason given so far (one warning each per run).
    var pendingWarnings: [String] = []
    var warnedReasons: Set<String> = []

    /// Warnings about the index folder since the last call (a folder that cannot be written, a lock
    /// held too long): the frames are answered directly, so the command prints these and goes on.
    public func takeWarnings() -> [String] {
        defer { pendingWarnings = [] }
        return pendingWarnings
    }

    /// Debug files no symbol index can hold (`SymbolIndexFormat.imageTooLarge`), or whose index
    /// folder cannot hold one: answered directly.
    var directOnly: Set<Int> = []
    /// Told when slow work starts (building a symbol index), e.g. to print a progress line.
    public var progress: ((String) -> Void)?
    /// Per indexed file: frames already converted (names demangled), by place.
    /// (Dictionaries, not arrays of the index's 1.3 million locations: a short run must not pay
    /// for allocating and destroying them.)
    var convertedLocations: [Int: [UInt32: (frames: [SourceFrame], start: UInt64?)]] = [:]
    var convertedOthers: [Int: [SymbolIndex.Place: [SourceFrame]]] = [:]

    /// Indexes the debug files of a build folder (see `buildFolder(root:build:)`).
    public convenience init(buildFolder: String) throws(SymbolizeError) {
        try self.init(buildFolder: buildFolder, indexFolder: nil)
    }

    /// As `init(buildFolder:)`, answering from on-disk symbol indexes kept in `indexFolder`
    /// (built on first use of each debug file, rebuilt when the file changes).
    public convenience init(buildFolder: String, indexFolder: String?) throws(SymbolizeError) {
        try self.init(buildFolder: buildFolder, indexFolder: indexFolder, systemSymbols: [])
    }

    /// As `init(buildFolder:indexFolder:)`, and `systemSymbols`: folders of system images' symbol
    /// files (Xcode's `iOS DeviceSupport/<version>/Symbols`, say), searched by UUID for images the
    /// build's folder has no debug file for. Such an image answers from its symbol table.
    public convenience init(buildFolder: String, indexFolder: String?, systemSymbols: [String]) throws(SymbolizeError) {
        var isDirectory: ObjCBool = false
        guard FileManager.default.fileExists(atPath: buildFolder, isDirectory: &isDirectory), isDirectory.boolValue else {
            throw SymbolizeError.fileSystem(path: buildFolder, "no such build folder")
        }
        try self.init(debugFiles: [buildFolder], indexFolder: indexFolder, systemSymbols: systemSymbols)
    }

    /// The symbolizer of build `build` in `store`: its folder's files first (a missing folder has
    /// none), then every other build's by UUID, then `systemSymbols`.
    public convenience init(build: String, store: DebugFileStore, indexFolder: String?, systemSymbols: [String]) throws(SymbolizeError) {
        let folder = try Self.buildFolder(root: store.root, build: build)
        var isDirectory: ObjCBool = false
        let exists = FileManager.default.fileExists(atPath: folder, isDirectory: &isDirectory) && isDirectory.boolValue
        try self.init(
            debugFiles: exists ? [folder] : [], indexFolder: indexFolder, systemSymbols: systemSymbols, store: store, ownBuild: build)
    }

    /// The system symbol folders of a command: `given` (`--symbols`), else `$YUI_SYSTEM_SYMBOLS`
    /// (folders separated by `:`), else `<root>/system` when it exists (root as for builds).
    public static func systemSymbolFolders(given: [String], root: String?) -> [String] {
        if !given.isEmpty { return given }
        if let variable = ProcessInfo.processInfo.environment["YUI_SYSTEM_SYMBOLS"], !variable.isEmpty {
            return variable.split(separator: ":").map(String.init)
        }
        guard let folder = try? buildFolder(root: root, build: "system") else { return [] }
        var isDirectory: ObjCBool = false
        return FileManager.default.fileExists(atPath: folder, isDirectory: &isDirectory) && isDirectory.boolValue ? [folder] : []
    }

    /// Indexes the given debug files, `.dSYM` bundles or folders.
    public convenience init(debugFiles paths: [String]) throws(SymbolizeError) {
        try self.init(debugFiles: paths, indexFolder: nil)
    }

    /// The default folder for symbol indexes: `$YUI_SYMBOL_CACHE`, else `~/.cache/yui-perf/symbol-index`.
    public static var defaultIndexFolder: String { SymbolIndexCache.defaultFolder() }

    /// As `init(debugFiles:)`, answering from on-disk symbol indexes kept in `indexFolder`.
    public init(
        debugFiles paths: [String], indexFolder: String?, systemSymbols: [String] = [], store: DebugFileStore? = nil, ownBuild: String? = nil
    ) throws(SymbolizeError) {
        self.indexFolder = indexFolder
        self.store = store
        self.ownBuild = ownBuild
        let scan = DebugFileCatalog.scan(paths)
        var files = scan.files
        var found = scan.problems
        let ownCount = files.count
        if !systemSymbols.isEmpty {
            // Only images the build's own files do not cover: a build's dSYM always wins.
            let own = Set(files.flatMap(\.uuids))
            let system = DebugFileCatalog.scan(systemSymbols)
            files += system.files.filter { $0.uuids.allSatisfy { !own.contains($0) } }
            found += system.problems
        }
        debugFiles = files
        problems = found
        systemSymbolFiles = Set(ownCount..<files.count)
        for (index, file) in debugFiles.enumerated() {
            for uuid in file.uuids {
                if systemSymbolFiles.contains(index) {
                    if systemIndexByUUID[uuid] == nil { systemIndexByUUID[uuid] = index }
                } else if let earlier = indexByUUID[uuid] {
                    // One entry per UUID: a file with DWARF answers before one without (a binary
                    // beside its dSYM in a Products folder never hides the dSYM's file and line).
                    if file.hasDebugInfo, !debugFiles[earlier].hasDebugInfo { indexByUUID[uuid] = index }
                } else {
                    indexByUUID[uuid] = index
                }
            }
        }
        if debugFiles.isEmpty, let first = problems.first { throw first }
    }

    /// The file that answers a canonical UUID: the build's own, else the store's (another build,
    /// added to `debugFiles` on first use), else a system symbol file, else one fetched from the
    /// symbol servers.
    func resolve(canonical: String) -> Int? {
        if let found = resolveLocally(canonical: canonical) { return found }
        guard symbolServers != nil else { return nil }
        fetch([SymbolServerFetcher.Wanted(uuid: canonical, image: nil)])
        return indexByUUID[canonical]
    }

    /// Files placed in the build's folder since it was read (fetched from a symbol server).
    func addOwnFiles(_ paths: [String]) {
        for slice in DebugFileCatalog.scan(paths).files where slice.uuids.allSatisfy({ indexByUUID[$0] == nil }) {
            let index = debugFiles.count
            debugFiles.append(slice)
            for uuid in slice.uuids { indexByUUID[uuid] = index }
        }
    }

    /// `resolve(canonical:)` without asking the symbol servers.
    func resolveLocally(canonical: String) -> Int? {
        if let own = indexByUUID[canonical] { return own }
        if let store, !storeMisses.contains(canonical) {
            let slices = store.locate(uuid: canonical, excludingBuild: ownBuild)
            if slices.isEmpty {
                storeMisses.insert(canonical)
            } else {
                for slice in slices where slice.uuids.allSatisfy({ indexByUUID[$0] == nil }) {
                    let index = debugFiles.count
                    debugFiles.append(slice)
                    filesFromOtherBuilds.insert(index)
                    for uuid in slice.uuids { indexByUUID[uuid] = index }
                }
                if let found = indexByUUID[canonical] { return found }
            }
        }
        return systemIndexByUUID[canonical]
    }

    /// The file for a UUID as a frame gives it (any case, with or without dashes).
    func resolve(given uuid: String) -> Int? {
        if let own = indexByUUID[uuid] { return own }
        return UUIDText.normalized(uuid).flatMap { resolve(canonical: $0) }
    }

    /// Whether an image is the app's as the store knows it (docs/top.md, "App frames"): true when
    /// its UUID has a debug file in the build or anywhere in the store (not a system symbol
    /// file), or the store holds an image of that name (`X.debug.dylib` and `X` alike); false for
    /// any other image when the store knows some; nil when the store knows nothing (no build
    /// holds a debug file), so the shipped list of Apple's images decides.
    public func appImage(uuid: String?, name: String?) -> Bool? {
        if let uuid, let index = resolve(given: uuid), !systemSymbolFiles.contains(index) { return true }
        guard let name else { return storeKnowsNothing ? nil : false }
        if let known = knownImageNames[name] { return known }
        let ownNames = debugFiles.indices.lazy.filter { !self.systemSymbolFiles.contains($0) }.map {
            DebugFileStore.imageName(ofStoredFile: (self.debugFiles[$0].path as NSString).lastPathComponent)
        }
        let base = DebugFileStore.imageBase(name)
        var answer: Bool?
        if ownNames.contains(where: { $0 == name || DebugFileStore.imageBase($0) == base }) || store?.knowsImage(named: name) == true {
            answer = true
        } else {
            answer = storeKnowsNothing ? nil : false
        }
        knownImageNames[name] = answer
        return answer
    }

    /// No debug file in the build's folder nor in any other build.
    var storeKnowsNothing: Bool {
        indexByUUID.isEmpty && (store?.isEmpty ?? true)
    }

    /// The debug files of one path (a file, bundle or folder), and the files that looked like
    /// debug files but could not be read, without opening any DWARF.
    /// With `quietIfForeign`, a file that is neither Mach-O nor ELF gives neither (an app bundle's
    /// icon met by `dsyms import`).
    public static func debugFiles(in path: String, quietIfForeign: Bool = false) -> (files: [DebugFileInfo], problems: [SymbolizeError]) {
        DebugFileCatalog.scan([path], quietIfForeign: quietIfForeign)
    }

    /// Indices into `debugFiles` of the files found in the system symbol folders.
    public let systemSymbolFiles: Set<Int>

    /// Whether `debugFiles[index]` is one of the build's own files (not a system symbol file, not
    /// one found in another build).
    public func isOwnFile(_ index: Int) -> Bool { !systemSymbolFiles.contains(index) && !filesFromOtherBuilds.contains(index) }

    /// True when a debug file answers to `uuid` (any case, with or without dashes).
    public func hasDebugFile(uuid: String) -> Bool {
        guard let canonical = UUIDText.normalized(uuid) else { return false }
        return resolve(canonical: canonical) != nil
    }

    /// The folder of one build: `<root>/<build>`, root from `root` (`--dsyms`), else `YUI_DSYMS`,
    /// else `$HOME/.yui-dsyms` (`DebugFileStore.rootFolder(given:)`). A build that is not a single plain path component is refused, so
    /// `../../etc` cannot leave the root.
    public static func buildFolder(root: String?, build: String) throws(SymbolizeError) -> String {
        guard isPlainPathComponent(build) else {
            throw SymbolizeError.badArgument(path: build, "a build must be one folder name (letters, digits, '.', '_', '-'), not a path")
        }
        return (DebugFileStore.rootFolder(given: root) as NSString).appendingPathComponent(build)
    }

    /// Letters, digits, `.`, `_`, `-`; not `.` or `..`. Also guards names taken from payloads.
    static func isPlainPathComponent(_ text: String) -> Bool {
        guard !text.isEmpty, text != ".", text != "..", text.utf8.count <= 255 else { return false }
        return text.unicodeScalars.allSatisfy { scalar in
            scalar.isASCII && (CharacterSet.alphanumerics.contains(scalar) || scalar == "." || scalar == "_" || scalar == "-")
        }
    }
}
