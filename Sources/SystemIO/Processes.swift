import Foundation

/// Questions about processes and this machine that temporary-file cleanup asks: whose file is it,
/// and is its writer still there.
public enum Processes {
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
            guard case .success(let status) = SystemCall.status(of: path) else { return failure }
            return (status.st_mode & S_IFMT) == S_IFDIR ? nil : SystemErrno(code: ENOTDIR)
        }
        let parent = (path as NSString).deletingLastPathComponent
        guard failure.code == ENOENT, !parent.isEmpty, parent != path else { return failure }
        if let parentFailure = makeFolders(parent, mode: mode) { return parentFailure }
        if case .failure(let again) = SystemCall.valueOrErrno({ mkdir(path, mode) }), again.code != EEXIST { return again }
        return nil
    }
}
