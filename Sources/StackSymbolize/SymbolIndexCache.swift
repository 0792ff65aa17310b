import Foundation
import SystemIO

/// Where indexes live: `<cache>/<UUID>-<size>-<mtime>.yuisym`. A changed debug file has another
/// size or mtime, so its stale index is simply never found again.
enum SymbolIndexCache {
    static func defaultFolder() -> String {
        if let folder = ProcessInfo.processInfo.environment["YUI_SYMBOL_CACHE"], !folder.isEmpty { return folder }
        let base =
            ProcessInfo.processInfo.environment["XDG_CACHE_HOME"].flatMap { $0.isEmpty ? nil : $0 }
            ?? HomeFolder.appending(".cache")
        return (base as NSString).appendingPathComponent("yui-perf/symbol-index")
    }

    static func path(folder: String, for info: DebugFileInfo) -> String? {
        var status = stat()
        guard stat(info.path, &status) == 0, let uuid = info.uuids.first.flatMap(UUIDText.normalized) else { return nil }
        let name = "\(uuid)-\(status.st_size)-\(status.st_mtim.tv_sec).\(status.st_mtim.tv_nsec).yuisym"
        return (folder as NSString).appendingPathComponent(name)
    }

    /// The index for `info`, built from `image()` and stored when absent.
    static func open(folder: String, for info: DebugFileInfo, image: () throws(SymbolizeError) -> DebugImage) throws(SymbolizeError) -> SymbolIndex {
        guard let path = path(folder: folder, for: info) else {
            throw SymbolizeError.fileSystem(path: info.path, "cannot key a symbol index for this file")
        }
        if let index = try? SymbolIndex(path: path) { return index }
        do {
            try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        } catch {
            throw SymbolizeError.fileSystem(path: folder, "cannot create the symbol index folder")
        }
        try SymbolIndexBuilder.build(try image(), to: path)
        return try SymbolIndex(path: path)
    }
}
