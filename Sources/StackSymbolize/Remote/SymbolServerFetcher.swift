import Foundation
import Synchronization
import SystemIO

/// Fetches the debug files the store lacks from symbol servers, by UUID, into the store
/// (docs/symbolication.md, "Symbol servers"). One per command run, shared by its builds'
/// symbolizers; each UUID is asked about once per run.
///
/// A server's faults are warnings naming the server and the UUID, never a wrong file in the store:
/// a body is written under a temporary name, checked (it parses and holds the UUID asked for) and
/// renamed into place. A server that cannot be reached or stalls is asked nothing more in the run,
/// so a run ends within about one timeout of it. Not thread-safe (its workers are its own).
public final class SymbolServerFetcher {
    public let settings: SymbolServerSettings
    /// UUIDs asked about in this run (fetched, missed or failed): not asked again.
    private var asked: Set<String> = []
    /// Servers that could not be reached or stalled: not asked again in this run.
    private var downServers: Set<String> = []
    private var pendingWarnings: [String] = []
    /// Files placed and the bytes downloaded in this run.
    public private(set) var fetchedFiles = 0
    public private(set) var fetchedBytes: Int64 = 0
    private var forgotMisses = false

    public init(settings: SymbolServerSettings) {
        self.settings = settings
    }

    /// What went wrong since the last call, one warning each.
    public func takeWarnings() -> [String] {
        defer { pendingWarnings = [] }
        return pendingWarnings
    }

    /// One UUID wanted, and the image its frames name (the placed file's name).
    public struct Wanted: Sendable, Hashable {
        public var uuid: String
        public var image: String?
        public init(uuid: String, image: String?) {
            self.uuid = uuid
            self.image = image
        }
    }

    /// Fetches `wanted` (canonical UUIDs not yet asked about in this run) into `<root>/<build>/`,
    /// `settings.downloads` at a time; returns UUID → the placed file (fetched now, or placed by
    /// another run while this one waited for its lock).
    public func fetch(_ wanted: [Wanted], root: String, build: String) -> [String: String] {
        var jobs: [Wanted] = []
        for item in wanted where asked.insert(item.uuid).inserted { jobs.append(item) }
        let servers = settings.servers.filter { !downServers.contains($0) }
        guard !jobs.isEmpty, !servers.isEmpty else { return [:] }
        if settings.refresh, !forgotMisses {
            StoreFetchedFiles.forgetMisses(root: root)
            forgotMisses = true
        }
        let downloads = StoreTemporaryFiles.downloadFolder(root: root, pid: Processes.currentID)
        if let failure = FileIO.makeFolders(downloads) {
            pendingWarnings.append("\(downloads): cannot create the download folder: \(failure.text); nothing fetched")
            return [:]
        }
        TemporaryFiles.registerFolder(downloads)
        defer {
            try? FileManager.default.removeItem(atPath: downloads)
            TemporaryFiles.unregisterFolder(downloads)
        }
        let shared = FetchRun(jobs: jobs, servers: servers, settings: settings, root: root, build: build, downloads: downloads)
        let threads = min(max(settings.downloads, 1), jobs.count)
        SecondThread.onThreads(threads) { shared.work() }
        let outcome = shared.outcome.withLock { $0 }
        downServers.formUnion(outcome.downServers)
        pendingWarnings += outcome.warnings
        fetchedFiles += outcome.fetchedFiles
        fetchedBytes += outcome.fetchedBytes
        return outcome.placed
    }
}

@available(*, unavailable) extension SymbolServerFetcher: Sendable {}

/// What one `fetch` call's workers share: the jobs, and what they found.
private final class FetchRun: Sendable {
    struct Outcome {
        var placed: [String: String] = [:]
        var warnings: [String] = []
        var downServers: Set<String> = []
        var fetchedFiles = 0
        var fetchedBytes: Int64 = 0
    }

    let jobs: [SymbolServerFetcher.Wanted]
    let servers: [String]
    let settings: SymbolServerSettings
    let root: String
    let build: String
    /// Where bodies are written before they are checked (`<root>/.fetch-PID`).
    let downloads: String
    let next = Mutex(0)
    let outcome = Mutex(Outcome())

    init(
        jobs: [SymbolServerFetcher.Wanted], servers: [String], settings: SymbolServerSettings, root: String, build: String, downloads: String
    ) {
        self.downloads = downloads
        self.jobs = jobs
        self.servers = servers
        self.settings = settings
        self.root = root
        self.build = build
    }

    /// One worker: its own libcurl handle, taking jobs until none are left.
    func work() {
        let transfer: CurlTransfer
        switch CurlTransfer.make(settings: settings) {
        case .success(let made): transfer = made
        case .failure(let failure):
            outcome.withLock { state in
                if !state.warnings.contains(failure.message) { state.warnings.append(failure.message) }
            }
            return
        }
        while true {
            let index = next.withLock { value -> Int in
                defer { value += 1 }
                return value
            }
            guard index < jobs.count else { return }
            fetchOne(jobs[index], transfer: transfer)
        }
    }

