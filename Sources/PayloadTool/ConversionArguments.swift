import Foundation
import PayloadDecode

/// The flags that shape how payload dumps become rows (`--user`, `--timezone`, `--promotion`), shared
/// by every command that converts dumps, so `rows`, `load` and `top` accept the same values and derive
/// the same row keys from them.
enum ConversionArguments {
    static let options: [OptionSpec] = [
        .value("--user"), .value("--timezone"), .value("--promotion"), .value("--period-start"), .value("--period-end"),
    ]

    static func conversionOptions(from parsed: CommandArguments) throws(UsageError) -> ConversionOptions {
        var conversion = ConversionOptions()
        if let user = parsed.value("--user") {
            // One canonical form (lower-case 8-4-4-4-12): the user is part of every row key.
            guard let canonical = ColumnPatterns.userUUID(user) else {
                throw UsageError(message: "Invalid value '\(user)' for '--user': not a UUID.")
            }
            conversion.userID = canonical
        }
        if let zone = parsed.value("--timezone") {
            guard let timeZone = timeZone(zone) else {
                throw UsageError(message: "Invalid value '\(zone)' for '--timezone': an IANA name (Europe/Berlin) or +HH:MM.")
            }
            conversion.timeZone = timeZone
        }
        if let promotion = parsed.value("--promotion") {
            switch promotion {
            case "on": conversion.promotionOverride = true
            case "off": conversion.promotionOverride = false
            default: throw UsageError(message: "Invalid value '\(promotion)' for '--promotion' (on or off).")
            }
        }
        // The period of single diagnostics without timestamps, read in the --timezone zone.
        func time(_ option: String) throws(UsageError) -> Int64? {
            guard let text = parsed.value(option) else { return nil }
            guard let seconds = Timestamp.seconds(text, zone: conversion.timeZone) else {
                throw UsageError(message: "Invalid value '\(text)' for '\(option)': a time such as 2026-11-30 09:41:00 (zone optional).")
            }
            return seconds
        }
        conversion.periodStart = try time("--period-start")
        conversion.periodEnd = try time("--period-end")
        if conversion.periodEnd != nil, conversion.periodStart == nil {
            throw UsageError(message: "Option '--period-end' needs '--period-start'.")
        }
        if let start = conversion.periodStart, let end = conversion.periodEnd, end < start {
            throw UsageError(message: "Option '--period-end' is before '--period-start'.")
        }
        return conversion
    }

    /// An IANA zone name, or a fixed `+HH:MM` / `-HH:MM` offset.
    static func timeZone(_ text: String) -> TimeZone? {
        let bytes = Array(text.utf8)
        if let sign = bytes.first, sign == UInt8(ascii: "+") || sign == UInt8(ascii: "-") {
            let digits = bytes.dropFirst().filter { $0 != UInt8(ascii: ":") }
            guard bytes.count == 6, bytes[3] == UInt8(ascii: ":"), digits.count == 4,
                digits.allSatisfy({ $0 >= 0x30 && $0 <= 0x39 })
            else { return nil }
            let values = digits.map { Int($0 - 0x30) }
            let hours = values[0] * 10 + values[1]
            let minutes = values[2] * 10 + values[3]
            guard hours <= 18, minutes < 60 else { return nil }
            let seconds = (hours * 3600 + minutes * 60) * (sign == UInt8(ascii: "-") ? -1 : 1)
            return TimeZone(secondsFromGMT: seconds)
        }
        guard text.contains("/") || text == "UTC" || text == "GMT" else { return nil }
        return TimeZone(identifier: text)
    }
}
