import Foundation
import TestSupport

/// A symbol server the tests start on 127.0.0.1 and stop at the end: Python's http.server (the
/// script in Tests/Fixtures/symbol-server, serving a folder or answering with one fault) or nginx
/// with a configuration of the test's own (never the package's service), over http or https.
final class TestSymbolServer {
    enum Kind {
        case python(mode: String)
        case nginx
        /// nginx over https with this certificate (PEM) and its key.
        case nginxHTTPS(certificate: URL, key: URL)
    }

    let scratch: URL
    let port: Int
    let logFile: URL
    private let process: Process
    private let scheme: String

    var url: String { "\(scheme)://127.0.0.1:\(port)" }

    init(_ kind: Kind, serving folder: URL) throws {
        scratch = FileManager.default.temporaryDirectory.appendingPathComponent("yui-symbol-server-" + UUID().uuidString)
        try FileManager.default.createDirectory(at: scratch, withIntermediateDirectories: true)
        logFile = scratch.appendingPathComponent("requests.log")
        FileManager.default.createFile(atPath: logFile.path, contents: Data())
        process = Process()
        process.standardOutput = FileHandle.nullDevice
        process.standardError = FileHandle.nullDevice
        if case .nginxHTTPS = kind { scheme = "https" } else { scheme = "http" }
        switch kind {
        case .python(let mode):
            let portFile = scratch.appendingPathComponent("port")
            process.executableURL = URL(fileURLWithPath: "/usr/bin/python3")
            process.arguments = [
                Repository.testFixtures.appendingPathComponent("symbol-server/server.py").path, mode, folder.path, portFile.path, logFile.path,
            ]
            try process.run()
            port = try Self.waitForPortFile(portFile)
        case .nginx, .nginxHTTPS:
            port = try Self.freePort()
            var listenDirectives = "listen 127.0.0.1:\(port);"
            if case .nginxHTTPS(let certificate, let key) = kind {
                listenDirectives = "listen 127.0.0.1:\(port) ssl; ssl_certificate \(certificate.path); ssl_certificate_key \(key.path);"
            }
            for name in ["tmp", "logs"] {
                try FileManager.default.createDirectory(at: scratch.appendingPathComponent(name), withIntermediateDirectories: true)
            }
            let temporary = scratch.appendingPathComponent("tmp").path
            let configuration = """
                daemon off;
                master_process off;
                worker_processes 1;
                pid \(scratch.path)/nginx.pid;
                error_log \(scratch.path)/logs/error.log;
                events { worker_connections 256; }
                http {
                    log_format requests '$request_method $uri $status';
                    access_log \(logFile.path) requests;
                    client_body_temp_path \(temporary);
                    proxy_temp_path \(temporary);
                    fastcgi_temp_path \(temporary);
                    uwsgi_temp_path \(temporary);
                    scgi_temp_path \(temporary);
                    server {
                        \(listenDirectives)
                        root \(folder.path);
                        location / { }
                    }
                }
                """
            let file = scratch.appendingPathComponent("nginx.conf")
            try configuration.write(to: file, atomically: true, encoding: .utf8)
            process.executableURL = URL(fileURLWithPath: "/usr/sbin/nginx")
            process.arguments = ["-p", scratch.path, "-c", file.path, "-e", scratch.appendingPathComponent("logs/error.log").path]
            try process.run()
            try Self.waitForListener(port)
        }
    }

    /// Stops the server (and waits for it), keeping its log.
    func stop() {
        // SIGKILL: a process started by a test in this process may inherit SIGTERM blocked (the
        // in-process runs' temporary-file cleanup takes it over), and then would never stop.
        if process.isRunning {
            kill(process.processIdentifier, SIGKILL)
            process.waitUntilExit()
        }
    }

    deinit {
        stop()
        try? FileManager.default.removeItem(at: scratch)
    }

    /// The requests served, one `METHOD PATH STATUS` each.
    var requests: [String] {
        ((try? String(contentsOf: logFile, encoding: .utf8)) ?? "").split(separator: "\n").map(String.init)
    }

    private static func waitForPortFile(_ file: URL) throws -> Int {
        for _ in 0..<500 {
            if let text = try? String(contentsOf: file, encoding: .utf8), let port = Int(text) { return port }
            Thread.sleep(forTimeInterval: 0.01)
        }
        throw ServerFailure(description: "the test server wrote no port to \(file.path)")
    }

