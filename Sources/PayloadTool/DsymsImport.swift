import Foundation
import StackSymbolize
import SystemIO

/// `payload-tool dsyms import [--dsyms ROOT] [--build B] PATH...`: debug files from `.dSYM` bundles,
/// folders, `.xcarchive` bundles and `.zip` files (App Store Connect's and Xcode Organizer's dSYM
/// downloads), placed under `<ROOT>/<build>/` and named by their UUIDs.
///
/// Zips are read with libarchive (no `unzip` process). An entry that would leave the folder it is
/// unpacked into (an absolute path, a `..` component) or that is a link is refused and named; no
/// entry's path is ever used to form a destination, only the file's UUIDs and its plain name.
enum DsymsImport {
    static let build = CommandOption(
        "--build", "BUILD", parser: .buildFolderName,
        help: [
            "The build the files belong to. Without it: the archive's Info.plist",
            "(ApplicationProperties.CFBundleVersion), else the dSYM bundle's",
            "Info.plist (CFBundleVersion).",
        ])
    static let path = PositionalArgument(
        placeholder: "PATH",
        help: ["A .dSYM bundle, a folder, an .xcarchive bundle, a .zip of any of", "these, or one debug file."])

    /// `[--dsyms ROOT] [--build BUILD] PATH...`, also shown by `dsyms --help`.
    static let usage: [UsageItem] = [
        .optional(DebugFileArguments.dsyms.declaration), .optional(build.declaration), .positional(path, repeating: true),
    ]

    static let description = CommandDescription(
        name: "dsyms import",
        overview: """
            OVERVIEW: Put debug files where symbolicate, top and dsyms look for them.

            Each debug file (a Mach-O file with a UUID: a dSYM's DWARF file, or a binary) found in PATH is
            copied to <ROOT>/<build>/, named by its UUIDs and image name, written whole or not at all.
            Importing the same files again changes nothing.
            """,
        usage: [usage], arguments: [path], options: [DebugFileArguments.dsyms.declaration, build.declaration],
        epilogue: """
            Prints one line per debug file ('imported' or 'unchanged'). Exit status: 0 when every file was
            placed, 1 when anything was refused or failed (the rest are still placed), 64 on a usage error.
            """)

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

    /// A debug file ready to be placed: where its bytes are now, and what decides its build.
    struct Candidate {
        var source: String
        var displayName: String
        /// The file's own name (a dSYM's DWARF file is named after its image).
        var imageName: String
        /// `CFBundleVersion`s that could name the build, most specific first.
        var buildHints: [String]
        /// True for a staged copy (from a zip) that is moved, not copied, into place.
        var isStaged: Bool
    }

    /// What `fail` has reported: errors go to stderr as they happen, and any makes the run exit 1.
    struct Failures<Errors: TextOutputStream> {
        var stderr: Errors
        private(set) var any = false

        mutating func fail(_ message: String) {
            stderr.write("error: \(message)\n")
            any = true
        }
    }

    static func importFiles(
        _ options: Options, stdout: inout some TextOutputStream, stderr: inout some TextOutputStream
    ) -> Int32 {
        // Zips are unpacked into a staging folder beside the builds, so placing a file is a rename.
        let rootFolder: String
        do {
            rootFolder =
                (try BuildSymbolizer.buildFolder(root: options.dsymsRoot, build: "staging") as NSString).deletingLastPathComponent
            try FileManager.default.createDirectory(atPath: rootFolder, withIntermediateDirectories: true)
        } catch {
            stderr.write("error: \(error)\n")
            return PayloadTool.exitFailure
        }
        let staging = (rootFolder as NSString).appendingPathComponent(".import-\(getpid())")
        defer { try? FileManager.default.removeItem(atPath: staging) }

        var failures = Failures(stderr: stderr)
        let candidates = gatherCandidates(options.paths, staging: staging, failures: &failures)
        var placed = 0
        var unchanged = 0
        for candidate in candidates {
            switch importCandidate(candidate, options: options, failures: &failures) {
            case .placed(let line):
                stdout.write(line)
                placed += 1
            case .unchanged(let line):
                stdout.write(line)
                unchanged += 1
            case .notPlaced: break
            }
        }
        stderr = failures.stderr
        stdout.write("\(placed) imported, \(unchanged) unchanged\n")
        return failures.any ? PayloadTool.exitFailure : PayloadTool.exitSuccess
    }

