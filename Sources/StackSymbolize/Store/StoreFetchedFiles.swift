import Foundation
import SystemIO

/// Where files fetched from symbol servers go in the store, and the store's own records of
/// fetching (docs/symbolication.md, "Symbol servers"):
///
/// - a fetched file is placed as `dsyms import` places one, `<root>/<build>/<UUID>-<image>`, after
///   it was checked (it parses and holds that UUID), by a rename, so no run ever sees half of it;
///   only a UUID the store has no file for is fetched, so no file (with DWARF or without) is
///   replaced;
/// - `<root>/.locks/fetch-<UUID>.lock` is held while one UUID is fetched: runs at once fetch each
///   UUID once, the others wait and take the placed file;
/// - `<root>/.symbol-server-misses/<UUID>` remembers that every server answered 404 (the servers,
///   one a line), believed for `SymbolServerSettings.missMemorySeconds`.
public enum StoreFetchedFiles {
    /// The name a fetched file gets in its build's folder.
    public static func destination(root: String, build: String, uuid: String, image: String?) -> String {
        let folder = (root as NSString).appendingPathComponent(build)
        return (folder as NSString).appendingPathComponent(uuid + "-" + plainName(image ?? "debugfile"))
    }

    /// A file of the build's folder named for `uuid` (placed by an import or a fetch, maybe by
    /// another run a moment ago), if one is there.
    public static func placedFile(root: String, build: String, uuid: String) -> String? {
        let folder = (root as NSString).appendingPathComponent(build)
        guard let names = try? FileManager.default.contentsOfDirectory(atPath: folder) else { return nil }
        let name = names.first { name in
            name.hasPrefix(uuid) && !name.contains(".tmp-") && DebugFileStore.isImportedName(name)
        }
        return name.map { (folder as NSString).appendingPathComponent($0) }
    }

    /// The lock held while `uuid` is fetched.
    public static func lockPath(root: String, uuid: String) -> String {
        ((root as NSString).appendingPathComponent(".locks") as NSString).appendingPathComponent("fetch-\(uuid).lock")
    }

    /// The record of a UUID no server had.
    public static func missPath(root: String, uuid: String) -> String {
        ((root as NSString).appendingPathComponent(".symbol-server-misses") as NSString).appendingPathComponent(uuid)
    }

    /// Why the file at `path` cannot stand for `uuid` (not Mach-O or ELF, unreadable, another UUID),
    /// or nil when it can.
    public static func refusal(of path: String, uuid: String) -> String? {
        let scan = DebugFileCatalog.scan([path])
        if let problem = scan.problems.first { return "not a debug file (\(problem.message))" }
        guard !scan.files.isEmpty else { return "not a debug file (neither Mach-O nor ELF)" }
        let held = Set(scan.files.flatMap(\.uuids))
        guard held.contains(uuid) else { return "a debug file of another UUID (\(held.sorted().joined(separator: ", ")))" }
        return nil
    }

    /// Letters, digits and `._+-` of a file name; anything else becomes `_` (`dsyms import`'s names).
    public static func plainName(_ name: String) -> String {
        let kept = name.unicodeScalars.map { scalar -> Character in
            scalar.isASCII && (CharacterSet.alphanumerics.contains(scalar) || "._+-".unicodeScalars.contains(scalar)) ? Character(scalar) : "_"
        }
        let text = String(kept)
        return text.isEmpty || text.hasPrefix(".") ? "debugfile" + text : text
    }

    /// Whether every one of `servers` answered 404 for `uuid` within `seconds`.
    public static func isRememberedMiss(root: String, uuid: String, servers: [String], seconds: Double) -> Bool {
        let path = missPath(root: root, uuid: uuid)
        guard case .success(let status) = FileIO.status(of: path, retryOnInterrupt: false), status.kind == .regular,
            Date().timeIntervalSince1970 - Double(status.modifiedSeconds) < seconds,
            let text = try? String(contentsOfFile: path, encoding: .utf8)
        else { return false }
        let listed = Set(text.split(separator: "\n").map(String.init))
        return servers.allSatisfy { listed.contains(SymbolServerNames.key($0)) }
    }

    /// Records that every one of `servers` answered 404 for `uuid` (written whole, or not at all).
    public static func rememberMiss(root: String, uuid: String, servers: [String]) {
        let path = missPath(root: root, uuid: uuid)
        _ = FileIO.makeFolders((path as NSString).deletingLastPathComponent)
        let temporary = path + StoreTemporaryFiles.suffix(for: Processes.currentID) + "-\(UInt32.random(in: 0...UInt32.max))"
        guard let descriptor = try? FileIO.createNew(temporary, mode: 0o644) else { return }
        let text = Array(servers.map { SymbolServerNames.key($0) + "\n" }.joined().utf8)
        var written = true
        text.withUnsafeBytes { bytes in
            do { try FileIO.writeAll(descriptor, bytes, path: temporary) } catch { written = false }
        }
        FileIO.close(descriptor)
        if !written || FileIO.rename(temporary, to: path, retryOnInterrupt: false) != nil { FileIO.remove(temporary) }
    }

    /// Forgets every remembered miss (`--refresh`).
    public static func forgetMisses(root: String) {
        let folder = (root as NSString).appendingPathComponent(".symbol-server-misses")
        for name in (try? FileManager.default.contentsOfDirectory(atPath: folder)) ?? [] {
            FileIO.remove((folder as NSString).appendingPathComponent(name))
        }
    }
}

/// A server as the store's records name it: its URL without a password.
enum SymbolServerNames {
    static func key(_ server: String) -> String {
        guard let scheme = server.range(of: "://") else { return server }
        let rest = server[scheme.upperBound...]
        let authority = rest.prefix { $0 != "/" }
        guard let at = authority.lastIndex(of: "@") else { return server }
        return String(server[..<scheme.upperBound]) + String(rest[rest.index(after: at)...])
    }
}