    private func warn(_ server: String, _ uuid: String, _ text: String) {
        let line = "symbol server \(SymbolServerSettings.redacted(server)): \(uuid): \(text)"
        outcome.withLock { $0.warnings.append(line) }
    }

    private func isDown(_ server: String) -> Bool { outcome.withLock { $0.downServers.contains(server) } }

    private func fetchOne(_ job: SymbolServerFetcher.Wanted, transfer: CurlTransfer) {
        let uuid = job.uuid
        if !settings.refresh,
            StoreFetchedFiles.isRememberedMiss(root: root, uuid: uuid, servers: servers, seconds: SymbolServerSettings.missMemorySeconds)
        {
            return
        }
        let destination = StoreFetchedFiles.destination(root: root, build: build, uuid: uuid, image: job.image)
        let folder = (destination as NSString).deletingLastPathComponent
        let lockPath = StoreFetchedFiles.lockPath(root: root, uuid: uuid)
        if let failure = FileIO.makeFolders((lockPath as NSString).deletingLastPathComponent) ?? FileIO.makeFolders(folder) {
            warn(servers[0], uuid, "cannot write to the store \(root): \(failure.text)")
            return
        }
        // A run fetching the same UUID holds the lock for at most one whole download per server.
        let longest = settings.timeoutSeconds * (SymbolServerSettings.wholeDownloadTimeouts + 1) * Double(servers.count)
        let lock: FileLock
        do {
            lock = try FileLock(exclusive: lockPath, mode: 0o644, wait: .milliseconds(Int(longest * 1000)))
        } catch {
            warn(servers[0], uuid, "\(error)")
            return
        }
        defer { lock.release() }
        // Another run may have placed it while this one waited.
        if let placed = StoreFetchedFiles.placedFile(root: root, build: build, uuid: uuid) {
            outcome.withLock { $0.placed[uuid] = placed }
            return
        }
        var misses = 0
        for server in servers {
            guard !isDown(server) else { continue }
            switch fetch(uuid, from: server, to: destination, transfer: transfer) {
            case .placed(let bytes):
                outcome.withLock { state in
                    state.placed[uuid] = destination
                    state.fetchedFiles += 1
                    state.fetchedBytes += bytes
                }
                return
            case .missing: misses += 1
            case .failed: break
            }
        }
        if misses == servers.count { StoreFetchedFiles.rememberMiss(root: root, uuid: uuid, servers: servers) }
    }

    private enum Attempt {
        case placed(bytes: Int64)
        case missing
        case failed
    }

    /// One server asked for one UUID, a 5xx asked again after a pause.
    private func fetch(_ uuid: String, from server: String, to destination: String, transfer: CurlTransfer) -> Attempt {
        let url = SymbolServerSettings.url(server: server, uuid: uuid)
        var pause = 0.25
        for attempt in 0...SymbolServerSettings.retries {
            let temporary = (downloads as NSString).appendingPathComponent("\(uuid)-\(attempt)")
            defer { FileIO.remove(temporary) }
            let descriptor: Int32
            do {
                descriptor = try FileIO.createNew(temporary, mode: 0o644)
            } catch {
                warn(server, uuid, "cannot write to the store: \(error)")
                return .failed
            }
            let result = transfer.download(url, into: descriptor, path: temporary)
            let closeFailure = FileIO.close(descriptor)
            switch result {
            case .tooLarge(let limit):
                warn(server, uuid, "the file is larger than the limit of \(limit) bytes (--symbol-server-max-size); not kept")
                return .failed
            case .failed(let reason, let serverDown):
                if serverDown {
                    outcome.withLock { _ = $0.downServers.insert(server) }
                    warn(server, uuid, "\(reason); the server is not asked again in this run")
                } else {
                    warn(server, uuid, "\(reason); nothing kept")
                }
                return .failed
            case .answered(let status, let bytes):
                if status == 404 { return .missing }
                if (500...599).contains(status) {
                    if attempt < SymbolServerSettings.retries {
                        Thread.sleep(forTimeInterval: pause)
                        pause *= 2
                        continue
                    }
                    warn(server, uuid, "HTTP \(status) after \(attempt + 1) attempts; nothing kept")
                    return .failed
                }
                guard status == 200 else {
                    warn(server, uuid, "HTTP \(status); nothing kept")
                    return .failed
                }
                if let closeFailure {
                    warn(server, uuid, "cannot write to the store: \(closeFailure.text)")
                    return .failed
                }
                if let refusal = StoreFetchedFiles.refusal(of: temporary, uuid: uuid) {
                    warn(server, uuid, "the answer is \(refusal); not kept")
                    return .failed
                }
                if let failure = FileIO.rename(temporary, to: destination, retryOnInterrupt: false) {
                    warn(server, uuid, "cannot place \(destination): \(failure.text)")
                    return .failed
                }
                return .placed(bytes: bytes)
            }
        }
        return .failed
    }
}
