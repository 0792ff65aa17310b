import Foundation

/// An exclusive `flock` on a lock file, held until the value goes (or the process ends: the kernel
/// drops a dead holder's lock, so a crashed run never leaves one behind). On NFS, Linux turns
/// `flock` into a whole-file POSIX lock that the server arbitrates between machines; that needs
/// the file open for writing, hence `O_RDWR`.
///
/// The lock file itself stays: removing it while another process waits on it would let a third
/// lock a new file of the same name, and two holders would think themselves alone.
public final class FileLock {
    public let path: String
    private let descriptor: Int32

    private init(path: String, descriptor: Int32) {
        self.path = path
        self.descriptor = descriptor
    }

    deinit {
        _ = flock(descriptor, LOCK_UN)
        close(descriptor)
    }

    /// Waits up to `timeout` for the lock on `path` (created if absent, mode 0666 less the umask).
    /// nil when another process held it all that time; a `FileError` when the file cannot be
    /// created or locked (a read-only folder, a file system without locks).
    public static func exclusive(_ path: String, timeout: Duration) throws(FileError) -> FileLock? {
        let descriptor = try SystemCall.valueOrErrno { open(path, O_RDWR | O_CREAT | O_CLOEXEC, 0o666) }
            .get(path: path, action: "cannot open the lock file")
        let deadline = ContinuousClock.now + timeout
        // Polled rather than a blocking `flock`: a blocking call has no timeout, and a holder stuck
        // on a hung network mount would hold every waiter with it. 10 ms at first (a build that
        // just ended is seen at once), then up to 200 ms between tries.
        var pause = Duration.milliseconds(10)
        while true {
            if flock(descriptor, LOCK_EX | LOCK_NB) == 0 { return FileLock(path: path, descriptor: descriptor) }
            let failure = SystemErrno.current
            guard failure.code == EWOULDBLOCK || failure.code == EINTR else {
                close(descriptor)
                throw FileError(path: path, action: "cannot lock", errno: failure)
            }
            guard ContinuousClock.now < deadline else {
                close(descriptor)
                return nil
            }
            Thread.sleep(forTimeInterval: Double(pause.components.attoseconds) / 1e18 + Double(pause.components.seconds))
            pause = min(pause * 2, .milliseconds(200))
        }
    }
}
