import Foundation
import PayloadDecode
import StackSymbolize
import SystemIO

// Folders, bundles and archives on disk: what `dsyms import` finds in a path, and the builds they name.
extension DsymsImport {
    /// Every regular file below `path` (or `path` itself), each with the build numbers of the
    /// bundles around it. Property lists are left out (they are read for the build numbers).
    static func filesOnDisk(_ path: String) -> [Candidate] {
        var isDirectory: ObjCBool = false
        _ = FileManager.default.fileExists(atPath: path, isDirectory: &isDirectory)  // a missing path is no folder
        var files: [String] = []
        if isDirectory.boolValue {
            let enumerator = FileManager.default.enumerator(atPath: path)
            while let relative = enumerator?.nextObject() as? String {
                let full = (path as NSString).appendingPathComponent(relative)
                if case .success(let status) = FileIO.linkStatus(of: full, retryOnInterrupt: false), status.kind == .regular,
                    !relative.hasSuffix(".plist")
                {
                    files.append(full)
                }
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

    /// The `.xcarchive` bundles at or below `path` that hold no debug file with DWARF in `dSYMs/`.
    static func archivesWithoutDSYMs(in path: String) -> [String] {
        var archives: [String] = []
        if path.hasSuffix(".xcarchive") || path.hasSuffix(".xcarchive/") {
            archives = [path]
        } else if let enumerator = FileManager.default.enumerator(atPath: path) {
            while let relative = enumerator.nextObject() as? String {
                if relative.hasSuffix(".xcarchive") {
                    archives.append((path as NSString).appendingPathComponent(relative))
                    enumerator.skipDescendants()
                } else if relative.hasSuffix(".dSYM") || relative.hasSuffix(".app") {
                    enumerator.skipDescendants()
                }
            }
        }
        return archives.filter { archive in
            let dsyms = (archive as NSString).appendingPathComponent("dSYMs")
            let found = BuildSymbolizer.debugFiles(in: dsyms, quietIfForeign: true).files
            return !found.contains(where: \.hasDebugInfo)
        }
    }

    /// `CFBundleVersion`s of the bundles holding `file`: an `.xcarchive`'s `ApplicationProperties`
    /// first (the app's build), then the outermost `.app`, `.appex` or `.framework` bundle's own
    /// (an app's frameworks carry their own versions; the app's frames have the app's), then the
    /// `.dSYM` bundle's.
    static func buildHints(around file: String) -> [String] {
        var archiveHints: [String] = []
        var appHints: [String] = []
        var bundleHints: [String] = []
        var folder = (file as NSString).deletingLastPathComponent
        while folder.count > 1 {
            if folder.hasSuffix(".xcarchive"), let data = plistData((folder as NSString).appendingPathComponent("Info.plist")),
                let version = archiveBuild(data)
            {
                archiveHints.append(version)
            }
            if folder.hasSuffix(".app") || folder.hasSuffix(".appex") || folder.hasSuffix(".framework"),
                let data = plistData((folder as NSString).appendingPathComponent("Info.plist"))
                    ?? plistData((folder as NSString).appendingPathComponent("Contents/Info.plist")),
                let version = bundleBuild(data)
            {
                appHints.insert(version, at: 0)
            }
            if folder.hasSuffix(".dSYM"), let data = plistData((folder as NSString).appendingPathComponent("Contents/Info.plist")),
                let version = bundleBuild(data)
            {
                bundleHints.append(version)
            }
            folder = (folder as NSString).deletingLastPathComponent
        }
        return archiveHints + appHints + bundleHints
    }

    /// The largest property list read: an `Info.plist` is a few kilobytes.
    static let largestPropertyList = 1 << 20

    /// A property list's bytes, or nil when it is missing, not a regular file, or larger than
    /// `largestPropertyList` (never read into memory whole).
    static func plistData(_ path: String) -> Data? {
        guard case .success(let status) = FileIO.status(of: path, retryOnInterrupt: false), status.kind == .regular,
            Int(status.size) <= largestPropertyList
        else { return nil }
        return FileManager.default.contents(atPath: path)
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
