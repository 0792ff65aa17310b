import Foundation

/// What `stat(2)` says about a file, in the terms this package asks about: what kind it is, how
/// large, when it last changed, its permissions and owner, and which file it is (device and inode).
public struct FileStatus: Sendable, Hashable {
    public enum Kind: Sendable, Hashable, CustomStringConvertible {
        case regular, folder, symbolicLink, characterDevice, blockDevice, fifo, socket, other

        init(mode: mode_t) {
            switch mode & S_IFMT {
            case S_IFREG: self = .regular
            case S_IFDIR: self = .folder
            case S_IFLNK: self = .symbolicLink
            case S_IFCHR: self = .characterDevice
            case S_IFBLK: self = .blockDevice
            case S_IFIFO: self = .fifo
            case S_IFSOCK: self = .socket
            default: self = .other
            }
        }

        /// The kind as a message names it, `not a regular file (a FIFO)`.
        public var description: String {
            switch self {
            case .characterDevice: return "a character device"
            case .blockDevice: return "a block device"
            case .fifo: return "a FIFO"
            case .socket: return "a socket"
            case .folder: return "a folder"
            case .symbolicLink: return "a symbolic link"
            case .regular: return "a regular file"
            case .other: return "not a regular file"
            }
        }
    }

    public var kind: Kind
    public var size: Int64
    /// The last change of the contents: whole seconds since 1970 and the nanoseconds past them.
    public var modifiedSeconds: Int64
    public var modifiedNanoseconds: Int64
    /// The permission bits (`mode & 0o7777`).
    public var permissions: mode_t
    public var owner: uid_t
    public var group: gid_t
    /// Together, which file this is: the same pair is the same file, whatever its path.
    public var device: UInt64
    public var inode: UInt64

    init(_ status: stat) {
        kind = Kind(mode: status.st_mode)
        size = Int64(status.st_size)
        modifiedSeconds = Int64(status.st_mtim.tv_sec)
        modifiedNanoseconds = Int64(status.st_mtim.tv_nsec)
        permissions = status.st_mode & 0o7777
        owner = status.st_uid
        group = status.st_gid
        device = UInt64(status.st_dev)
        inode = UInt64(status.st_ino)
    }
}

extension FileIO {
    /// The status of the file at `path`, through symbolic links (`stat`), or the `errno`.
    ///
    /// - Parameter retryOnInterrupt: false where one try is what the caller always made: a
    ///   question like "is there a small regular file here" takes an interrupted call as no.
    public static func status(of path: String, retryOnInterrupt: Bool = true) -> Result<FileStatus, SystemErrno> {
        var status = stat()
        return SystemCall.valueOrErrno(retryOnInterrupt: retryOnInterrupt) { stat(path, &status) }.map { _ in FileStatus(status) }
    }

    /// The status of `path` itself, a symbolic link not followed (`lstat`), or the `errno`.
    public static func linkStatus(of path: String, retryOnInterrupt: Bool = true) -> Result<FileStatus, SystemErrno> {
        var status = stat()
        return SystemCall.valueOrErrno(retryOnInterrupt: retryOnInterrupt) { lstat(path, &status) }.map { _ in FileStatus(status) }
    }

    /// The status of the open file `descriptor` (`fstat`), or the `errno`.
    public static func status(ofDescriptor descriptor: Int32, retryOnInterrupt: Bool = true) -> Result<FileStatus, SystemErrno> {
        var status = stat()
        return SystemCall.valueOrErrno(retryOnInterrupt: retryOnInterrupt) { fstat(descriptor, &status) }.map { _ in FileStatus(status) }
    }
}
