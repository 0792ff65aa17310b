/// How numbers and strings are spelled in every output format (and in the canonical form).

/// Numbers as the output formats print them: shortest text that reads back to the same Double,
/// integers without a fraction.
enum NumberText {
    static func shortest(_ value: Double) -> String {
        if value == value.rounded(.towardZero) && abs(value) < 1e15 {
            return String(Int64(value))
        }
        return value.description
    }
}

/// The decimal digits of an unsigned number, made without a String or an array (a number per
/// field of a million rows, or per frame of a million answers).
public enum DecimalDigits {
    /// Calls `body` with the digits of `magnitude`, most significant first.
    // Inlinable: called from other modules, a generic function that is not is run unspecialized
    // (its closure and `withUnsafeMutableBytes` through the runtime), a tenth of a warm batch.
    @inlinable @inline(__always)
    public static func with<Result>(_ magnitude: UInt64, _ body: (UnsafeRawBufferPointer) -> Result) -> Result {
        var rest = magnitude
        var digits: (UInt64, UInt64, UInt64) = (0, 0, 0)  // 24 bytes: room for 20 digits
        return withUnsafeMutableBytes(of: &digits) { buffer in
            var position = buffer.count
            repeat {
                position -= 1
                buffer[position] = UInt8(ascii: "0") + UInt8(rest % 10)
                rest /= 10
            } while rest > 0
            return body(UnsafeRawBufferPointer(rebasing: buffer[position...]))
        }
    }
}

enum JSONText {
    /// Appends UTF-8 `content` escaped for a JSON string (quotes not included).
    static func appendEscaped(_ content: some Sequence<UInt8>, to out: inout [UInt8]) {
        let hex = Array("0123456789abcdef".utf8)
        for c in content {
            switch c {
            case UInt8(ascii: "\""): out.append(contentsOf: [0x5c, 0x22])
            case UInt8(ascii: "\\"): out.append(contentsOf: [0x5c, 0x5c])
            case 0x0a: out.append(contentsOf: [0x5c, UInt8(ascii: "n")])
            case 0x0d: out.append(contentsOf: [0x5c, UInt8(ascii: "r")])
            case 0x09: out.append(contentsOf: [0x5c, UInt8(ascii: "t")])
            case 0..<0x20:
                out.append(contentsOf: [0x5c, UInt8(ascii: "u"), 0x30, 0x30, hex[Int(c >> 4)], hex[Int(c & 0x0f)]])
            default: out.append(c)
            }
        }
    }
}
