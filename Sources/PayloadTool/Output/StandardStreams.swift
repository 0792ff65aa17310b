import Foundation
import SystemIO

/// A `TextOutputStream` over a file descriptor that buffers writes, because row and frame output
/// is written in many small pieces and one `write(2)` per piece would dominate the run time.
///
/// A write that fails is not ignored: a closed pipe (`EPIPE`, `payload-tool rows ... | head -1`)
/// ends the run at once as `SIGPIPE` would; any other error (a full disk, `/dev/full`) is kept in
/// `failure`, later output is dropped, and the executable reports it and exits 1.
public final class FileDescriptorOutput: TextOutputStream, ByteOutputStream {
    private let descriptor: Int32
    /// What the stream is called in messages, e.g. `standard output`.
    public let name: String
    private var buffer: [UInt8] = []
    private let flushThreshold = 1 << 16
    /// The first write error, as `standard output: No space left on device`.
    public private(set) var failure: String?

    public init(descriptor: Int32, name: String = "standard output") {
        self.descriptor = descriptor
        self.name = name
        buffer.reserveCapacity(flushThreshold)
    }

    public func write(_ string: String) {
        guard failure == nil else { return }
        var string = string
        string.withUTF8 { buffer.append(contentsOf: $0) }
        if buffer.count >= flushThreshold { flush() }
    }

    public func write(bytes: UnsafeRawBufferPointer) {
        guard failure == nil else { return }
        // A block as large as the buffer (callers that buffer their own output write 64 KB at a
        // time) goes out as it is: copying it into the buffer first was a memcpy of the whole output.
        if buffer.isEmpty, bytes.count >= flushThreshold {
            writeAll(bytes)
            return
        }
        buffer.append(contentsOf: bytes)
        if buffer.count >= flushThreshold { flush() }
    }

    public func flush() {
        buffer.withUnsafeBytes { writeAll($0) }
        buffer.removeAll(keepingCapacity: true)
    }

    private func writeAll(_ bytes: UnsafeRawBufferPointer) {
        var start = 0
        while start < bytes.count, failure == nil {
            switch FileIO.write(descriptor, UnsafeRawBufferPointer(rebasing: bytes[start...])) {
            case .success(0):
                failure = "\(name): cannot write: nothing was written"
            case .success(let written):
                start += written
            case .failure(let error):
                if error.code == EPIPE { TemporaryFiles.endOnBrokenPipe() }
                failure = FileError(path: name, action: "cannot write", errno: error).description
            }
        }
    }

    deinit { flush() }
}

/// Lets the executable pass a class-backed stream where `run` takes `inout some TextOutputStream`.
public struct StreamReference<Target: TextOutputStream & AnyObject>: TextOutputStream {
    public var target: Target
    public init(_ target: Target) { self.target = target }
    public mutating func write(_ string: String) { target.write(string) }
}

/// A stream that also takes UTF-8 bytes as they are: output made as bytes skips the `String` a
/// `write` needs (making one from a 64 KB block validated and copied it, a twentieth of a warm run).
/// Conformers write to a shared target (a class, or a reference to one): `writeUTF8` writes
/// through the copy a cast makes.
public protocol ByteOutputStream {
    mutating func write(bytes: UnsafeRawBufferPointer)
}

extension StreamReference: ByteOutputStream where Target: ByteOutputStream {
    public mutating func write(bytes: UnsafeRawBufferPointer) { target.write(bytes: bytes) }
}

/// Writes `bytes` (UTF-8) to `stream`: as they are when it takes bytes, else as a `String`.
func writeUTF8(_ bytes: UnsafeRawBufferPointer, to stream: inout some TextOutputStream) {
    if var direct = stream as? any ByteOutputStream {
        direct.write(bytes: bytes)
    } else {
        stream.write(String(decoding: bytes, as: UTF8.self))
    }
}
