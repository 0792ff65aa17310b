internal import CArchive
internal import CLazyLibraries
import Foundation
import PayloadDecode
import SystemIO

/// The inputs inside a `.zip` (App Store Connect's TestFlight download: a crash log beside
/// `feedback.json`; a zipped folder of dumps), read entry by entry with libarchive into memory, as
/// `dsyms import` reads zips: links and folders are passed over, and the limits below stop a zip
/// bomb before it fills memory (docs/command-line.md, "Inputs").
enum ZipInputs {
    enum Limits {
        /// One entry: the largest document a command reads whole (`ConversionOptions.maxFileBytes`).
        static var largestEntry: Int { ConversionOptions().maxFileBytes }
        /// The whole zip may expand as `dsyms import` lets a zip expand.
        static let expansionRatio = DsymsImport.ZipLimits.expansionRatio
        static let ratioFloor = DsymsImport.ZipLimits.ratioFloor
        /// Entries read at most: a million empty entries is no one's crash log.
        static let entries = 100_000
    }

    /// Whether the file at `path` starts as a zip does (`PK\3\4`, or `PK\5\6` for an empty one).
    static func isZip(_ path: String) -> Bool {
        let head = FileIO.head(of: path, count: 4)
        return head == [0x50, 0x4B, 0x03, 0x04] || head == [0x50, 0x4B, 0x05, 0x06]
    }

    /// Hands each regular entry's name and bytes to `body`, in the zip's order. Problems (an entry
    /// too large, a zip that expands past the limits, one libarchive cannot read) go to `problem`
    /// as errors; false when there was one.
    static func forEachEntry(
        _ path: String, problem: (String) -> Void, _ body: (String, UnsafeRawBufferPointer) -> Void
    ) -> Bool {
        if let failure = yui_load_libarchive() {
            problem("cannot load libarchive (apt install libarchive13): \(String(cString: failure))")
            return false
        }
        guard let archive = archive_read_new() else {
            problem("libarchive is out of memory")
            return false
        }
        defer { archive_read_free(archive) }
        archive_read_support_format_zip(archive)
        guard archive_read_open_filename(archive, path, 1 << 16) == ARCHIVE_OK else {
            problem("not a zip libarchive can read (\(String(cString: archive_error_string(archive))))")
            return false
        }
        var zipSize: Int64 = 0
        if case .success(let status) = FileIO.status(of: path, retryOnInterrupt: false) { zipSize = status.size }
        let mostBytes = max(Limits.ratioFloor, zipSize.multipliedReportingOverflow(by: Limits.expansionRatio).partialValue)
        var expanded: Int64 = 0
        var count = 0
        var ok = true
        var entry: OpaquePointer?
        var buffer: [UInt8] = []
        while true {
            let status = archive_read_next_header(archive, &entry)
            if status == ARCHIVE_EOF { return ok }
            guard status == ARCHIVE_OK || status == ARCHIVE_WARN, let entry else {
                problem("cannot read entry \(count + 1): \(String(cString: archive_error_string(archive)))")
                return false
            }
            count += 1
            if count > Limits.entries {
                problem("more than \(Limits.entries) entries: refused (the rest of the zip is not read)")
                return false
            }
            let name = archive_entry_pathname(entry).map { String(cString: $0) } ?? ""
            guard archive_entry_filetype(entry) == 0o100000, archive_entry_hardlink(entry) == nil else { continue }  // AE_IFREG
            if archive_entry_size(entry) > Int64(Limits.largestEntry) {
                problem(
                    "'\(name)': more than the \(Limits.largestEntry >> 20) MB an entry may have (it declares \(archive_entry_size(entry)) bytes); not read"
                )
                ok = false
                continue
            }
            buffer.removeAll(keepingCapacity: true)
            var chunk = [UInt8](repeating: 0, count: 1 << 16)
            while true {
                let got = chunk.withUnsafeMutableBytes { archive_read_data(archive, $0.baseAddress, $0.count) }
                if got < 0 {
                    problem("'\(name)': cannot unpack: \(String(cString: archive_error_string(archive)))")
                    return false
                }
                if got == 0 { break }
                expanded += Int64(got)
                if expanded > mostBytes {
                    problem(
                        "expands past \(mostBytes >> 20) MB (\(Limits.expansionRatio) times its size, at least \(Limits.ratioFloor >> 20) MB): refused as a zip bomb (the rest of the zip is not read)"
                    )
                    return false
                }
                if buffer.count + got > Limits.largestEntry {
                    problem("'\(name)': more than the \(Limits.largestEntry >> 20) MB an entry may have (it expands past them); not read")
                    return false
                }
                buffer.append(contentsOf: chunk[0..<got])
            }
            buffer.withUnsafeBytes { body(name, $0) }
        }
    }
}
