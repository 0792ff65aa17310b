internal import CArchive
internal import CLazyLibraries
import Foundation
import SystemIO

/// `dsyms import` of `.zip` files (App Store Connect's "Download dSYMs", Xcode Organizer's, a
/// zipped `.xcarchive`), read with libarchive (no `unzip` process). An entry that would leave the
/// folder it is unpacked into (an absolute path, a `..` component) or that is a link is refused and
/// named; so is a zip that expands past `ZipLimits` (a zip bomb), before it fills the disk.
extension DsymsImport {
    static func isZip(_ path: String) -> Bool { ZipInputs.isZip(path) }

    struct ZipError: Error, CustomStringConvertible { var description: String }

    /// How far a zip may expand (docs/symbolication.md, "Limits"). The declared sizes in a zip's
    /// headers can lie, so the bytes are counted as they are written.
    enum ZipLimits {
        /// One entry: the largest dSYM DWARF files of big apps are 2–3 GB.
        static let largestEntry: Int64 = 4 << 30
        /// The whole zip may expand to this many times its own size, once past `ratioFloor`:
        /// DWARF compresses 3 to 6 times, a megabyte of zeros a thousand times.
        static let expansionRatio: Int64 = 100
        static let ratioFloor: Int64 = 64 << 20
    }

    /// What `unpackZip` found: the staged debug files, the refused entries, and the archives in it
    /// that hold no dSYM.
    struct UnpackedZip {
        var candidates: [Candidate] = []
        var refused: [String] = []
        var archivesWithoutDSYMs: [String] = []
    }

    /// Unpacks the files of a zip that can be debug files into `staging` (each under a fresh name)
    /// and collects the `Info.plist`s that say their build. Entries that are links or would leave
    /// the folder they are unpacked into are refused (named in `refused`), and never written.
    static func unpackZip(_ path: String, into staging: String) throws -> UnpackedZip {
        if let failure = yui_load_libarchive() {
            throw ZipError(description: "cannot load libarchive (apt install libarchive13): \(String(cString: failure))")
        }
        guard let archive = archive_read_new() else { throw ZipError(description: "libarchive is out of memory") }
        defer { archive_read_free(archive) }
        archive_read_support_format_zip(archive)
        guard archive_read_open_filename(archive, path, 1 << 16) == ARCHIVE_OK else {
            throw ZipError(description: "not a zip libarchive can read (\(String(cString: archive_error_string(archive))))")
        }
        var zipSize: Int64 = 0
        if case .success(let status) = FileIO.status(of: path, retryOnInterrupt: false) { zipSize = status.size }
        let mostBytes = max(ZipLimits.ratioFloor, zipSize.multipliedReportingOverflow(by: ZipLimits.expansionRatio).partialValue)
        var written: Int64 = 0
        var unpacked = UnpackedZip()
        var staged: [(file: String, entry: String)] = []
        var plists: [String: Data] = [:]
        var archives: Set<String> = []
        var archivesWithDSYMs: Set<String> = []
        var entry: OpaquePointer?
        var count = 0
        while true {
            let status = archive_read_next_header(archive, &entry)
            if status == ARCHIVE_EOF { break }
            guard status == ARCHIVE_OK || status == ARCHIVE_WARN, let entry else {
                throw ZipError(description: "cannot read entry \(count + 1): \(String(cString: archive_error_string(archive)))")
            }
            count += 1
            let name = archive_entry_pathname(entry).map { String(cString: $0) } ?? ""
            let type = archive_entry_filetype(entry)
            let components = name.split(separator: "/", omittingEmptySubsequences: false)
            if name.hasPrefix("/") || components.contains("..") {
                unpacked.refused.append("'\(name)': its path leaves the folder it is unpacked into; not written")
                continue
            }
            if type == 0o120000 || archive_entry_hardlink(entry) != nil {  // AE_IFLNK
                unpacked.refused.append("'\(name)': a link; not followed, not written")
                continue
            }
            if let archiveEnd = components.firstIndex(where: { $0.hasSuffix(".xcarchive") }) {
                let archiveName = components[...archiveEnd].joined(separator: "/")
                archives.insert(archiveName)
                if components.count > archiveEnd + 1, components[archiveEnd + 1] == "dSYMs", name.contains(".dSYM/Contents/Resources/DWARF/") {
                    archivesWithDSYMs.insert(archiveName)
                }
            }
            guard type == 0o100000 else { continue }  // AE_IFREG
            if name.hasSuffix("Info.plist") {
                switch try readEntry(archive, atMost: largestPropertyList) {
                case .some(let data): plists[name] = data
                case .none: unpacked.refused.append("'\(name)': larger than \(largestPropertyList >> 20) MB, not read as an Info.plist")
                }
                continue
            }
            guard Self.mayBeDebugFile(entryName: name) else { continue }
            if archive_entry_size(entry) > ZipLimits.largestEntry {
                unpacked.refused.append(
                    "'\(name)': declares \(archive_entry_size(entry)) bytes, more than the \(ZipLimits.largestEntry >> 30) GB an entry may have; not written"
                )
                continue
            }
            let file = (staging as NSString).appendingPathComponent("entry-\(count)")
            do {
                try extractEntry(archive, to: file, writtenSoFar: &written, mostBytes: mostBytes)
            } catch let limit as LimitReached {
                // Refused whole: nothing it staged is placed, and reading stops here.
                FileIO.remove(file)
                for (stagedFile, _) in staged { FileIO.remove(stagedFile) }
                unpacked.refused.append("'\(name)': \(limit.description); nothing of this zip was imported")
                return UnpackedZip(candidates: [], refused: unpacked.refused, archivesWithoutDSYMs: [])
            }
            staged.append((file, name))
        }
        unpacked.archivesWithoutDSYMs = archives.subtracting(archivesWithDSYMs).sorted()
        unpacked.candidates = staged.map { file, name -> Candidate in
            Candidate(
                source: file, displayName: "\(path) (\(name))", imageName: String(name.split(separator: "/").last ?? "debugfile"),
                buildHints: buildHints(ofEntry: name, plists: plists), isStaged: true)
        }
        return unpacked
    }

