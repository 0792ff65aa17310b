import CCurl
import CLazyLibraries
import Foundation
import SystemIO

/// One libcurl easy handle, reused for every download of one worker thread (so its connection to
/// a server is kept alive between files). Owns the handle and the header list it sends.
final class CurlTransfer {
    /// How one download ended.
    enum Outcome: Sendable {
        /// The server answered with `status`; the body (`bytes` long) is in the file.
        case answered(status: Int, bytes: Int64)
        /// The body passed `SymbolServerSettings.largestFile`; what came is thrown away.
        case tooLarge(limit: Int64)
        /// No answer: `reason` is libcurl's. `serverDown` when the server could not be reached or
        /// stalled (the run asks it nothing more).
        case failed(reason: String, serverDown: Bool)
    }

    private let handle: UnsafeMutableRawPointer
    private var headers: UnsafeMutablePointer<curl_slist>?
    private let settings: SymbolServerSettings
    /// libcurl's own words for a failure ("SSL certificate problem: unable to get local issuer
    /// certificate"): the error code's text alone does not say which check a server failed.
    private let errorText = UnsafeMutablePointer<CChar>.allocate(capacity: Int(CURL_ERROR_SIZE))

    /// Nil with the loader's message when libcurl cannot be loaded or gives no handle.
    static func make(settings: SymbolServerSettings) -> Result<CurlTransfer, SymbolServerFailure> {
        if let failure = yui_load_libcurl() {
            return .failure(SymbolServerFailure(message: "cannot load libcurl (apt install libcurl4): \(String(cString: failure))"))
        }
        guard let handle = curl_easy_init() else { return .failure(SymbolServerFailure(message: "libcurl gave no handle")) }
        return .success(CurlTransfer(handle: handle, settings: settings))
    }

    private init(handle: UnsafeMutableRawPointer, settings: SymbolServerSettings) {
        self.handle = handle
        self.settings = settings
        if let authorization = settings.authorization {
            headers = curl_slist_append(nil, "Authorization: " + authorization)
        }
    }

    deinit {
        curl_easy_cleanup(handle)
        if let headers { curl_slist_free_all(headers) }
        errorText.deallocate()
    }

    /// Writes what `url` answers into `descriptor` (a new, empty file at `path`).
    func download(_ url: String, into descriptor: Int32, path: String) -> Outcome {
        let sink = DownloadSink(descriptor: descriptor, path: path, limit: settings.largestFile)
        let context = Unmanaged.passRetained(sink)
        defer { context.release() }
        let timeout = Int(settings.timeoutSeconds * 1000)
        curl_easy_reset(handle)
        _ = yui_curl_set_text(handle, CURLOPT_URL, url)
        // libcurl keeps this pointer and writes into it (the text wrapper passes any char pointer).
        errorText[0] = 0
        _ = yui_curl_set_text(handle, CURLOPT_ERRORBUFFER, errorText)
        // Threads of our own: libcurl must not use signals (SIGALRM) for its time limits.
        _ = yui_curl_set_long(handle, CURLOPT_NOSIGNAL, 1)
        _ = yui_curl_set_text(handle, CURLOPT_PROTOCOLS_STR, "http,https")
        _ = yui_curl_set_text(handle, CURLOPT_REDIR_PROTOCOLS_STR, "http,https")
        _ = yui_curl_set_long(handle, CURLOPT_FOLLOWLOCATION, 1)
        _ = yui_curl_set_long(handle, CURLOPT_MAXREDIRS, 5)
        _ = yui_curl_set_long(handle, CURLOPT_CONNECTTIMEOUT_MS, timeout)
        // Nothing received for the timeout ends the download; so does the whole taking 30 times it.
        _ = yui_curl_set_long(handle, CURLOPT_LOW_SPEED_LIMIT, 1)
        _ = yui_curl_set_long(handle, CURLOPT_LOW_SPEED_TIME, max(1, Int(settings.timeoutSeconds.rounded(.up))))
        _ = yui_curl_set_long(handle, CURLOPT_TIMEOUT_MS, Int(Double(timeout) * SymbolServerSettings.wholeDownloadTimeouts))
        _ = yui_curl_set_offset(handle, CURLOPT_MAXFILESIZE_LARGE, curl_off_t(settings.largestFile))
        _ = yui_curl_set_long(handle, CURLOPT_SSL_VERIFYPEER, 1)
        _ = yui_curl_set_long(handle, CURLOPT_SSL_VERIFYHOST, 2)
        // Whom to trust changes with the environment; that the server is checked never does.
        if let file = settings.certificateFile { _ = yui_curl_set_text(handle, CURLOPT_CAINFO, file) }
        if let folder = settings.certificateFolder { _ = yui_curl_set_text(handle, CURLOPT_CAPATH, folder) }
        _ = yui_curl_set_text(handle, CURLOPT_USERAGENT, "payload-tool")
        if let headers { _ = yui_curl_set_list(handle, CURLOPT_HTTPHEADER, headers) }
        _ = yui_curl_set_write(handle, Self.write, context.toOpaque())
        let code = curl_easy_perform(handle)
        var status = 0
        _ = yui_curl_get_long(handle, CURLINFO_RESPONSE_CODE, &status)
        if sink.exceeded || code == CURLE_FILESIZE_EXCEEDED { return .tooLarge(limit: settings.largestFile) }
        if let failure = sink.failure { return .failed(reason: failure, serverDown: false) }
        guard code == CURLE_OK else {
            let detail = String(cString: errorText)
            let reason = detail.isEmpty ? String(cString: curl_easy_strerror(code)) : detail
            // A certificate refused, or a CA file that cannot be read, fails every UUID alike.
            let down = [
                CURLE_COULDNT_CONNECT, CURLE_COULDNT_RESOLVE_HOST, CURLE_OPERATION_TIMEDOUT, CURLE_PEER_FAILED_VERIFICATION,
                CURLE_SSL_CACERT_BADFILE,
            ].contains(code)
            return .failed(reason: reason + " (curl error \(code.rawValue))", serverDown: down)
        }
        return .answered(status: status, bytes: sink.written)
    }

    /// libcurl's write callback: the bytes go to the file; returning less than given ends the
    /// download (past the size limit, or a failed write).
    private static let write: yui_curl_write_callback = { data, size, count, context in
        guard let data, let context else { return 0 }
        let sink = Unmanaged<DownloadSink>.fromOpaque(context).takeUnretainedValue()
        let length = size * count
        guard sink.written + Int64(length) <= sink.limit else {
            sink.exceeded = true
            return 0
        }
        do {
            try FileIO.writeAll(sink.descriptor, UnsafeRawBufferPointer(start: data, count: length), path: sink.path)
        } catch {
            sink.failure = "\(error)"
            return 0
        }
        sink.written += Int64(length)
        return length
    }
}

/// Where one download's bytes go, and what happened to them.
private final class DownloadSink {
    let descriptor: Int32
    let path: String
    let limit: Int64
    var written: Int64 = 0
    var exceeded = false
    var failure: String?

    init(descriptor: Int32, path: String, limit: Int64) {
        self.descriptor = descriptor
        self.path = path
        self.limit = limit
    }
}

/// Why symbol servers cannot be asked at all (libcurl missing, a header file that cannot be read).
public struct SymbolServerFailure: Error, Sendable, CustomStringConvertible {
    public var message: String
    public var description: String { message }
    public init(message: String) { self.message = message }
}
