import Foundation

/// This process, the others, and this machine: who we are (temporary names carry the PID), whether a
/// temporary file's writer is still there, how many cores there are, and how the process ends.
public enum Processes {
    /// This process's id (`getpid`).
    public static var currentID: pid_t { getpid() }

    /// The online cores (`sysconf(_SC_NPROCESSORS_ONLN)`), at least 1. Not
    /// `ProcessInfo.activeProcessorCount`, which reads the cgroup and mount tables: a tenth of a
    /// small run's start-up.
    public static var processorCount: Int { Swift.max(Int(sysconf(Int32(_SC_NPROCESSORS_ONLN))), 1) }

    /// The permission bits new files do not get (the umask). Read by setting it to 0 and back,
    /// the only way there is: a file another thread creates in between gets no mask.
    public static var fileCreationMask: mode_t {
        let mask = umask(0)
        umask(mask)
        return mask
    }

    /// A write to a pipe nobody reads then fails with `EPIPE` instead of ending the process with
    /// SIGPIPE, so the writer can remove its temporary files and end as it chooses.
    public static func ignoreBrokenPipes() {
        signal(SIGPIPE, SIG_IGN)
    }

    /// Ends the process with `status` (`exit`: `atexit` handlers run, C streams are flushed).
    public static func exit(_ status: Int32) -> Never {
        Foundation.exit(status)
    }

    /// Whether a process with this PID exists. One of another user's counts (`EPERM`): it may be
    /// writing. Only `ESRCH` says it is gone.
    public static func isRunning(_ pid: pid_t) -> Bool {
        guard case .failure(let failure) = SystemCall.valueOrErrno(retryOnInterrupt: false, { kill(pid, 0) }) else { return true }
        return failure.code != ESRCH
    }

    /// This machine's name (`gethostname`), or nil when it has none to give.
    public static let hostName: String? = {
        var buffer = [CChar](repeating: 0, count: 256)
        guard gethostname(&buffer, buffer.count - 1) == 0 else { return nil }
        let name = String(decoding: buffer.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
        return name.isEmpty ? nil : name
    }()
}

extension FileIO {
    /// `mkdir -p`: nil when `path` is a folder (made now or before), else why not.
    public static func makeFolders(_ path: String, mode: mode_t = 0o777) -> SystemErrno? {
        if case .success = SystemCall.valueOrErrno({ mkdir(path, mode) }) { return nil }
        let failure = SystemErrno.current
        if failure.code == EEXIST {
            guard case .success(let status) = FileIO.status(of: path) else { return failure }
            return status.kind == .folder ? nil : SystemErrno(code: ENOTDIR)
        }
        let parent = (path as NSString).deletingLastPathComponent
        guard failure.code == ENOENT, !parent.isEmpty, parent != path else { return failure }
        if let parentFailure = makeFolders(parent, mode: mode) { return parentFailure }
        if case .failure(let again) = SystemCall.valueOrErrno({ mkdir(path, mode) }), again.code != EEXIST { return again }
        return nil
    }
}
