import Foundation
import SystemIO

/// The store written in debuginfod's layout, `DIR/buildid/<32 lower-case hex digits>/debuginfo`,
/// for a static server or a bucket (docs/symbolication.md, "Symbol servers"). Each UUID's file is
/// the one the store answers it with; a fat file's slice is written alone, so each file holds the
/// UUID it is named for. Written under a temporary name and renamed; a file already holding the
/// same bytes is left as it is, so exporting again changes nothing.
public enum StoreExport {
    /// What an export did: one line per UUID written, how many were already there, what failed.
    public struct Outcome: Sendable {
        public var written: [(uuid: String, path: String)] = []
        public var unchanged = 0
        public var problems: [String] = []
    }

    public static func debuginfod(store: DebugFileStore, build: String?, to folder: String) -> Outcome {
        var outcome = Outcome()
        for (uuid, path) in store.answeringFiles(build: build) {
            let target = ((folder as NSString).appendingPathComponent("buildid/" + SymbolServerNaming.buildID(uuid)) as NSString)
                .appendingPathComponent("debuginfo")
            do {
                let mapped = try MappedFile(path: path)
                let range = try sliceRange(of: uuid, in: mapped, path: path)
                let bytes = UnsafeRawBufferPointer(rebasing: mapped.bytes[range])
                if let existing = FileManager.default.contents(atPath: target), existing.elementsEqual(bytes) {
                    outcome.unchanged += 1
                    continue
                }
                if let problem = write(bytes, to: target) {
                    outcome.problems.append(problem)
                } else {
                    outcome.written.append((uuid, target))
                }
            } catch {
                outcome.problems.append("\(error)")
            }
        }
        return outcome
    }

    /// The bytes of the file that hold `uuid`: its slice of a fat Mach-O file, else all of it.
    static func sliceRange(of uuid: String, in mapped: MappedFile, path: String) throws(SymbolizeError) -> Range<Int> {
        let head = mapped.bytes.prefix(4)
        guard head.count == 4, head.elementsEqual([0xca, 0xfe, 0xba, 0xbe]) || head.elementsEqual([0xca, 0xfe, 0xba, 0xbf]) else {
            return 0..<mapped.bytes.count
        }
        for slice in try MachOReader.slices(of: mapped.view) where slice.uuid.flatMap(UUIDText.normalized) == uuid {
            return slice.sliceOffset..<(slice.sliceOffset + slice.sliceSize)
        }
        throw SymbolizeError.fileSystem(path: path, "no slice holds \(uuid) (the file changed since the store read it)")
    }

    /// Writes `bytes` whole at `path` through a temporary file beside it, or says why not.
    static func write(_ bytes: UnsafeRawBufferPointer, to path: String) -> String? {
        if let failure = FileIO.makeFolders((path as NSString).deletingLastPathComponent) {
            return "\((path as NSString).deletingLastPathComponent): cannot create: \(failure.text)"
        }
        let temporary = path + StoreTemporaryFiles.suffix(for: Processes.currentID)
        TemporaryFiles.register(temporary)
        defer { TemporaryFiles.unregister(temporary) }
        FileIO.remove(temporary)
        do {
            let descriptor = try FileIO.createNew(temporary, mode: 0o644)
            defer { FileIO.close(descriptor) }
            try FileIO.writeAll(descriptor, bytes, path: temporary)
        } catch {
            FileIO.remove(temporary)
            return error.description
        }
        if let failure = FileIO.rename(temporary, to: path, retryOnInterrupt: false) {
            FileIO.remove(temporary)
            return "\(path): cannot rename into place: \(failure.text)"
        }
        return nil
    }
}

/// debuginfod's name of a UUID, shared by the export and the fetcher.
public enum SymbolServerNaming {
    /// 32 lower-case hex digits, no dashes.
    public static func buildID(_ uuid: String) -> String {
        uuid.lowercased().filter { $0 != "-" }
    }
}
