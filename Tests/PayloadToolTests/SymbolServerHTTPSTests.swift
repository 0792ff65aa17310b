import Foundation
import TestSupport
import Testing

/// A symbol server over https: nginx on 127.0.0.1 with a certificate that a CA made for the test
/// signed. The built tool fetches from it when the environment names that CA, as curl reads it
/// (`CURL_CA_BUNDLE`, else `SSL_CERT_FILE`; `SSL_CERT_DIR`), and refuses it otherwise: a warning
/// naming the server and what is wrong with its certificate, exit 0, nothing stored.
@Suite(.serialized) struct SymbolServerHTTPSTests {
    static let sampleStore = SymbolServerTests.sampleStore
    static let sampleRows = SymbolServerTests.sampleRows
    static let sampleUUID = SymbolServerTests.sampleUUID

    /// The variables that choose whom https trusts. A machine may set them for every process (this
    /// one sets all three), so each run starts with none of them and sets only its own.
    static let trustVariables = ["CURL_CA_BUNDLE", "SSL_CERT_FILE", "SSL_CERT_DIR"]

    /// The built tool run as a user runs it, with exactly `trust` of those variables set.
    static func run(_ arguments: [String], trust: [String: String]) throws -> (status: Int32, stdout: String, stderr: String) {
        let unset = trustVariables.flatMap { ["-u", $0] }
        let set = trust.sorted { $0.key < $1.key }.map { "\($0.key)=\($0.value)" }
        let run = try ToolBinary.run(
            unset + set + [try ToolBinary.executable().path] + arguments, executable: URL(fileURLWithPath: "/usr/bin/env"))
        return (run.status, run.stdout, ToolBinary.messages(run.stderr))
    }

    /// What a run left in `store` besides the bookkeeping every run writes.
    static func keptFiles(_ store: URL) -> [String] {
        ((try? FileManager.default.subpathsOfDirectory(atPath: store.path)) ?? []).filter {
            !$0.hasPrefix(".locks") && !$0.hasPrefix(".symbol-server-misses") && $0 != ".uuid-index.json"
        }
    }

    /// A running https server of the samples' export, and the certificates around it.
    static func samplesServer() throws -> (server: TestSymbolServer, certificates: ThrowawayCertificates) {
        let certificates = try ThrowawayCertificates()
        let signed = try certificates.serverCertificate(subjectAltName: "IP:127.0.0.1")
        let server = try TestSymbolServer(
            .nginxHTTPS(certificate: signed.certificate, key: signed.key), serving: try SymbolServerInputs.export(sampleStore))
        return (server, certificates)
    }

    @Test func aServerSignedByTheNamedCAIsTrusted() throws {
        let (server, certificates) = try Self.samplesServer()
        let expected = ToolRun.run(["top", "--json", "--dsyms", Self.sampleStore.path, Self.sampleRows.path])
        #expect(expected.status == 0)
        let authority = certificates.authority.path
        let unrelated = try certificates.unrelatedAuthority().path
        let trusting: [(what: String, trust: [String: String])] = [
            ("CURL_CA_BUNDLE, which comes before SSL_CERT_FILE", ["CURL_CA_BUNDLE": authority, "SSL_CERT_FILE": unrelated]),
            ("SSL_CERT_FILE", ["SSL_CERT_FILE": authority]),
            ("SSL_CERT_DIR", ["SSL_CERT_DIR": try certificates.hashedFolder().path]),
            ("an empty CURL_CA_BUNDLE, taken as unset", ["CURL_CA_BUNDLE": "", "SSL_CERT_FILE": authority]),
        ]
        for (what, trust) in trusting {
            let empty = try SymbolServerInputs.scratchFolder("https-store")
            defer { try? FileManager.default.removeItem(at: empty) }
            let run = try Self.run(["top", "--json", "--dsyms", empty.path, "--symbol-server", server.url, Self.sampleRows.path], trust: trust)
            #expect(run.status == 0, "\(what): \(run.stderr)")
            #expect(run.stdout == expected.stdout, "\(what)")
            #expect(!run.stderr.contains("symbol server"), "\(what): \(run.stderr)")
            #expect(Self.keptFiles(empty).contains { $0.contains(Self.sampleUUID) }, "\(what): \(Self.keptFiles(empty))")
        }
        // One download of the app's debug file per run, each over https.
        #expect(server.requests.filter { $0.hasSuffix(" 200") }.count == trusting.count, "\(server.requests)")
    }

