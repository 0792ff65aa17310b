import Foundation
import PayloadDecode
import StackSymbolize
import SystemIO

/// `payload-tool dsyms import [--dsyms ROOT] [--build B] PATH...`: debug files from what Xcode and
/// App Store Connect produce (`.xcarchive` bundles with their dSYMs and Products, App Store
/// Connect's "Download dSYMs" zips, loose `.dSYM`s, `.app` and `.framework` bundles, Products
/// folders), placed in the store under `ROOT/BUILD/` and named by their UUIDs, by the store's
/// rules (docs/symbolication.md, "The store"):
///
/// - one entry per UUID in a build: a file with DWARF replaces one without, a file without DWARF
///   never replaces one with it (in any order), the same bytes again change nothing;
/// - a build is a build number (`StoreBuild`): `4.2.1` lands in `4/`, `system` nowhere;
/// - files that are not Mach-O or ELF (an app's icons, `Assets.car`, `PkgInfo`, `CodeResources`)
///   are skipped quietly and counted; an archive with no dSYMs gets one warning;
/// - zips are read with libarchive (no `unzip` process) within stated limits (`ZipLimits`), and an
///   entry that would leave the folder it is unpacked into, or is a link, is refused and named; no
///   entry's path is ever used to form a destination, only the file's UUIDs and its plain name;
/// - temporary files go on SIGINT, SIGTERM and SIGHUP, and those of dead runs on the next import.
enum DsymsImport {
    static let build = CommandOption(
        "--build", "BUILD", parser: .storeBuildNumber,
        help: [
            "The build the files belong to (a build number; 130.1 is build 130).",
            "Without it: the archive's Info.plist (ApplicationProperties.",
            "CFBundleVersion), else the bundle's own Info.plist (CFBundleVersion).",
        ])
    static let path = PositionalArgument(
        placeholder: "PATH",
        help: [
            "An .xcarchive, an App Store Connect dSYMs zip, a .dSYM, an .app or", ".framework bundle, a folder, a .zip of any of these, or one file.",
        ])

    /// `[--dsyms ROOT] [--build BUILD] PATH...`, also shown by `dsyms --help`.
    static let usage: [UsageItem] = [
        .optional(DebugFileArguments.dsyms.declaration), .optional(build.declaration), .positional(path, repeating: true),
    ]

    static let description = CommandDescription(
        name: "dsyms import",
        abstract: "Put debug files into the store, by build and UUID.",
        overview: """
            OVERVIEW: Put debug files where symbolicate, top and dsyms look for them.

            Each Mach-O or ELF file with a UUID found in PATH (a dSYM's DWARF file, an app's or a
            framework's binary) is copied to ROOT/BUILD/, named by its UUIDs and image name, written
            whole or not at all. The store's rules: one entry per UUID; a file with DWARF replaces one
            without, and one without DWARF never replaces one with it; importing again changes nothing.
            Frames are found by UUID in any build, so a framework's dSYM with its own version still names
            the app's frames. Other files (icons, Assets.car, PkgInfo) are skipped and counted.
            """,
        usage: [usage], arguments: [path], options: [DebugFileArguments.dsyms.declaration, build.declaration],
        epilogue: """
            Prints one line per debug file ('imported', 'unchanged', or 'kept' when the store's file has
            DWARF and this one has none), then a summary.
            """,
        exitStatuses: [
            ExitStatus(0, "Nothing failed."), ExitStatus(1, "Something was refused or failed; the rest are still placed."), .usage,
        ])

    struct Options: CommandOptions {
        static var description: CommandDescription { DsymsImport.description }

        var dsymsRoot: String?
        var build: String?
        var paths: [String]

        init(_ parsed: CommandArguments) throws(UsageError) {
            paths = parsed.positionals
            guard !paths.isEmpty else {
                throw UsageError(message: "Missing input: give .dSYM bundles, folders, .xcarchive bundles or .zip files.")
            }
            build = try parsed.value(DsymsImport.build)
            dsymsRoot = try parsed.value(DebugFileArguments.dsyms)
        }

        func run(stdin: FileHandle, stdout: inout some TextOutputStream, stderr: inout some TextOutputStream) -> Int32 {
            DsymsImport.importFiles(self, stdout: &stdout, stderr: &stderr)
        }
    }

