import Foundation

/// The `--db` value: a libpq URL (`postgresql://user:secret@host:5432/db?sslmode=require`) or a
/// `key=value` connection string, with everything needed to talk about it without showing the password.
///
/// Every message that could contain the value, including libpq's own (it echoes a connection string it
/// cannot parse), goes through `scrub(_:)`.
public struct DatabaseURL: Sendable, CustomStringConvertible {
    /// The value as given, password included: only for libpq.
    public let connectionString: String
    /// The value with its password replaced by `***`, e.g. `postgresql://loader:***@db.example.com/postgres`.
    public let redacted: String
    /// Every spelling of the password that could show up in a message (as written and percent-decoded).
    private let secrets: [String]

    public init(_ connectionString: String) {
        self.connectionString = connectionString
        let lowercased = connectionString.lowercased()
        let (redacted, secrets): (String, [String])
        if lowercased.hasPrefix("postgresql://") || lowercased.hasPrefix("postgres://") {
            (redacted, secrets) = Self.redactURI(connectionString)
        } else if connectionString.contains("=") {
            (redacted, secrets) = Self.redactKeyValues(connectionString)
        } else if connectionString.contains("@") {
            // Neither a URL libpq knows nor key=value (a mistyped scheme, say): libpq will read it as a
            // database name and echo it, so none of it is shown.
            (redacted, secrets) = ("<the --db value>", [connectionString])
        } else {
            (redacted, secrets) = (connectionString, [])  // a bare database name holds no password
        }
        self.redacted = redacted
        // Longest first, so a spelling that contains another one is replaced whole.
        self.secrets = secrets.filter { !$0.isEmpty }.sorted { $0.count > $1.count }
    }

    public var description: String { redacted }

    /// `message` with every spelling of the password, and the raw value when it could not be parsed,
    /// replaced by `***`.
    public func scrub(_ message: String) -> String {
        var message = message
        for secret in secrets {
            message = message.replacingOccurrences(of: secret, with: "***")
        }
        return message
    }

    /// libpq's URI rule: the user info is what comes before the first `@`, unless a `/` comes first;
    /// the password is what follows its first `:`. A `password=` query parameter counts as well.
    ///
    /// A password with an unencoded `@` (`postgresql://u:Wr@ngPW99@host/db`) is read by libpq as the
    /// password `Wr` and the host `ngPW99@host`, which its messages then echo. So the redaction takes
    /// the user info up to the *last* `@` of the authority, and every `@`-separated piece of such a
    /// password is a secret too: nothing of it is printed.
    private static func redactURI(_ uri: String) -> (String, [String]) {
        guard let schemeEnd = uri.range(of: "://") else { return (uri, []) }
        let scheme = uri[..<schemeEnd.upperBound]
        var rest = Substring(uri[schemeEnd.upperBound...])
        var secrets: [String] = []
        var userInfo = ""
        let authority = rest[..<(rest.firstIndex { $0 == "/" || $0 == "?" } ?? rest.endIndex)]
        if let at = authority.lastIndex(of: "@") {
            let info = rest[..<at]
            if let colon = info.firstIndex(of: ":") {
                let password = String(info[info.index(after: colon)...])
                secrets += spellings(of: password)
                if password.contains("@") {
                    secrets += password.split(separator: "@").map(String.init).flatMap { spellings(of: $0) }
                }
                userInfo = "\(info[..<colon]):***@"
            } else {
                userInfo = "\(info)@"
            }
            rest = rest[rest.index(after: at)...]
        }
        var tail = String(rest)
        if let question = tail.firstIndex(of: "?") {
            let path = tail[..<question]
            let query = tail[tail.index(after: question)...].split(separator: "&", omittingEmptySubsequences: false)
                .map { parameter -> String in
                    guard parameter.lowercased().hasPrefix("password=") else { return String(parameter) }
                    secrets += spellings(of: String(parameter.dropFirst("password=".count)))
                    return "password=***"
                }
            tail = path + "?" + query.joined(separator: "&")
        }
        return (scheme + userInfo + tail, secrets)
    }

    /// `host=db user=loader password='it''s secret'`: values are bare words or single-quoted, both
    /// with backslash escapes (libpq's conninfo syntax: `password=S3CRET\ tail` is one value,
    /// `S3CRET tail`, and is redacted whole).
    private static func redactKeyValues(_ conninfo: String) -> (String, [String]) {
        let pattern = #"((?<![A-Za-z0-9_])password\s*=\s*)('(?:[^'\\]|\\.)*'|(?:[^\s'\\]|\\.)(?:[^\s\\]|\\.)*)"#
        guard let expression = try? NSRegularExpression(pattern: pattern, options: [.caseInsensitive]) else {
            return ("<the --db value>", [conninfo])
        }
        let whole = NSRange(conninfo.startIndex..., in: conninfo)
        var secrets: [String] = []
        for match in expression.matches(in: conninfo, range: whole) {
            if let range = Range(match.range(at: 2), in: conninfo) {
                let value = String(conninfo[range])
                secrets.append(value)
                if value.contains("\\"), !value.hasPrefix("'") {
                    secrets.append(value.replacingOccurrences(of: #"\\(.)"#, with: "$1", options: .regularExpression))
                }
                if value.hasPrefix("'"), value.hasSuffix("'"), value.count >= 2 {
                    let inner = String(value.dropFirst().dropLast())
                    secrets.append(inner)
                    secrets.append(
                        inner.replacingOccurrences(of: #"\'"#, with: "'")
                            .replacingOccurrences(of: #"\\"#, with: #"\"#))
                }
            }
        }
        let redacted = expression.stringByReplacingMatches(
            in: conninfo, range: whole, withTemplate: "$1***")
        return (redacted, secrets)
    }

    private static func spellings(of password: String) -> [String] {
        guard let decoded = password.removingPercentEncoding, decoded != password else { return [password] }
        return [password, decoded]
    }
}
