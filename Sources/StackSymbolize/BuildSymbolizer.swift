import Foundation
import SymbolNames

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
    private var indexByUUID: [String: Int] = [:]
    /// UUID → the system symbol file that answers it, asked after the store.
    private var systemIndexByUUID: [String: Int] = [:]
    /// The rest of the store, searched by UUID for frames the build's own files do not cover.
    private let store: DebugFileStore?
    /// The build folder's name in the store (its files are not looked up again there).
    private let ownBuild: String?
    /// UUIDs the store was asked about and has no file for.
    private var storeMisses: Set<String> = []
    /// Indices into `debugFiles` of the files found in other builds of the store.
    public private(set) var filesFromOtherBuilds: Set<Int> = []
    /// Image names → whether the store knows them as the app's (`appImage(uuid:name:)`).
    private var knownImageNames: [String: Bool] = [:]
    private var images: [Int: DebugImage] = [:]
    private var openFailures: [Int: SymbolizeError] = [:]
    private var names = NameCache()

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
    private let indexFolder: String?
    private var indexes: [Int: SymbolIndex] = [:]
    /// Why the index folder could not be used, not yet handed out (`takeWarnings`), and every
    /// reason given so far (one warning each per run).
    private var pendingWarnings: [String] = []
    private var warnedReasons: Set<String> = []

    /// Warnings about the index folder since the last call (a folder that cannot be written, a lock
    /// held too long): the frames are answered directly, so the command prints these and goes on.
    public func takeWarnings() -> [String] {
        defer { pendingWarnings = [] }
        return pendingWarnings
    }

    /// Debug files no symbol index can hold (`SymbolIndexFormat.imageTooLarge`), or whose index
    /// folder cannot hold one: answered directly.
    private var directOnly: Set<Int> = []
    /// Told when slow work starts (building a symbol index), e.g. to print a progress line.
    public var progress: ((String) -> Void)?
    /// Per indexed file: frames already converted (names demangled), by place.
    /// (Dictionaries, not arrays of the index's 1.3 million locations: a short run must not pay
    /// for allocating and destroying them.)
    private var convertedLocations: [Int: [UInt32: (frames: [SourceFrame], start: UInt64?)]] = [:]
    private var convertedOthers: [Int: [SymbolIndex.Place: [SourceFrame]]] = [:]

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
    /// added to `debugFiles` on first use), else a system symbol file.
    private func resolve(canonical: String) -> Int? {
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
    private func resolve(given uuid: String) -> Int? {
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
    private var storeKnowsNothing: Bool {
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

    /// Symbolicates one stack, innermost frame first. Frames marked `isReturnAddress` are looked up
    /// at their caller's instruction.
    public func symbolicate(_ stack: [FrameRequest]) -> [SymbolicatedFrame] {
        stack.map { request in
            guard let given = request.uuid, let index = resolve(given: given) else {
                return SymbolicatedFrame(request: request, status: .missingDebugFile, lookupAddress: nil, debugFile: nil, frames: [])
            }
            if answersFromIndex(index) {
                guard let symbolIndex = symbolIndex(at: index) else {
                    if directOnly.contains(index) { return symbolicateDirectly(request, index: index) }
                    return missingDebugFile(request, index: index)
                }
                var address = symbolIndex.textBase &+ request.offset
                if request.isReturnAddress { address = InstructionSet(architecture: debugFiles[index].arch).callerAddress(address) }
                let answer = indexedFrame(symbolIndex, file: index, request: request, address: address)
                if symbolIndex.changedSinceLastCheck() {
                    indexes[index] = nil
                    openFailures[index] = Self.changedError(symbolIndex.path)
                    return missingDebugFile(request, index: index)
                }
                return answer
            }
            return symbolicateDirectly(request, index: index)
        }
    }

    /// The answer for a frame whose debug file cannot be used (any more).
    private func missingDebugFile(_ request: FrameRequest, index: Int) -> SymbolicatedFrame {
        SymbolicatedFrame(request: request, status: .missingDebugFile, lookupAddress: nil, debugFile: debugFiles[index].path, frames: [])
    }

    /// One frame looked up in the debug file itself.
    private func symbolicateDirectly(_ request: FrameRequest, index: Int) -> SymbolicatedFrame {
        guard let image = image(at: index) else {
            return missingDebugFile(request, index: index)
        }
        var address = image.textBase &+ request.offset
        if request.isReturnAddress { address = image.instructionSet.callerAddress(address) }
        let answer = frame(for: image.lookup(address), request: request, address: address, path: image.path)
        // A file that changed under us gives no more answers; the others still do.
        if image.changedSinceLastCheck() {
            images[index] = nil
            openFailures[index] = Self.changedError(image.path)
            return missingDebugFile(request, index: index)
        }
        return answer
    }

    /// Whether `debugFiles[index]` is answered from a symbol index: with an index folder, unless the
    /// image is one no index can hold (its code spans 4 GB or more), which is answered directly.
    private func answersFromIndex(_ index: Int) -> Bool { indexFolder != nil && !directOnly.contains(index) }

    static func changedError(_ path: String) -> SymbolizeError {
        SymbolizeError.changedWhileRead(path: path)
    }

    /// Why `debugFiles[index]` cannot be used, or nil when `symbolicate` can use it: the file is
    /// opened and its unit map built, exactly as a lookup would (a unit libdw cannot read, a
    /// file cut short). `dsyms` asks this, so it never calls usable a file `symbolicate` refuses.
    public func problem(withFileAt index: Int) -> SymbolizeError? {
        _ = image(at: index)
        return openFailures[index]
    }

    /// Why the debug file for `uuid` could not be opened, if it failed.
    public func openFailure(uuid: String) -> SymbolizeError? {
        guard let canonical = UUIDText.normalized(uuid), let index = resolve(canonical: canonical) else { return nil }
        return openFailures[index]
    }

    /// atos/llvm-symbolizer mode: looks up addresses in one debug file exactly as given (no
    /// caller adjustment). `uuid` picks the slice of a fat file; without it the file must have one.
    ///
    /// - Parameter offsets: when true, the values are offsets from the text base, as in a payload.
    public func lookup(addresses: [UInt64], uuid: String?, offsets: Bool = false) throws(SymbolizeError) -> [SymbolicatedFrame] {
        let index = try slice(uuid: uuid)
        let info = debugFiles[index]
        // An offset that takes the address past 2^64 is no address in the image: "not found", with
        // no address (it used to wrap around to the start of the address space).
        func beyondTheEnd(_ given: UInt64, base: UInt64) -> SymbolicatedFrame? {
            guard offsets, given > UInt64.max - base else { return nil }
            let request = FrameRequest(image: nil, uuid: info.uuids.first, offset: given, isReturnAddress: false)
            return SymbolicatedFrame(request: request, status: .notFound, lookupAddress: nil, debugFile: debugFiles[index].path, frames: [])
        }
        let opened = answersFromIndex(index) ? symbolIndex(at: index) : nil
        if opened == nil, indexFolder != nil, !directOnly.contains(index) { throw openFailures[index]! }
        if let symbolIndex = opened {
            let answers = addresses.map { given in
                if let outside = beyondTheEnd(given, base: symbolIndex.textBase) { return outside }
                let address = offsets ? symbolIndex.textBase &+ given : given
                let request = FrameRequest(image: nil, uuid: info.uuids.first, offset: address &- symbolIndex.textBase, isReturnAddress: false)
                return indexedFrame(symbolIndex, file: index, request: request, address: address)
            }
            if symbolIndex.hasChanged {
                indexes[index] = nil
                openFailures[index] = Self.changedError(symbolIndex.path)
                throw openFailures[index]!
            }
            return answers
        }
        let (image, raw, lookupAddresses) = try directLookups(index, addresses, offsets: offsets)
        return zip(zip(addresses, lookupAddresses), raw).map { pair, lookup in
            if let outside = beyondTheEnd(pair.0, base: image.textBase) { return outside }
            let request = FrameRequest(
                image: nil, uuid: info.uuids.first, offset: offsets ? pair.0 : pair.0 &- image.textBase, isReturnAddress: false)
            return frame(for: lookup, request: request, address: pair.1, path: image.path)
        }
    }

    /// `lookup(addresses:uuid:offsets:)`'s answers as text output needs them, or nil when a
    /// symbol index answers the slice (its own output path writes those): no `SymbolicatedFrame`
    /// or `SourceFrame` per answer. Building those and reading them back was a fifth of a cold
    /// batch of 10,000 addresses on a small binary.
    public func lookupForText(addresses: [UInt64], uuid: String?, offsets: Bool = false) throws(SymbolizeError) -> DirectAnswers? {
        let index = try slice(uuid: uuid)
        guard !answersFromIndex(index) || directOnly.contains(index) else { return nil }
        if !ParallelLookup.usesThreads(for: addresses.count) { return try textAnswers(index, addresses, offsets: offsets) }
        let (image, raw, lookupAddresses) = try directLookups(index, addresses, offsets: offsets)
        var result = DirectAnswers(debugFile: image.path)
        result.answers.reserveCapacity(addresses.count)
        result.frames.reserveCapacity(addresses.count * 3 / 2)
        // Each name and path kept once.
        var nameSpans: [String: Range<Int32>] = [:]
        var fileSpans: [String: Range<Int32>] = [:]
        for position in addresses.indices {
            let given = addresses[position]
            let first = Int32(result.frames.count)
            // An offset past 2^64 is no address in the image (see `lookup`).
            guard !(offsets && given > UInt64.max - image.textBase) else {
                result.answers.append(.init(status: .notFound, offset: given, lookupAddress: nil, functionStart: nil, frames: first..<first))
                continue
            }
            let lookup = raw[position]
            for frame in lookup.frames {
                let simplified = names.simplifiedName(for: frame.linkageName ?? frame.plainName ?? "??", simplified: frame.simplifiedName)
                let name = nameSpans[simplified] ?? result.keep(simplified)
                nameSpans[simplified] = name
                var file: Range<Int32>?
                if let path = frame.file {
                    file = fileSpans[path] ?? result.keep(path)
                    fileSpans[path] = file
                }
                result.frames.append(.init(name: name, file: file, line: frame.line, isInlined: frame.isInlined))
            }
            result.answers.append(
                .init(
                    status: Self.status(of: lookup.source), offset: offsets ? given : given &- image.textBase,
                    lookupAddress: lookupAddresses[position], functionStart: lookup.functionStart, frames: first..<Int32(result.frames.count)))
        }
        result.lookups = raw
        return result
    }

    /// `lookupForText` on one thread, straight from the walk: each frame's name and file come as
    /// numbers (`FramePlace`) and go to the answers' bytes once each, so no frame carries strings
    /// (retaining and releasing them, and hashing each name again, was a sixth of a cold batch).
    private func textAnswers(_ index: Int, _ addresses: [UInt64], offsets: Bool) throws(SymbolizeError) -> DirectAnswers {
        guard let image = image(at: index, checkingUnits: false) else { throw openFailures[index]! }
        let lookupAddresses = offsets ? addresses.map { image.textBase &+ $0 } : addresses
        var result = DirectAnswers(debugFile: image.path)
        result.answers = addresses.indices.map { position in
            .init(
                status: .notFound, offset: offsets ? addresses[position] : addresses[position] &- image.textBase,
                lookupAddress: lookupAddresses[position], functionStart: nil, frames: 0..<0)
        }
        result.frames.reserveCapacity(addresses.count * 3 / 2)
        // Names go straight to their simplified form, not through the name cache: `nameSpans`
        // already makes each DIE's or symbol's name once, and the few names two DIEs share (5% of
        // swift-help's) cost less to read again than hashing every name into a table reserved for
        // the batch (its fresh pages were a tenth of the batch's page faults).
        var reader = MangledSwiftName()
        // Where each name (by DIE offset, or symbol name offset with the top bit set) and each file
        // (by unit, table and number) went in `result.text`.
        var nameSpans = WordMap<Range<Int32>>()
        var fileSpans = WordMap<Range<Int32>>()
        func add(_ place: FramePlace, _ unitIndex: Int, _ unit: DecodedUnit) {
            let nameKey: UInt64
            switch place.name {
            case .symbol(let symbol): nameKey = UInt64(truncatingIfNeeded: symbol.nameOffset) | 1 << 63
            case .function(let dieOffset, _): nameKey = dieOffset
            case .none: nameKey = .max
            }
            let name: Range<Int32>
            if let known = nameSpans[nameKey] {
                name = known
            } else {
                // Straight from the name's bytes to the simplified form's in `result.text`.
                func keepSimplified(_ stored: UnsafeBufferPointer<UInt8>) -> Range<Int32> {
                    NameCache.withSimplifiedName(bytes: stored, using: &reader) { result.keep($0) }
                }
                switch place.name {
                case .symbol(let symbol):
                    name = image.withName(of: symbol) { keepSimplified($0) }
                case .function(let dieOffset, let isInlined):
                    let names = image.name(dieOffset, isInlined: isInlined)
                    var stored = names.linkage ?? names.plain ?? "??"
                    name = stored.withUTF8 { keepSimplified($0) }
                case .none:
                    var stored = "??"
                    name = stored.withUTF8 { keepSimplified($0) }
                }
                nameSpans.set(nameKey, name)
            }
            var file: Range<Int32>?
            let fileKey: UInt64
            switch place.file {
            case .none: fileKey = .max
            case .line(let number): fileKey = UInt64(unitIndex) << 33 | UInt64(number)
            case .call(let number): fileKey = UInt64(unitIndex) << 33 | 1 << 32 | UInt64(number)
            }
            if fileKey != .max {
                if let known = fileSpans[fileKey] {
                    file = known
                } else {
                    switch place.file {
                    case .line(let number): file = result.keep(unit.lineFileNames[number])
                    case .call(let number): file = result.keep(unit.callFileNames[number])
                    case .none: break
                    }
                    fileSpans.set(fileKey, file!)
                }
            }
            result.frames.append(.init(name: name, file: file, line: place.line, isInlined: place.isInlined))
        }
        image.walkBatch(lookupAddresses, releasingPages: addresses.count >= Self.batchReleasingPages) { position, unitIndex, unit in
            let first = Int32(result.frames.count)
            let (found, start) = image.visitFrames(in: unit, at: lookupAddresses[position]) { add($0, unitIndex, $1) }
            guard found else { return false }
            result.answers[position].status = .symbolicated
            result.answers[position].functionStart = start
            result.answers[position].frames = first..<Int32(result.frames.count)
            return true
        } elsewhere: { position in
            let first = Int32(result.frames.count)
            let (source, start) = image.visitLookup(lookupAddresses[position]) { add($0, $1, $2) }
            result.answers[position].status = Self.status(of: source)
            result.answers[position].functionStart = start
            result.answers[position].frames = first..<Int32(result.frames.count)
        }
        // An offset past 2^64 is no address in the image (see `lookup`).
        for (position, given) in addresses.enumerated() where offsets && given > UInt64.max - image.textBase {
            result.answers[position] = .init(status: .notFound, offset: given, lookupAddress: nil, functionStart: nil, frames: 0..<0)
        }
        try checkAfterBatch(index, image, count: addresses.count)
        return result
    }

    /// The lookups of `addresses` in the debug file itself (no index), with the image and the
    /// addresses looked up; throws when the file could not be read or changed under the batch.
    private func directLookups(
        _ index: Int, _ addresses: [UInt64], offsets: Bool
    ) throws(SymbolizeError) -> (
        image: DebugImage, raw: [RawLookup], lookupAddresses: [UInt64]
    ) {
        guard let image = image(at: index, checkingUnits: false) else { throw openFailures[index]! }
        let lookupAddresses = offsets ? addresses.map { image.textBase &+ $0 } : addresses
        var raw = ParallelLookup.run(image, lookupAddresses, names: &names)
        for (position, given) in addresses.enumerated() where offsets && given > UInt64.max - image.textBase {
            raw[position] = RawLookup(source: .none, frames: [])
        }
        try checkAfterBatch(index, image, count: addresses.count)
        names.reserve(addresses.count)
        return (image, raw, lookupAddresses)
    }

    /// After a batch of `count` addresses in slice `index`: throws when a unit could not be read
    /// or the file changed, and lets a large batch's pages go.
    private func checkAfterBatch(_ index: Int, _ image: DebugImage, count: Int) throws(SymbolizeError) {
        // The batch built the unit map (on both threads); a unit it could not read voids its answers,
        // and so does a file that changed while it was read.
        if let problem = image.dwarfProblem {
            images[index] = nil
            openFailures[index] = SymbolizeError.corrupt(path: image.path, problem)
            throw openFailures[index]!
        }
        if image.hasChanged {
            images[index] = nil
            openFailures[index] = Self.changedError(image.path)
            throw openFailures[index]!
        }
        // A large batch has read what it needs of the file (the answers hold their own strings):
        // its pages and libdw's data go before the answers become names (docs/speed.md).
        if count >= Self.batchReleasingPages { image.releaseBatchMemory() }
    }

    /// The debug file `uuid` names, or the only one: `lookup(addresses:uuid:offsets:)`'s choice.
    private func slice(uuid: String?) throws(SymbolizeError) -> Int {
        let index: Int
        if let uuid {
            guard let canonical = UUIDText.normalized(uuid) else { throw SymbolizeError.badArgument(path: uuid, "not a UUID") }
            guard let found = indexByUUID[canonical] ?? systemIndexByUUID[canonical] else {
                throw SymbolizeError.badArgument(
                    path: debugFiles.first?.path ?? "", "no slice with UUID \(canonical) (has \(debugFiles.flatMap(\.uuids).joined(separator: ", ")))"
                )
            }
            index = found
        } else {
            // A binary and its dSYM beside it (`--object crash` finding `crash.dSYM`) are one slice:
            // the file that answers its UUID.
            let answering = Set(indexByUUID.values).sorted()
            guard answering.count == 1 else {
                let slices = answering.map { "\(debugFiles[$0].arch) \(debugFiles[$0].uuids[0])" }.joined(separator: ", ")
                throw SymbolizeError.badArgument(
                    path: debugFiles.first?.path ?? "", "has \(answering.count) slices (\(slices)); pick one with --uuid")
            }
            index = answering[0]
        }
        return index
    }

    /// The symbol index answering `uuid`'s slice (or the only slice), for output written straight
    /// from its bytes; nil when the file is answered directly (no index folder, or an image no
    /// index can hold). Throws what `lookup(addresses:uuid:offsets:)` throws for an index that
    /// cannot be built or opened.
    public func indexedFrames(uuid: String?) throws(SymbolizeError) -> IndexedFrames? {
        let index = try slice(uuid: uuid)
        guard answersFromIndex(index) else { return nil }
        guard let symbolIndex = symbolIndex(at: index) else {
            if directOnly.contains(index) { return nil }
            throw openFailures[index]!
        }
        return IndexedFrames(index: symbolIndex, debugFile: debugFiles[index].path)
    }

    /// From this many addresses a batch drops the file's pages when done: below it, batches are
    /// the small ones a caller makes again and again, which would fault the same pages back.
    static let batchReleasingPages = 1_000

    /// An answer from an index: one binary search, then frames converted once per place and reused.
    private func indexedFrame(_ symbolIndex: SymbolIndex, file: Int, request: FrameRequest, address: UInt64) -> SymbolicatedFrame {
        let place = symbolIndex.place(of: address)
        let status: SymbolicatedFrame.Status
        let frames: [SourceFrame]
        var start: UInt64?
        switch place {
        case .location(let location):
            status = .symbolicated
            if let known = convertedLocations[file]?[location] {
                frames = known.frames
                start = known.start
            } else {
                let raw = symbolIndex.answer(location)
                frames = sourceFrames(raw)
                start = raw.functionStart
                convertedLocations[file, default: [:]][location] = (frames, start)
            }
        case .symbol(let symbol):
            status = .symbolTable
            let raw = symbolIndex.symbolAnswer(symbol)
            start = raw.functionStart
            if let known = convertedOthers[file]?[place] {
                frames = known
            } else {
                frames = sourceFrames(raw)
                convertedOthers[file, default: [:]][place] = frames
            }
        case .nothing:
            status = .notFound
            frames = []
        }
        return SymbolicatedFrame(
            request: request, status: status, lookupAddress: address, debugFile: debugFiles[file].path, frames: frames,
            functionStart: start)
    }

    private func sourceFrames(_ lookup: RawLookup) -> [SourceFrame] {
        lookup.frames.map { raw -> SourceFrame in
            let stored = raw.linkageName ?? raw.plainName ?? "??"
            let (full, simple) = names.names(for: stored, simplified: raw.simplifiedName)
            return SourceFrame(
                linkageName: raw.linkageName, function: full, simplifiedName: simple, file: raw.file, line: raw.line, isInlined: raw.isInlined)
        }
    }

    private func symbolIndex(at index: Int) -> SymbolIndex? {
        if let open = indexes[index] { return open }
        guard let indexFolder, openFailures[index] == nil else { return nil }
        do {
            let info = debugFiles[index]
            let opened = try SymbolIndexCache.open(folder: indexFolder, for: info) { () throws(SymbolizeError) in
                progress?("building the symbol index of \(info.path) (\(info.arch))")
                return try DebugFileCatalog.open(info)
            }
            switch opened {
            case .index(let symbolIndex):
                indexes[index] = symbolIndex
                return symbolIndex
            case .direct(let reason):
                directOnly.insert(index)
                if warnedReasons.insert(reason).inserted { pendingWarnings.append(reason) }
                return nil
            }
        } catch {
            if case .unsupported(_, SymbolIndexFormat.imageTooLarge) = error {
                directOnly.insert(index)
            } else {
                openFailures[index] = error
            }
            return nil
        }
    }

    /// The debug image of `debugFiles[index]`, opened once. With `checkingUnits` (the default) its
    /// unit map is built and a unit that cannot be read makes it fail; a batch passes false and
    /// checks after building the map on two threads.
    private func image(at index: Int, checkingUnits: Bool = true) -> DebugImage? {
        if let open = images[index] { return open }
        if openFailures[index] != nil { return nil }
        do {
            let image = try DebugFileCatalog.open(debugFiles[index])
            if checkingUnits, let problem = image.dwarfProblem {
                openFailures[index] = SymbolizeError.corrupt(path: image.path, problem)
                return nil
            }
            images[index] = image
            return image
        } catch {
            openFailures[index] = error
            return nil
        }
    }

    private func frame(for lookup: RawLookup, request: FrameRequest, address: UInt64, path: String) -> SymbolicatedFrame {
        let frames = sourceFrames(lookup)
        return SymbolicatedFrame(
            request: request, status: Self.status(of: lookup.source), lookupAddress: address, debugFile: path, frames: frames,
            functionStart: lookup.functionStart)
    }

    private static func status(of source: RawLookup.Source) -> SymbolicatedFrame.Status {
        switch source {
        case .dwarf: .symbolicated
        case .symbolTable: .symbolTable
        case .none: .notFound
        }
    }
}

@available(*, unavailable) extension BuildSymbolizer: Sendable {}