    /// A zip entry worth unpacking: a dSYM's DWARF file, a `.dwarf` file, or a file inside an app,
    /// extension or framework bundle named without an extension (`Splash`, `Widget`) or as a
    /// `.dylib` (`Splash.debug.dylib`). Icons, `Assets.car`, nibs, signatures are never written.
    static func mayBeDebugFile(entryName name: String) -> Bool {
        if name.contains(".dSYM/Contents/Resources/DWARF/") || name.hasSuffix(".dwarf") { return true }
        let components = name.split(separator: "/")
        guard let last = components.last, components.count >= 2,
            components.dropLast().contains(where: { $0.hasSuffix(".app") || $0.hasSuffix(".appex") || $0.hasSuffix(".framework") }),
            !components.contains("_CodeSignature")
        else { return false }
        return !last.contains(".") || last.hasSuffix(".dylib")
    }

    /// The build hints of an entry, from the entry's own path: `X.xcarchive/Info.plist`
    /// (ApplicationProperties), then the outermost app, extension or framework bundle's
    /// `Info.plist`, then `Y.dSYM/Contents/Info.plist`, as `buildHints(around:)` on disk.
    static func buildHints(ofEntry name: String, plists: [String: Data]) -> [String] {
        var prefix = ""
        var archiveHints: [String] = []
        var appHints: [String] = []
        var bundleHints: [String] = []
        for component in name.split(separator: "/").dropLast() {
            prefix += component
            if component.hasSuffix(".xcarchive"), let data = plists[prefix + "/Info.plist"], let version = archiveBuild(data) {
                archiveHints.append(version)
            }
            if component.hasSuffix(".app") || component.hasSuffix(".appex") || component.hasSuffix(".framework"),
                let data = plists[prefix + "/Info.plist"] ?? plists[prefix + "/Contents/Info.plist"], let version = bundleBuild(data)
            {
                appHints.append(version)
            }
            if component.hasSuffix(".dSYM"), let data = plists[prefix + "/Contents/Info.plist"], let version = bundleBuild(data) {
                bundleHints.append(version)
            }
            prefix += "/"
        }
        return archiveHints + appHints + bundleHints
    }

    /// The entry's bytes, or nil when it has more than `atMost` (reading stops there).
    private static func readEntry(_ archive: OpaquePointer, atMost: Int) throws -> Data? {
        var data = Data()
        var buffer = [UInt8](repeating: 0, count: 1 << 16)
        while true {
            let got = archive_read_data(archive, &buffer, buffer.count)
            if got < 0 { throw ZipError(description: String(cString: archive_error_string(archive))) }
            if got == 0 { return data }
            guard data.count + got <= atMost else { return nil }
            data.append(contentsOf: buffer[0..<got])
        }
    }

    /// A limit of `ZipLimits` reached while unpacking.
    struct LimitReached: Error, CustomStringConvertible { var description: String }

    /// Writes the entry's bytes to `file`, counting them against the entry's and the zip's limits.
    private static func extractEntry(_ archive: OpaquePointer, to file: String, writtenSoFar: inout Int64, mostBytes: Int64) throws {
        let descriptor: Int32
        do {
            descriptor = try FileIO.createNew(file, mode: 0o644)
        } catch {
            throw ZipError(description: "cannot create \(file): \(error.reason)")
        }
        defer { FileIO.close(descriptor) }
        var buffer = [UInt8](repeating: 0, count: 1 << 16)
        var entryBytes: Int64 = 0
        while true {
            let got = buffer.withUnsafeMutableBytes { archive_read_data(archive, $0.baseAddress, $0.count) }
            if got < 0 { throw ZipError(description: "cannot unpack an entry: \(String(cString: archive_error_string(archive)))") }
            if got == 0 { return }
            entryBytes += Int64(got)
            writtenSoFar += Int64(got)
            if entryBytes > ZipLimits.largestEntry {
                throw LimitReached(description: "expands past \(ZipLimits.largestEntry >> 30) GB, the most an entry may have")
            }
            if writtenSoFar > mostBytes {
                throw LimitReached(
                    description:
                        "the zip expands past \(mostBytes >> 20) MB (\(ZipLimits.expansionRatio) times its size, at least \(ZipLimits.ratioFloor >> 20) MB): refused as a zip bomb"
                )
            }
            try buffer.withUnsafeBytes { bytes in
                try FileIO.writeAll(descriptor, UnsafeRawBufferPointer(rebasing: bytes[0..<got]), path: file)
            }
        }
    }
}
