import Foundation

/// What a MetricKit measurement string measures.
enum UnitDimension: String {
    case duration, size, ratio, other
}

/// A `"<number> <unit>"` string from a payload, read by hand (no NumberFormatter): thousands
/// separators dropped, an optional fraction kept, the unit mapped through the spellings of
/// research/metrickit-format.md section 1.
struct MeasurementReading: Equatable {
    var number: Double
    var unit: String
    var dimension: UnitDimension
    /// Multiplier to the dimension's base unit: seconds, bytes, or ms per s.
    var toBase: Double

    var seconds: Double? { dimension == .duration ? number * toBase : nil }
    var milliseconds: Double? { dimension == .duration ? number * toBase * 1000 : nil }
    /// MB of 2^20 bytes.
    var megabytes: Double? { dimension == .size ? number * toBase / 1_048_576 : nil }
    var millisecondsPerSecond: Double? { dimension == .ratio ? number * toBase : nil }
}

enum MeasurementError: Error, Equatable {
    case notAMeasurement(String)
    case unknownUnit(String)
    case outOfRange(String)

    var message: String {
        switch self {
        case .notAMeasurement(let text): return "\(InputText.quoted(text)) is not a \"<number> <unit>\" measurement"
        case .unknownUnit(let unit): return "unknown unit \(InputText.quoted(unit))"
        case .outOfRange(let text): return "\(InputText.quoted(text)) is out of range"
        }
    }
}

enum MeasurementParser {
    /// Unit spellings, with their dimension and factor to the base unit. iOS 13/14 printed units
    /// in the device's language (`秒`, `毫秒`, `千字节`); later systems print the unit as created.
    static let units: [String: (UnitDimension, Double)] = [
        "ms": (.duration, 0.001), "msec": (.duration, 0.001), "msecs": (.duration, 0.001), "毫秒": (.duration, 0.001),
        "µs": (.duration, 1e-6), "μs": (.duration, 1e-6), "微秒": (.duration, 1e-6),
        "s": (.duration, 1), "sec": (.duration, 1), "secs": (.duration, 1), "sec.": (.duration, 1),
        "secs.": (.duration, 1), "second": (.duration, 1), "seconds": (.duration, 1), "秒": (.duration, 1),
        "min": (.duration, 60), "mins": (.duration, 60), "min.": (.duration, 60), "分钟": (.duration, 60),
        "h": (.duration, 3600), "hr": (.duration, 3600), "hrs": (.duration, 3600), "小时": (.duration, 3600),
        "byte": (.size, 1), "bytes": (.size, 1), "B": (.size, 1), "字节": (.size, 1),
        // MetricKit's kB are KiB (PowerLog shifts bytes right by 10), and MB are MiB.
        "kB": (.size, 1024), "KB": (.size, 1024), "KiB": (.size, 1024), "千字节": (.size, 1024),
        "MB": (.size, 1_048_576), "MiB": (.size, 1_048_576), "兆字节": (.size, 1_048_576),
        "GB": (.size, 1_073_741_824), "GiB": (.size, 1_073_741_824), "吉字节": (.size, 1_073_741_824),
        "ms per s": (.ratio, 1), "ms/s": (.ratio, 1), "毫秒/秒": (.ratio, 1),
        "kiloinstructions": (.other, 1), "bars": (.other, 1), "apl": (.other, 1),
    ]

    /// `units` of at most 16 UTF-8 bytes packed into two words, so a unit is found by comparing
    /// integers before any String is made or hashed (every histogram bucket has two measurements;
    /// a `memcmp` per unit of the same length was a fifth of reading one). The units MetricKit
    /// writes today come first; the dictionary stays the rule.
    static let packedUnits: [(low: UInt64, high: UInt64, length: Int, unit: String, dimension: UnitDimension, factor: Double)] = {
        let first = ["ms", "s", "kB", "MB", "ms per s", "kiloinstructions", "bars", "apl", "GB", "B", "bytes", "µs", "min", "h"]
        let order = first + units.keys.sorted().filter { !first.contains($0) }
        return order.compactMap { unit in
            let bytes = Array(unit.utf8)
            guard let packed = bytes.withUnsafeBufferPointer(pack), let (dimension, factor) = units[unit] else { return nil }
            return (packed.low, packed.high, bytes.count, unit, dimension, factor)
        }
    }()

    /// Up to 16 bytes as two little-endian words, zero-padded; nil for more.
    @inline(__always) static func pack(_ bytes: UnsafeBufferPointer<UInt8>) -> (low: UInt64, high: UInt64)? {
        guard bytes.count <= 16 else { return nil }
        var words: (UInt64, UInt64) = (0, 0)
        withUnsafeMutableBytes(of: &words) { words in
            for k in 0..<bytes.count { words[k] = bytes[k] }
        }
        return (words.0, words.1)
    }

    /// Largest magnitude accepted for any measurement: far above anything real, far below where
    /// a `real` column or an Int conversion would misbehave.
    static let limit = 1e15

    static func parse(_ bytes: UnsafeBufferPointer<UInt8>) -> Result<MeasurementReading, MeasurementError> {
        if let reading = plainReading(bytes) { return .success(reading) }
        // The digits are gathered on the stack and the input's text is made only for a message:
        // every histogram bucket has two measurements, and their allocations were most of the time.
        return withUnsafeTemporaryAllocation(of: UInt8.self, capacity: bytes.count + 1) { digits in
            parse(bytes, digits: digits)
        }
    }