    @Test func aServerTheEnvironmentDoesNotTrustIsRefused() throws {
        let (server, certificates) = try Self.samplesServer()
        let unnamed = ToolRun.run(["top", "--dsyms", try SymbolServerInputs.scratchFolder("no-server").path, Self.sampleRows.path])
        let emptyFile = certificates.folder.appendingPathComponent("empty.pem")
        try Data().write(to: emptyFile)
        // The certificate is for 127.0.0.1 alone: asked for as localhost, the trusted CA's
        // certificate still fails the check of the name.
        let otherName = "https://localhost:\(server.port)"
        let refusals: [(what: String, url: String, trust: [String: String], problem: String)] = [
            ("an unrelated CA", server.url, ["CURL_CA_BUNDLE": try certificates.unrelatedAuthority().path], "SSL certificate problem"),
            ("an empty CA file", server.url, ["SSL_CERT_FILE": emptyFile.path], "error setting certificate file: \(emptyFile.path)"),
            ("none of the variables (the system's CAs)", server.url, [:], "SSL certificate problem"),
            (
                "the trusted CA, another name", otherName, ["CURL_CA_BUNDLE": certificates.authority.path],
                "SSL: no alternative certificate subject name matches"
            ),
        ]
        for (what, url, trust, problem) in refusals {
            let empty = try SymbolServerInputs.scratchFolder("refused-https-store")
            defer { try? FileManager.default.removeItem(at: empty) }
            let run = try Self.run(["top", "--dsyms", empty.path, "--symbol-server", url, Self.sampleRows.path], trust: trust)
            #expect(run.status == 0, "\(what): \(run.stderr)")
            #expect(run.stderr.contains("warning: symbol server \(url): \(Self.sampleUUID): \(problem)"), "\(what): \(run.stderr)")
            #expect(run.stderr.contains("the server is not asked again in this run"), "\(what): \(run.stderr)")
            #expect(run.stdout == unnamed.stdout, "\(what): the frames stay as without a server")
            let kept = Self.keptFiles(empty)
            #expect(kept.allSatisfy { !$0.contains(Self.sampleUUID) && !$0.hasPrefix(".fetch-") }, "\(what): \(kept)")
        }
        // No request got past a refused handshake.
        #expect(server.requests.isEmpty, "\(server.requests)")
    }
}

/// A CA made for one test and the certificates it signs, written by Debian's `openssl` into a
/// scratch folder that goes when the test is done (P-256 keys: made in milliseconds, valid for two
/// days).
final class ThrowawayCertificates {
    let folder: URL
    /// The CA's certificate (PEM), what a user's `CURL_CA_BUNDLE` would name.
    var authority: URL { folder.appendingPathComponent("ca.pem") }

    init() throws {
        folder = try SymbolServerInputs.scratchFolder("certificates")
        try selfSigned(name: "ca", subject: "/CN=yui-perf throwaway test CA")
    }

    deinit { try? FileManager.default.removeItem(at: folder) }

    /// A server certificate with `subjectAltName` (`IP:127.0.0.1`) signed by the CA, and its key.
    func serverCertificate(subjectAltName: String) throws -> (certificate: URL, key: URL) {
        let key = folder.appendingPathComponent("server.key")
        let request = folder.appendingPathComponent("server.csr")
        let certificate = folder.appendingPathComponent("server.pem")
        let extensions = folder.appendingPathComponent("server.ext")
        try "subjectAltName=\(subjectAltName)\nextendedKeyUsage=serverAuth\n".write(to: extensions, atomically: true, encoding: .utf8)
        try Self.openssl(["req", "-new"] + Self.newKey + ["-keyout", key.path, "-out", request.path, "-subj", "/CN=yui-perf test server"])
        try Self.openssl([
            "x509", "-req", "-in", request.path, "-CA", authority.path, "-CAkey", folder.appendingPathComponent("ca.key").path,
            "-CAcreateserial", "-days", "2", "-extfile", extensions.path, "-out", certificate.path,
        ])
        return (certificate, key)
    }

    /// A second CA that signed nothing the server has.
    func unrelatedAuthority() throws -> URL {
        try selfSigned(name: "unrelated", subject: "/CN=yui-perf unrelated test CA")
        return folder.appendingPathComponent("unrelated.pem")
    }

    /// A folder holding the CA under its hash name, as `SSL_CERT_DIR` (libcurl's CAPATH) needs it.
    func hashedFolder() throws -> URL {
        let hashed = folder.appendingPathComponent("hashed")
        try FileManager.default.createDirectory(at: hashed, withIntermediateDirectories: true)
        try FileManager.default.copyItem(at: authority, to: hashed.appendingPathComponent("ca.pem"))
        try Self.openssl(["rehash", hashed.path])
        return hashed
    }

    private static let newKey = ["-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:prime256v1", "-nodes"]

    private func selfSigned(name: String, subject: String) throws {
        try Self.openssl(
            ["req", "-x509"] + Self.newKey + [
                "-keyout", folder.appendingPathComponent("\(name).key").path, "-out", folder.appendingPathComponent("\(name).pem").path,
                "-days", "2", "-subj", subject, "-addext", "basicConstraints=critical,CA:TRUE", "-addext", "keyUsage=critical,keyCertSign",
            ])
    }

    private static func openssl(_ arguments: [String]) throws {
        let run = try ToolBinary.run(arguments, executable: URL(fileURLWithPath: "/usr/bin/openssl"))
        guard run.status == 0 else {
            throw TestSymbolServer.ServerFailure(description: "openssl \(arguments.joined(separator: " ")): \(run.stderr)")
        }
    }
}