    /// The debug files in `paths`: zips unpacked into `staging`, folders and bundles walked.
    private static func gatherCandidates(
        _ paths: [String], staging: String, failures: inout Failures<some TextOutputStream>
    ) -> [Candidate] {
        var candidates: [Candidate] = []
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
                    candidates += unpacked.candidates
                } catch {
                    failures.fail("\(path): \(error)")
                }
                continue
            }
            candidates += filesOnDisk(path)
        }
        return candidates
    }

    private enum Placement {
        /// The line that says so on stdout.
        case placed(String)
        case unchanged(String)
        case notPlaced
    }

    /// Puts one candidate's debug files under its build's folder, unless the same bytes are there.
    private static func importCandidate(
        _ candidate: Candidate, options: Options, failures: inout Failures<some TextOutputStream>
    ) -> Placement {
        let scan = BuildSymbolizer.debugFiles(in: candidate.source)
        for problem in scan.problems { failures.fail("\(candidate.displayName): \(problem.message)") }
        guard !scan.files.isEmpty else { return .notPlaced }
        let uuids = scan.files.flatMap(\.uuids)
        let archs = scan.files.map(\.arch).joined(separator: ",")
        guard let build = options.build ?? candidate.buildHints.first else {
            failures.fail(
                "\(candidate.displayName) (\(uuids.joined(separator: ", "))): no build number (no --build, and no CFBundleVersion in an Info.plist beside it)"
            )
            return .notPlaced
        }
        let folder: String
        do {
            folder = try BuildSymbolizer.buildFolder(root: options.dsymsRoot, build: build)
            try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        } catch let error as SymbolizeError {
            failures.fail("\(candidate.displayName): the build '\(build)' from its Info.plist is not a folder name: \(error.message)")
            return .notPlaced
        } catch {
            failures.fail("\(candidate.displayName): \(error)")
            return .notPlaced
        }
        let image = plainName(candidate.imageName)
        let destination = (folder as NSString).appendingPathComponent(uuids.joined(separator: "_") + "-" + image)
        if FileManager.default.contentsEqual(atPath: destination, andPath: candidate.source) {
            return .unchanged("unchanged \(image) \(uuids.joined(separator: " ")) \(archs) \(destination)\n")
        }
        if let problem = place(candidate, at: destination) {
            failures.fail("\(candidate.displayName): \(problem)")
            return .notPlaced
        }
        return .placed("imported \(image) \(uuids.joined(separator: " ")) \(archs) \(destination)\n")
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
        let temporary = destination + ".tmp-\(getpid())"
        TemporaryFiles.register(temporary)
        defer { TemporaryFiles.unregister(temporary) }
        unlink(temporary)
        do {
            if candidate.isStaged {
                if case .failure(let failure) = SystemCall.valueOrErrno(retryOnInterrupt: false, { rename(candidate.source, temporary) }) {
                    return "cannot move into place: \(failure.text)"
                }
            } else {
                try FileManager.default.copyItem(atPath: candidate.source, toPath: temporary)
            }
        } catch {
            unlink(temporary)
            return "cannot copy: \(error.localizedDescription)"
        }
        if case .failure(let failure) = SystemCall.valueOrErrno(retryOnInterrupt: false, { rename(temporary, destination) }) {
            unlink(temporary)
            return "cannot rename into place: \(failure.text)"
        }
        return nil
    }

    // MARK: Folders, bundles and archives on disk

    /// Every regular file below `path` (or `path` itself), each with the build numbers of the
    /// `.xcarchive` and `.dSYM` bundles around it.
    static func filesOnDisk(_ path: String) -> [Candidate] {
        var isDirectory: ObjCBool = false
        _ = FileManager.default.fileExists(atPath: path, isDirectory: &isDirectory)  // a missing path is no folder
        var files: [String] = []
        if isDirectory.boolValue {
            let enumerator = FileManager.default.enumerator(atPath: path)
            while let relative = enumerator?.nextObject() as? String {
                let full = (path as NSString).appendingPathComponent(relative)
                var status = stat()
                if lstat(full, &status) == 0, (status.st_mode & S_IFMT) == S_IFREG, !relative.hasSuffix(".plist") { files.append(full) }
            }
        } else {
            files = [path]
        }
        return files.sorted().map { file in
            Candidate(
                source: file, displayName: file, imageName: (file as NSString).lastPathComponent, buildHints: buildHints(around: file),
                isStaged: false)
        }
    }

    /// `CFBundleVersion`s of the bundles holding `file`: an `.xcarchive`'s `ApplicationProperties`
    /// first (the app's build), then the `.dSYM` bundle's own.
    static func buildHints(around file: String) -> [String] {
        var archiveHints: [String] = []
        var bundleHints: [String] = []
        var folder = (file as NSString).deletingLastPathComponent
        while folder.count > 1 {
            if folder.hasSuffix(".xcarchive"),
                let data = FileManager.default.contents(atPath: (folder as NSString).appendingPathComponent("Info.plist")),
                let version = archiveBuild(data)
            {
                archiveHints.append(version)
            }
            if folder.hasSuffix(".dSYM"),
                let data = FileManager.default.contents(atPath: (folder as NSString).appendingPathComponent("Contents/Info.plist")),
                let version = bundleBuild(data)
            {
                bundleHints.append(version)
            }
            folder = (folder as NSString).deletingLastPathComponent
        }
        return archiveHints + bundleHints
    }

    static func plist(_ data: Data) -> [String: Any]? {
        (try? PropertyListSerialization.propertyList(from: data, options: [], format: nil)) as? [String: Any]
    }

    static func archiveBuild(_ data: Data) -> String? {
        (plist(data)?["ApplicationProperties"] as? [String: Any])?["CFBundleVersion"] as? String
    }

    static func bundleBuild(_ data: Data) -> String? {
        plist(data)?["CFBundleVersion"] as? String
    }
}