    /// The form nearly every measurement has, 1 to 15 digits, a space and a known unit (`250 ms`),
    /// read without gathering its digits; nil for anything else, which `parse` reads in full
    /// (with the same result for this form).
    @inline(__always) private static func plainReading(_ bytes: UnsafeBufferPointer<UInt8>) -> MeasurementReading? {
        var value: UInt64 = 0
        var i = 0
        while i < bytes.count, i < 15, bytes[i] &- 0x30 < 10 {
            value = value * 10 + UInt64(bytes[i] &- 0x30)
            i += 1
        }
        guard i > 0, i < bytes.count, bytes[i] == 0x20 else { return nil }
        let unitText = unitSpan(bytes, from: i)
        guard let packed = pack(unitText) else { return nil }
        for entry in packedUnits where entry.low == packed.low && entry.high == packed.high && entry.length == unitText.count {
            return MeasurementReading(number: Double(value), unit: entry.unit, dimension: entry.dimension, toBase: entry.factor)
        }
        return nil
    }

    private static func parse(
        _ bytes: UnsafeBufferPointer<UInt8>, digits: UnsafeMutableBufferPointer<UInt8>
    ) -> Result<MeasurementReading, MeasurementError> {
        var i = 0
        while i < bytes.count, bytes[i] == 0x20 { i += 1 }
        // The number: digits, grouping commas, one decimal point, an optional sign and exponent.
        var digitCount = 0
        @inline(__always) func keep(_ c: UInt8) {
            digits[digitCount] = c
            digitCount += 1
        }
        if i < bytes.count, bytes[i] == UInt8(ascii: "-") || bytes[i] == UInt8(ascii: "+") {
            if bytes[i] == UInt8(ascii: "-") { keep(bytes[i]) }
            i += 1
        }
        var sawDigit = false
        var sawPoint = false
        while i < bytes.count {
            let c = bytes[i]
            if c >= 0x30 && c <= 0x39 {
                keep(c)
                sawDigit = true
            } else if c == UInt8(ascii: ",") && sawDigit && !sawPoint && i + 1 < bytes.count
                && bytes[i + 1] >= 0x30 && bytes[i + 1] <= 0x39
            {
                // grouping separator (groups of 3, or 2 in en_IN): always between digits, so
                // "1,2,,3 kB" and "12, kB" are refused instead of read as 123 and 12
            } else if c == UInt8(ascii: ".") && !sawPoint && sawDigit {
                sawPoint = true
                keep(c)
            } else if (c == UInt8(ascii: "e") || c == UInt8(ascii: "E")) && sawDigit, i + 1 < bytes.count,
                bytes[i + 1] >= 0x30 && bytes[i + 1] <= 0x39 || bytes[i + 1] == UInt8(ascii: "-") || bytes[i + 1] == UInt8(ascii: "+")
            {
                keep(c)
                i += 1
                keep(bytes[i])
                i += 1
                while i < bytes.count, bytes[i] >= 0x30 && bytes[i] <= 0x39 {
                    keep(bytes[i])
                    i += 1
                }
                break
            } else {
                break
            }
            i += 1
        }
        func text() -> String { String(decoding: bytes, as: UTF8.self) }
        if digitCount > 0, digits[digitCount - 1] == UInt8(ascii: ".") { digitCount -= 1 }
        let number = UnsafeBufferPointer(rebasing: digits[..<digitCount])
        guard sawDigit, let value = parseDouble(number) else {
            return .failure(.notAMeasurement(text()))
        }
        guard value.isFinite, abs(value) <= limit else { return .failure(.outOfRange(text())) }
        // `1.0e-400` is not zero, but a Double makes it zero: say so rather than store 0.
        if value == 0,
            number.prefix(while: { $0 != UInt8(ascii: "e") && $0 != UInt8(ascii: "E") })
                .contains(where: { $0 >= UInt8(ascii: "1") && $0 <= UInt8(ascii: "9") })
        {
            return .failure(.outOfRange(text()))
        }
        let unitText = unitSpan(bytes, from: i)
        if let packed = pack(unitText) {
            for entry in packedUnits where entry.low == packed.low && entry.high == packed.high && entry.length == unitText.count {
                return .success(MeasurementReading(number: value, unit: entry.unit, dimension: entry.dimension, toBase: entry.factor))
            }
        }
        let unit = String(decoding: unitText, as: UTF8.self)
        guard !unit.isEmpty else { return .failure(.notAMeasurement(text())) }
        guard let (dimension, factor) = units[unit] else { return .failure(.unknownUnit(unit)) }
        return .success(MeasurementReading(number: value, unit: unit, dimension: dimension, toBase: factor))
    }

    /// The unit: the bytes from `start` on, trimmed of spaces (also the no-break spaces some
    /// locales use before a unit).
    private static func unitSpan(_ bytes: UnsafeBufferPointer<UInt8>, from start: Int) -> UnsafeBufferPointer<UInt8> {
        var low = start
        var high = bytes.count
        while low < high {
            if bytes[low] == 0x20 {
                low += 1
            } else if high - low >= 2, bytes[low] == 0xC2, bytes[low + 1] == 0xA0 {
                low += 2
            } else if high - low >= 3, bytes[low] == 0xE2, bytes[low + 1] == 0x80, bytes[low + 2] == 0xAF {
                low += 3
            } else {
                break
            }
        }
        while high > low, bytes[high - 1] == 0x20 { high -= 1 }
        return UnsafeBufferPointer(rebasing: bytes[low..<high])
    }

    static func parse(_ text: String) -> Result<MeasurementReading, MeasurementError> {
        var text = text
        return text.withUTF8 { parse($0) }
    }
}
