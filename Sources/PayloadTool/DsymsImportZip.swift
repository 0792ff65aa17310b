internal import CArchive
internal import CLazyLibraries
import Foundation
import SystemIO

/// `dsyms import` of `.zip` files (App Store Connect's and Xcode Organizer's dSYM downloads), read
/// with libarchive (no `unzip` process). An entry that would leave the folder it is unpacked into
/// (an absolute path, a `..` component) or that is a link is refused and named.
extension DsymsImport {
    static func isZip(_ path: String) -> Bool {
        guard let handle = FileHandle(forReadingAtPath: path) else { return false }
        defer { try? handle.close() }
        let head = handle.readData(ofLength: 4)
        return head == Data([0x50, 0x4B, 0x03, 0x04]) || head == Data([0x50, 0x4B, 0x05, 0x06])
    }

    struct ZipError: Error, CustomStringConvertible { var description: String }

    /// Unpacks the debug files of a zip into `staging` (each under a fresh name) and collects the
    /// `Info.plist`s that say their build. Entries that are links or would leave the folder they
    /// are unpacked into are refused (named in `refused`), and never written.
    static func unpackZip(_ path: String, into staging: String) throws -> (candidates: [Candidate], refused: [String]) {
        if let failure = yui_load_libarchive() {
            throw ZipError(description: "cannot load libarchive (apt install libarchive13): \(String(cString: failure))")
        }
        guard let archive = archive_read_new() else { throw ZipError(description: "libarchive is out of memory") }
        defer { archive_read_free(archive) }
        archive_read_support_format_zip(archive)
        guard archive_read_open_filename(archive, path, 1 << 16) == ARCHIVE_OK else {
            throw ZipError(description: "not a zip libarchive can read (\(String(cString: archive_error_string(archive))))")
        }
        var refused: [String] = []
        var staged: [(file: String, entry: String)] = []
        var plists: [String: Data] = [:]
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
                refused.append("'\(name)': its path leaves the folder it is unpacked into; not written")
                continue
            }
            if type == 0o120000 || archive_entry_hardlink(entry) != nil {  // AE_IFLNK
                refused.append("'\(name)': a link; not followed, not written")
                continue
            }
            guard type == 0o100000 else { continue }  // AE_IFREG
            if name.hasSuffix("Info.plist"), archive_entry_size(entry) < 1 << 20 {
                plists[name] = try readEntry(archive)
                continue
            }
            guard name.contains(".dSYM/Contents/Resources/DWARF/") || name.hasSuffix(".dwarf") else { continue }
            let file = (staging as NSString).appendingPathComponent("entry-\(count)")
            try extractEntry(archive, to: file)
            staged.append((file, name))
        }
        let candidates = staged.map { file, name -> Candidate in
            // The bundles around the entry, from the entry's own path: `X.xcarchive/Info.plist`
            // (ApplicationProperties), then `Y.dSYM/Contents/Info.plist`.
            var hints: [String] = []
            var prefix = ""
            var archiveHints: [String] = []
            var bundleHints: [String] = []
            for component in name.split(separator: "/") {
                prefix += component
                if component.hasSuffix(".xcarchive"), let data = plists[prefix + "/Info.plist"], let version = archiveBuild(data) {
                    archiveHints.append(version)
                }
                if component.hasSuffix(".dSYM"), let data = plists[prefix + "/Contents/Info.plist"], let version = bundleBuild(data) {
                    bundleHints.append(version)
                }
                prefix += "/"
            }
            hints = archiveHints + bundleHints
            return Candidate(
                source: file, displayName: "\(path) (\(name))", imageName: String(name.split(separator: "/").last ?? "debugfile"),
                buildHints: hints, isStaged: true)
        }
        return (candidates, refused)
    }

    private static func readEntry(_ archive: OpaquePointer) throws -> Data {
        var data = Data()
        var buffer = [UInt8](repeating: 0, count: 1 << 16)
        while true {
            let got = archive_read_data(archive, &buffer, buffer.count)
            if got < 0 { throw ZipError(description: String(cString: archive_error_string(archive))) }
            if got == 0 { return data }
            data.append(contentsOf: buffer[0..<got])
        }
    }

    private static func extractEntry(_ archive: OpaquePointer, to file: String) throws {
        let descriptor: Int32
        do {
            descriptor = try FileIO.createNew(file, mode: 0o644)
        } catch {
            throw ZipError(description: "cannot create \(file): \(error.reason)")
        }
        defer { close(descriptor) }
        guard archive_read_data_into_fd(archive, descriptor) == ARCHIVE_OK else {
            throw ZipError(description: "cannot unpack an entry: \(String(cString: archive_error_string(archive)))")
        }
    }
}
