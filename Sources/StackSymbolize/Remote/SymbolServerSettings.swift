import Foundation

/// Where and how debug files the store lacks are fetched (docs/symbolication.md, "Symbol
/// servers"): the servers in the order they are asked, and the bounds every download keeps.
public struct SymbolServerSettings: Sendable, Hashable {
    /// Base URLs (`https://symbols.example.com`, `http://127.0.0.1:8000/team`): a UUID is asked
    /// for as `BASE/buildid/<32 lower-case hex digits>/debuginfo`, debuginfod's scheme.
    public var servers: [String]
    /// The `Authorization` header's value sent to every server (read from a file, never printed).
    public var authorization: String?
    /// Connecting may take this long, and a download that receives nothing for this long ends.
    public var timeoutSeconds: Double
    /// A download larger than this ends, and nothing of it is kept.
    public var largestFile: Int64
    /// Downloads at once in one run.
    public var downloads: Int
    /// Forget the misses remembered from earlier runs (and ask again).
    public var refresh: Bool
    /// A PEM file of CA certificates that https servers are checked against in place of the
    /// system's bundle (libcurl's `CAINFO`), for a server whose certificate an internal CA signed.
    public var certificateFile: String?
    /// A folder of CA certificates named by hash (`openssl rehash`), in place of the system's
    /// (libcurl's `CAPATH`).
    public var certificateFolder: String?

    /// 10 s: a local or a cloud server answers within it; a stalled one costs a run at most this
    /// per attempt (and a server that timed out is not asked again in the run).
    public static let defaultTimeoutSeconds = 10.0
    /// 4 GiB: the largest dSYMs of big apps are about 1-2 GB.
    public static let defaultLargestFile: Int64 = 4 << 30
    /// 8 at once: from a local nginx, 200 files of 1 MB took as long with 8 as with curl's 50.
    public static let defaultDownloads = 8
    /// A server's 404 for a UUID is believed for an hour: frames of system images nobody uploads
    /// are asked about once an hour, not once per run.
    public static let missMemorySeconds = 3600.0
    /// A 5xx is asked again this many times, after 0.25 s, then 0.5 s.
    public static let retries = 2
    /// A whole download may take at most this many times the timeout (a server that trickles a
    /// byte now and then still ends).
    public static let wholeDownloadTimeouts = 30.0

    public init(
        servers: [String], authorization: String? = nil, timeoutSeconds: Double = Self.defaultTimeoutSeconds,
        largestFile: Int64 = Self.defaultLargestFile, downloads: Int = Self.defaultDownloads, refresh: Bool = false,
        certificateFile: String? = Self.certificateFile(ProcessInfo.processInfo.environment),
        certificateFolder: String? = Self.certificateFolder(ProcessInfo.processInfo.environment)
    ) {
        self.servers = servers
        self.authorization = authorization
        self.timeoutSeconds = timeoutSeconds
        self.largestFile = largestFile
        self.downloads = downloads
        self.refresh = refresh
        self.certificateFile = certificateFile
        self.certificateFolder = certificateFolder
    }

    /// `$CURL_CA_BUNDLE`, else `$SSL_CERT_FILE`: the names curl's command line and OpenSSL give the
    /// file, so a machine set up for them needs nothing more. An empty value counts as unset (no
    /// file has that name, and `VARIABLE= payload-tool` is how a shell drops an inherited one).
    public static func certificateFile(_ environment: [String: String]) -> String? {
        nonEmpty(environment["CURL_CA_BUNDLE"]) ?? nonEmpty(environment["SSL_CERT_FILE"])
    }

    /// `$SSL_CERT_DIR`, OpenSSL's name for the folder; empty counts as unset.
    public static func certificateFolder(_ environment: [String: String]) -> String? {
        nonEmpty(environment["SSL_CERT_DIR"])
    }

    private static func nonEmpty(_ value: String?) -> String? {
        guard let value, !value.isEmpty else { return nil }
        return value
    }

    /// `--symbol-server` values, else `$YUI_SYMBOL_SERVERS` split at spaces (as `$DEBUGINFOD_URLS`).
    public static func servers(given: [String]) -> [String] {
        if !given.isEmpty { return given }
        let variable = ProcessInfo.processInfo.environment["YUI_SYMBOL_SERVERS"] ?? ""
        return variable.split(whereSeparator: { $0 == " " || $0 == "\t" || $0 == "\n" }).map(String.init)
    }

    /// A server's URL as messages show it: a password in it (`https://user:secret@host`) becomes `***`.
    public static func redacted(_ url: String) -> String {
        guard let scheme = url.range(of: "://") else { return url }
        let rest = url[scheme.upperBound...]
        let authority = rest.prefix { $0 != "/" }
        guard let at = authority.lastIndex(of: "@") else { return url }
        let user = authority[..<at].prefix { $0 != ":" }
        return String(url[..<scheme.upperBound]) + user + ":***" + String(rest[at...])
    }

    /// The URL of one UUID's debug file on a server.
    public static func url(server: String, uuid: String) -> String {
        let base = server.hasSuffix("/") ? String(server.dropLast()) : server
        return base + "/buildid/" + SymbolServerNaming.buildID(uuid) + "/debuginfo"
    }

    /// The header's value from a file: its first line, either `Authorization: VALUE` or `VALUE`.
    /// Nil when the file holds no value.
    public static func authorization(fromFileText text: String) -> String? {
        let line = text.split(whereSeparator: \.isNewline).first.map(String.init) ?? ""
        var value = Substring(line)
        if value.lowercased().hasPrefix("authorization:") { value = value.dropFirst("authorization:".count) }
        let trimmed = value.trimmingCharacters(in: .whitespaces)
        return trimmed.isEmpty ? nil : trimmed
    }
}