    /// A debug file ready to be placed: where its bytes are now, what it holds, and what decides
    /// its build.
    struct Candidate {
        var source: String
        var displayName: String
        /// The file's own name (a dSYM's DWARF file is named after its image).
        var imageName: String
        /// `CFBundleVersion`s that could name the build, most specific first.
        var buildHints: [String]
        /// True for a staged copy (from a zip) that is moved, not copied, into place.
        var isStaged: Bool
        /// Its slices, as the store will see them.
        var files: [DebugFileInfo] = []

        var uuids: [String] { files.flatMap(\.uuids) }
        var hasDebugInfo: Bool { !files.isEmpty && files.allSatisfy(\.hasDebugInfo) }
    }

    /// What the run has reported: errors and warnings go to stderr as they happen; an error makes
    /// the run exit 1.
    struct Failures<Errors: TextOutputStream> {
        var stderr: Errors
        private(set) var any = false

        mutating func fail(_ message: String) {
            stderr.write("error: \(message)\n")
            any = true
        }

        mutating func warn(_ message: String) {
            stderr.write("warning: \(message)\n")
        }
    }

    /// What the walk found besides candidates.
    struct Gathered {
        var candidates: [Candidate] = []
        /// Files that are neither Mach-O nor ELF (resources of a bundle), skipped quietly.
        var skipped = 0
    }

    static func importFiles(
        _ options: Options, stdout: inout some TextOutputStream, stderr: inout some TextOutputStream
    ) -> Int32 {
        // Zips are unpacked into a staging folder beside the builds, so placing a file is a rename.
        let rootFolder = DebugFileStore.rootFolder(given: options.dsymsRoot)
        do {
            try FileManager.default.createDirectory(atPath: rootFolder, withIntermediateDirectories: true)
        } catch {
            stderr.write("error: \(rootFolder): cannot create the store's folder: \(error.localizedDescription)\n")
            return PayloadTool.exitFailure
        }
        StoreTemporaryFiles.removeStale(root: rootFolder)
        let staging = StoreTemporaryFiles.stagingFolder(root: rootFolder, pid: Processes.currentID)
        TemporaryFiles.registerFolder(staging)
        defer {
            try? FileManager.default.removeItem(atPath: staging)
            TemporaryFiles.unregisterFolder(staging)
        }

        var failures = Failures(stderr: stderr)
        var gathered = gatherCandidates(options.paths, staging: staging, failures: &failures)
        // Files with DWARF first: a binary met after its dSYM is then simply 'kept' out, in one run
        // as in two (an Xcode Products folder lists `crash.app.dSYM` before `crash.app`).
        gathered.candidates.sort { $0.hasDebugInfo && !$1.hasDebugInfo }
        var counts = (placed: 0, unchanged: 0, kept: 0)
        var folders: [String: BuildFolderFiles] = [:]
        for candidate in gathered.candidates {
            switch importCandidate(candidate, options: options, root: rootFolder, folders: &folders, failures: &failures) {
            case .placed(let line):
                stdout.write(line)
                counts.placed += 1
            case .unchanged(let line):
                stdout.write(line)
                counts.unchanged += 1
            case .kept(let line):
                stdout.write(line)
                counts.kept += 1
            case .notPlaced: break
            }
        }
        stderr = failures.stderr
        var summary = "\(counts.placed) imported, \(counts.unchanged) unchanged"
        if counts.kept > 0 { summary += ", \(counts.kept) kept out (the store's file has DWARF)" }
        if gathered.skipped > 0 { summary += ", \(gathered.skipped) skipped (not Mach-O or ELF)" }
        stdout.write(summary + "\n")
        return failures.any ? PayloadTool.exitFailure : PayloadTool.exitSuccess
    }

