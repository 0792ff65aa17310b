import Foundation

// Files and folders by path: removing, renaming, resolving links, listing.
extension FileIO {
    /// Removes the file at `path` (`unlink`, one try): whether it was removed. Callers that clean
    /// up after themselves ignore the answer; a file that is not there is no failure to them.
    @discardableResult
    public static func remove(_ path: String) -> Bool {
        unlink(path) == 0
    }

    /// Renames `path` to `newPath` (`rename`, which replaces a file there at once): nil, or the `errno`.
    public static func rename(_ path: String, to newPath: String, retryOnInterrupt: Bool = true) -> SystemErrno? {
        SystemCall.failure(retryOnInterrupt: retryOnInterrupt) { Foundation.rename(path, newPath) }
    }

    /// The absolute path with every symbolic link, `.` and `..` resolved (`realpath`, one try), or
    /// the `errno` (`ENOENT` for a link to nothing).
    public static func resolvedPath(_ path: String) -> Result<String, SystemErrno> {
        SystemCall.nonNilValueOrErrno(retryOnInterrupt: false) { realpath(path, nil) }.map { resolved in
            defer { free(resolved) }
            return String(cString: resolved)
        }
    }

    /// Whether this process may write the file at `path` (`access(W_OK)`). Root may write a file
    /// with no write permission at all; callers that refuse such a file check its mode too.
    public static func isWritable(_ path: String) -> Bool {
        access(path, W_OK) == 0
    }

    /// `folderEntries`, with each entry's kind as `readdir` gives it (`d_type`): `.regular` or
    /// `.folder`, or nil when it does not say (a link, or a file system that leaves it unknown:
    /// then `status(of:)` tells). Walking a folder of 100,000 dumps needs no `stat` per file.
    public static func folderEntriesWithKinds(_ path: String) -> Result<[(name: String, kind: FileStatus.Kind?)], SystemErrno> {
        SystemCall.nonNilValueOrErrno(retryOnInterrupt: false) { opendir(path) }.map { folder in
            defer { closedir(folder) }
            var entries: [(name: String, kind: FileStatus.Kind?)] = []
            while let entry = readdir(folder) {
                let name = withUnsafeBytes(of: entry.pointee.d_name) { raw in
                    String(decoding: raw.prefix { $0 != 0 }, as: UTF8.self)
                }
                guard name != "." && name != ".." else { continue }
                let kind: FileStatus.Kind? =
                    switch Int32(entry.pointee.d_type) {
                    case Int32(DT_REG): .regular
                    case Int32(DT_DIR): .folder
                    default: nil
                    }
                entries.append((name, kind))
            }
            return entries
        }
    }

    /// The names in the folder at `path` but `.` and `..`, in the order the file system lists them
    /// (`opendir`, one try; `readdir`), or the `errno` of the `opendir`.
    public static func folderEntries(_ path: String) -> Result<[String], SystemErrno> {
        SystemCall.nonNilValueOrErrno(retryOnInterrupt: false) { opendir(path) }.map { folder in
            defer { closedir(folder) }
            var names: [String] = []
            while let entry = readdir(folder) {
                let name = withUnsafeBytes(of: entry.pointee.d_name) { raw in
                    String(decoding: raw.prefix { $0 != 0 }, as: UTF8.self)
                }
                if name != "." && name != ".." { names.append(name) }
            }
            return names
        }
    }
}