    private static func freePort() throws -> Int {
        let probe = Process()
        let pipe = Pipe()
        probe.executableURL = URL(fileURLWithPath: "/usr/bin/python3")
        probe.arguments = ["-c", "import socket; s = socket.socket(); s.bind(('127.0.0.1', 0)); print(s.getsockname()[1])"]
        probe.standardOutput = pipe
        try probe.run()
        probe.waitUntilExit()
        let text = String(decoding: pipe.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        guard let port = Int(text.trimmingCharacters(in: .whitespacesAndNewlines)) else {
            throw ServerFailure(description: "no free port: \(text)")
        }
        return port
    }

    private static func waitForListener(_ port: Int) throws {
        for _ in 0..<500 {
            let probe = Process()
            probe.executableURL = URL(fileURLWithPath: "/usr/bin/python3")
            probe.arguments = ["-c", "import socket; socket.create_connection(('127.0.0.1', \(port)), 1).close()"]
            probe.standardError = FileHandle.nullDevice
            try probe.run()
            probe.waitUntilExit()
            if probe.terminationStatus == 0 { return }
            Thread.sleep(forTimeInterval: 0.02)
        }
        throw ServerFailure(description: "nginx did not listen on 127.0.0.1:\(port)")
    }

    struct ServerFailure: Error, CustomStringConvertible {
        var description: String
    }
}

/// Stores and inputs the symbol-server tests share.
enum SymbolServerInputs {
    static func scratchFolder(_ name: String) throws -> URL {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("yui-\(name)-" + UUID().uuidString)
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        return folder
    }

    /// The real Apple dSYMs of dsyms-fixtures/real imported as build 7, and hang rows whose stacks
    /// are five of each slice's checked addresses.
    static func realStoreAndRows() throws -> (store: URL, rows: URL) {
        let scratch = try scratchFolder("real-store")
        let store = scratch.appendingPathComponent("store")
        let real = Repository.dsymsFixtures.appendingPathComponent("real")
        let imported = ToolRun.run(["dsyms", "import", "--dsyms", store.path, "--build", "7", real.path])
        guard imported.status == 0 else { throw TestSymbolServer.ServerFailure(description: "import failed: \(imported.stderr)") }
        struct Slice: Decodable {
            var uuid: String
            var expected: String
            var text_vmaddr: String
        }
        struct Entry: Decodable {
            var name: String
            var slices: [Slice]
        }
        let entries = try JSONDecoder().decode([Entry].self, from: Data(contentsOf: real.appendingPathComponent("manifest.json")))
        var lines: [String] = []
        for entry in entries {
            for slice in entry.slices {
                let addresses = try String(contentsOf: real.appendingPathComponent("expected/\(slice.expected).addresses"), encoding: .utf8)
                    .split(separator: "\n").compactMap { UInt64($0.dropFirst(2), radix: 16) }
                let base = UInt64(slice.text_vmaddr.dropFirst(2), radix: 16) ?? 0
                let inImage = addresses.filter { $0 >= base }.prefix(5)
                guard !inImage.isEmpty else { continue }
                let frames = inImage.map { "{\"image\":\"\(entry.name)\",\"uuid\":\"\(slice.uuid)\",\"offset\":\($0 - base)}" }
                let key = String(format: "00000000-0000-5000-8000-%012d", lines.count + 1)
                lines.append(
                    """
                    {"user_id":"0b9c7d3e-1f2a-4b5c-8d6e-7f8091a2b3c4","row_key":"\(key)","kind":"diagnostic","name":"hang","app_build":7,\
                    "app_version":"1.0","os":"26.1","device":"iPhone16,2","promotion":true,"low_power":false,"thermal":0,\
                    "period_start":"2026-11-28T13:17:00Z","period_end":"2026-11-28T13:17:00Z","n":1,"buckets":null,"p50":null,\
                    "p95":null,"max":null,"value":\(lines.count + 1).0,"stack":[\(frames.joined(separator: ","))]}
                    """)
            }
        }
        let rows = scratch.appendingPathComponent("rows.jsonl")
        try (lines.joined(separator: "\n") + "\n").write(to: rows, atomically: true, encoding: .utf8)
        return (store, rows)
    }

    /// `dsyms export --layout debuginfod` of `store` into a new folder.
    static func export(_ store: URL) throws -> URL {
        let folder = try scratchFolder("export")
        let run = ToolRun.run(["dsyms", "export", "--layout", "debuginfod", "--dsyms", store.path, folder.path])
        guard run.status == 0 else { throw TestSymbolServer.ServerFailure(description: "export failed: \(run.stderr)") }
        return folder
    }
}
