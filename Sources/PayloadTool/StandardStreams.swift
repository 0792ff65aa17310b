import Foundation

/// A `TextOutputStream` over a file descriptor that buffers writes, because row and frame output
/// is written in many small pieces and one `write(2)` per piece would dominate the run time.
public final class FileDescriptorOutput: TextOutputStream {
    private let descriptor: Int32
    private var buffer: [UInt8] = []
    private let flushThreshold = 1 << 16

    public init(descriptor: Int32) {
        self.descriptor = descriptor
        buffer.reserveCapacity(flushThreshold)
    }

    public func write(_ string: String) {
        var string = string
        string.withUTF8 { buffer.append(contentsOf: $0) }
        if buffer.count >= flushThreshold { flush() }
    }

    public func flush() {
        var start = 0
        buffer.withUnsafeBytes { bytes in
            while start < bytes.count {
                let written = Foundation.write(descriptor, bytes.baseAddress! + start, bytes.count - start)
                if written <= 0 {
                    if written < 0 && errno == EINTR { continue }
                    break  // The reader went away (EPIPE); dropping output is all that is left to do.
                }
                start += written
            }
        }
        buffer.removeAll(keepingCapacity: true)
    }

    deinit { flush() }
}

/// Lets the executable pass a class-backed stream where `run` takes `inout some TextOutputStream`.
public struct StreamReference<Target: TextOutputStream & AnyObject>: TextOutputStream {
    public var target: Target
    public init(_ target: Target) { self.target = target }
    public mutating func write(_ string: String) { target.write(string) }
}