    /// The debug files in `paths`: zips unpacked into `staging`, folders and bundles walked.
    static func gatherCandidates(
        _ paths: [String], staging: String, failures: inout Failures<some TextOutputStream>
    ) -> Gathered {
        var gathered = Gathered()
        for path in paths {
            var isDirectory: ObjCBool = false
            guard FileManager.default.fileExists(atPath: path, isDirectory: &isDirectory) else {
                failures.fail("\(path): no such file or folder")
                continue
            }
            if !isDirectory.boolValue, isZip(path) {
                do {
                    try FileManager.default.createDirectory(atPath: staging, withIntermediateDirectories: true)
                    let unpacked = try unpackZip(path, into: staging)
                    for refusal in unpacked.refused { failures.fail("\(path): entry \(refusal)") }
                    for archive in unpacked.archivesWithoutDSYMs { failures.warn(noDSYMsWarning("\(path) (\(archive))")) }
                    let scanned = scan(unpacked.candidates, quietIfForeign: true, failures: &failures)
                    gathered.candidates += scanned.candidates
                    gathered.skipped += scanned.skipped
                } catch {
                    failures.fail("\(path): \(error)")
                }
                continue
            }
            if isDirectory.boolValue {
                for archive in archivesWithoutDSYMs(in: path) { failures.warn(noDSYMsWarning(archive)) }
            }
            // A file named on the command line must be a debug file; one found in a folder may be anything.
            let scanned = scan(filesOnDisk(path), quietIfForeign: isDirectory.boolValue, failures: &failures)
            gathered.candidates += scanned.candidates
            gathered.skipped += scanned.skipped
        }
        return gathered
    }

    static func noDSYMsWarning(_ archive: String) -> String {
        "\(archive): an archive without dSYMs: its binaries are imported, so frames get function names from their symbol tables but no file and line (archive with 'Debug Information Format: DWARF with dSYM File', or download the dSYMs from App Store Connect)"
    }

    /// Each candidate's slices; a file that is no debug file is skipped (counted) or, with
    /// `quietIfForeign` false, an error.
    static func scan(
        _ candidates: [Candidate], quietIfForeign: Bool, failures: inout Failures<some TextOutputStream>
    ) -> Gathered {
        var gathered = Gathered()
        for var candidate in candidates {
            let scan = BuildSymbolizer.debugFiles(in: candidate.source, quietIfForeign: quietIfForeign)
            for problem in scan.problems { failures.fail("\(candidate.displayName): \(problem.message)") }
            if scan.files.isEmpty {
                if scan.problems.isEmpty { gathered.skipped += 1 }
                if candidate.isStaged { FileIO.remove(candidate.source) }
                continue
            }
            candidate.files = scan.files
            gathered.candidates.append(candidate)
        }
        return gathered
    }

    enum Placement {
        /// The line that says so on stdout.
        case placed(String)
        case unchanged(String)
        /// Not placed: the store's file for these UUIDs has DWARF, this one has none.
        case kept(String)
        case notPlaced
    }

    /// The files of one build folder that `dsyms import` placed (`UUID...-image`), by UUID.
    struct BuildFolderFiles {
        var byUUID: [String: [DebugFileInfo]] = [:]

        init(folder: String) {
            for file in BuildSymbolizer.debugFiles(in: folder, quietIfForeign: true).files {
                for uuid in file.uuids { byUUID[uuid, default: []].append(file) }
            }
        }

        mutating func replace(_ uuids: [String], with files: [DebugFileInfo], removing removed: Set<String>) {
            for uuid in uuids { byUUID[uuid] = (byUUID[uuid] ?? []).filter { !removed.contains($0.path) } }
            for file in files {
                for uuid in file.uuids where !(byUUID[uuid] ?? []).contains(file) { byUUID[uuid, default: []].append(file) }
            }
        }
    }

