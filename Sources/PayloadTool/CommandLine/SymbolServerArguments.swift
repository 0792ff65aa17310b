import Foundation
import StackSymbolize

/// The options that fetch missing debug files from symbol servers, declared once for
/// `symbolicate`, `top`, `report` and `dsyms` (docs/symbolication.md, "Symbol servers").
enum SymbolServerArguments {
    static let server = CommandOption(
        "--symbol-server", "URL", parser: .nonEmpty(.takesNonEmpty("a URL")), repeatable: true,
        help: [
            "Fetch the debug files the store lacks from URL/buildid/UUID/debuginfo",
            "(debuginfod's scheme; repeatable, asked in order; default:",
            "$YUI_SYMBOL_SERVERS, URLs separated by spaces). Kept in the store.",
        ])
    static let headerFile = CommandOption(
        "--symbol-server-header-file", "FILE", parser: .nonEmpty(.takesNonEmpty("a file")),
        help: ["Send the Authorization header in FILE ('Authorization: VALUE' or", "VALUE) to the symbol servers; never printed."])
    static let timeout = CommandOption(
        "--symbol-server-timeout", "SECONDS", parser: .seconds,
        help: [
            "Connecting, and a download receiving nothing, may each take this", "long; a whole file 30 times it (default: 10).",
        ])
    static let maxSize = CommandOption(
        "--symbol-server-max-size", "MB", parser: .integer(in: 1...1_048_576, .takes("a whole number of megabytes")),
        help: ["Refuse a fetched file larger than MB megabytes (default: 4096)."])
    static let downloads = CommandOption(
        "--symbol-server-downloads", "N", parser: .integer(in: 1...64, .takes("a whole number from 1 to 64")),
        help: ["Download at most N files at once (default: 8)."])
    static let refresh = CommandFlag(
        "--refresh", help: ["Ask the symbol servers again for UUIDs they lacked in the last hour."])

    static let all = [
        server.declaration, headerFile.declaration, timeout.declaration, maxSize.declaration, downloads.declaration,
        refresh.declaration,
    ]

    static var usage: [UsageItem] { all.map { .optional($0) } }

    /// The settings the options give, or nil when no server is named (by option or variable).
    static func settings(_ parsed: CommandArguments) throws(UsageError) -> SymbolServerSettings? {
        let servers = SymbolServerSettings.servers(given: try parsed.values(server))
        for url in servers where !(url.hasPrefix("http://") || url.hasPrefix("https://")) {
            throw UsageError(message: "Symbol server '\(SymbolServerSettings.redacted(url))' is no http:// or https:// URL.")
        }
        guard !servers.isEmpty else { return nil }
        var settings = SymbolServerSettings(servers: servers)
        if let file = try parsed.value(headerFile) {
            // Read here, once: an unreadable file is the command's error, not a warning per download.
            guard let data = FileManager.default.contents(atPath: file), data.count <= 65_536,
                let text = String(data: data, encoding: .utf8)
            else { throw UsageError(message: "\(file): cannot read the symbol server header file.") }
            guard let value = SymbolServerSettings.authorization(fromFileText: text) else {
                throw UsageError(message: "\(file): the symbol server header file holds no header value.")
            }
            settings.authorization = value
        }
        if let seconds = try parsed.value(timeout) {
            guard seconds > 0 else { throw UsageError(message: "Option '\(timeout.name)' takes more than 0 seconds.") }
            settings.timeoutSeconds = seconds
        }
        if let megabytes = try parsed.value(maxSize) { settings.largestFile = Int64(megabytes) << 20 }
        if let count = try parsed.value(downloads) { settings.downloads = count }
        settings.refresh = parsed.given(refresh)
        return settings
    }
}