    /// Puts one candidate's debug files under its build's folder by the store's rules.
    static func importCandidate(
        _ candidate: Candidate, options: Options, root: String, folders: inout [String: BuildFolderFiles],
        failures: inout Failures<some TextOutputStream>
    ) -> Placement {
        let uuids = candidate.uuids
        let archs = candidate.files.map(\.arch).joined(separator: ",")
        guard let build = options.build ?? firstBuild(of: candidate, failures: &failures) else { return .notPlaced }
        let folder = (root as NSString).appendingPathComponent(build)
        do {
            try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        } catch {
            failures.fail("\(candidate.displayName): cannot create \(folder): \(error.localizedDescription)")
            return .notPlaced
        }
        var present = folders[build] ?? BuildFolderFiles(folder: folder)
        defer { folders[build] = present }
        let image = plainName(candidate.imageName)
        let destination = (folder as NSString).appendingPathComponent(uuids.joined(separator: "_") + "-" + image)
        let describe = "\(image) \(uuids.joined(separator: " ")) \(archs)"
        if FileManager.default.contentsEqual(atPath: destination, andPath: candidate.source) {
            return .unchanged("unchanged \(describe) \(destination)\n")
        }
        // A file without DWARF never replaces one with it: every UUID already answered with DWARF.
        let existing = uuids.map { present.byUUID[$0] ?? [] }
        if !candidate.hasDebugInfo, !existing.isEmpty, existing.allSatisfy({ $0.contains(where: \.hasDebugInfo) }) {
            let kept = Set(existing.flatMap { $0.filter(\.hasDebugInfo).map(\.path) }).sorted()
            return .kept("kept \(describe) \(kept.joined(separator: " ")) (it has DWARF; \(candidate.displayName) has none)\n")
        }
        if let problem = place(candidate, at: destination) {
            failures.fail("\(candidate.displayName): \(problem)")
            return .notPlaced
        }
        // One entry per UUID: files this import placed before under another name for the same UUIDs
        // go, unless they have DWARF and this one has none (a fat binary beside a thin dSYM).
        var removed: Set<String> = []
        for file in existing.joined() where file.path != destination && isPlacedByImport(file.path, folder: folder) {
            guard Set(file.uuids).isSubset(of: Set(uuids)), candidate.hasDebugInfo || !file.hasDebugInfo else { continue }
            if FileIO.remove(file.path) { removed.insert(file.path) }
        }
        present.replace(
            uuids,
            with: candidate.files.map {
                var placed = $0
                placed.path = destination
                return placed
            }, removing: removed)
        return .placed("imported \(describe) \(destination)\n")
    }

    /// The build a candidate goes to: the first of its hints, which must be a build number.
    static func firstBuild(of candidate: Candidate, failures: inout Failures<some TextOutputStream>) -> String? {
        let uuids = candidate.uuids.joined(separator: ", ")
        guard let hint = candidate.buildHints.first else {
            failures.fail(
                "\(candidate.displayName) (\(uuids)): no build number (no --build, and no CFBundleVersion in an Info.plist around it); give --build"
            )
            return nil
        }
        guard let build = StoreBuild.folderName(fromVersion: hint) else {
            failures.fail(
                "\(candidate.displayName) (\(uuids)): its Info.plist's CFBundleVersion \(InputText.quoted(hint)) \(StoreBuild.refusal(of: hint)); not imported; give --build"
            )
            return nil
        }
        return build
    }

    /// A file directly in the build folder under the name `dsyms import` gives (not a user's own
    /// `.dSYM` bundle copied in by hand, which is never removed).
    static func isPlacedByImport(_ path: String, folder: String) -> Bool {
        (path as NSString).deletingLastPathComponent == folder
            && DebugFileStore.isImportedName((path as NSString).lastPathComponent)
    }

    /// Letters, digits and `._+-` of a file name; anything else becomes `_`.
    static func plainName(_ name: String) -> String {
        let kept = name.unicodeScalars.map { scalar -> Character in
            scalar.isASCII && (CharacterSet.alphanumerics.contains(scalar) || "._+-".unicodeScalars.contains(scalar)) ? Character(scalar) : "_"
        }
        let text = String(kept)
        return text.isEmpty || text.hasPrefix(".") ? "debugfile" + text : text
    }

    /// Writes the file under a temporary name beside `destination` and renames it into place.
    static func place(_ candidate: Candidate, at destination: String) -> String? {
        let temporary = destination + StoreTemporaryFiles.suffix(for: Processes.currentID)
        TemporaryFiles.register(temporary)
        defer { TemporaryFiles.unregister(temporary) }
        FileIO.remove(temporary)
        do {
            if candidate.isStaged {
                if let failure = FileIO.rename(candidate.source, to: temporary, retryOnInterrupt: false) {
                    return "cannot move into place: \(failure.text)"
                }
            } else {
                try FileManager.default.copyItem(atPath: candidate.source, toPath: temporary)
            }
        } catch {
            FileIO.remove(temporary)
            return "cannot copy: \(error.localizedDescription)"
        }
        if let failure = FileIO.rename(temporary, to: destination, retryOnInterrupt: false) {
            FileIO.remove(temporary)
            return "cannot rename into place: \(failure.text)"
        }
        return nil
    }
}
