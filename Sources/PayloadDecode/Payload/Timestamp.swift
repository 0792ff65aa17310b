import Foundation

/// Payload timestamps, parsed and printed by hand: a DateFormatter per value costs more than the
/// rest of a row. Seconds since 1970 in UTC throughout.
public enum Timestamp {
    /// Reads `2020-10-10 04:00:00 +0000` (iOS 13/14), `2022-11-14 00:00:00` (later, device-local
    /// time, read in `zone`), and the ISO forms `2022-11-14T00:00:00Z` / `…+01:00`.
    static func parse(_ bytes: UnsafeBufferPointer<UInt8>, zone: TimeZone) -> Int64? {
        func number(_ from: Int, _ length: Int) -> Int? {
            guard from + length <= bytes.count else { return nil }
            var value = 0
            for k in from..<(from + length) {
                let c = bytes[k]
                guard c >= 0x30 && c <= 0x39 else { return nil }
                value = value * 10 + Int(c - 0x30)
            }
            return value
        }
        guard bytes.count >= 19, let year = number(0, 4), bytes[4] == UInt8(ascii: "-"), let month = number(5, 2),
            bytes[7] == UInt8(ascii: "-"), let day = number(8, 2),
            bytes[10] == UInt8(ascii: " ") || bytes[10] == UInt8(ascii: "T"), let hour = number(11, 2),
            bytes[13] == UInt8(ascii: ":"), let minute = number(14, 2), bytes[16] == UInt8(ascii: ":"),
            let second = number(17, 2)
        else { return nil }
        guard (1...12).contains(month), day >= 1, day <= daysInMonth(year, month), hour < 24, minute < 60, second < 61 else {
            return nil
        }
        var i = 19
        // Fractional seconds are dropped: the column is whole seconds in every form we have seen.
        if i < bytes.count, bytes[i] == UInt8(ascii: ".") {
            i += 1
            while i < bytes.count, bytes[i] >= 0x30 && bytes[i] <= 0x39 { i += 1 }
        }
        while i < bytes.count, bytes[i] == UInt8(ascii: " ") { i += 1 }
        let local = Int64(daysFromCivil(year, month, day)) * 86400 + Int64(hour * 3600 + minute * 60 + second)
        if i == bytes.count { return local - Int64(offset(of: zone, atLocal: local)) }
        if bytes[i] == UInt8(ascii: "Z") && i + 1 == bytes.count { return local }
        guard bytes[i] == UInt8(ascii: "+") || bytes[i] == UInt8(ascii: "-") else { return nil }
        let sign: Int64 = bytes[i] == UInt8(ascii: "-") ? -1 : 1
        guard let zoneHours = number(i + 1, 2) else { return nil }
        var zoneMinutes = 0
        var end = i + 3
        if end < bytes.count, bytes[end] == UInt8(ascii: ":") { end += 1 }
        if end < bytes.count {
            guard let m = number(end, 2) else { return nil }
            zoneMinutes = m
            end += 2
        }
        guard end == bytes.count, zoneHours <= 18, zoneMinutes < 60 else { return nil }
        return local - sign * Int64(zoneHours * 3600 + zoneMinutes * 60)
    }

    /// A timestamp given on the command line (`--period-start`): the payload forms above, read in
    /// `zone` when they carry none. Seconds since 1970 in UTC.
    public static func seconds(_ text: String, zone: TimeZone) -> Int64? {
        var text = text
        return text.withUTF8 { parse($0, zone: zone) }
    }

    /// Seconds east of UTC of `zone` at a local wall-clock time; two steps settle DST edges.
    static func offset(of zone: TimeZone, atLocal local: Int64) -> Int {
        if zone.identifier == "UTC" || zone.identifier == "GMT" { return 0 }
        let first = zone.secondsFromGMT(for: Date(timeIntervalSince1970: TimeInterval(local)))
        return zone.secondsFromGMT(for: Date(timeIntervalSince1970: TimeInterval(local - Int64(first))))
    }

    /// `2024-03-01T04:00:00Z`, or `nil` outside years 0…9999.
    public static func iso8601(_ seconds: Int64) -> String? {
        let days = seconds >= 0 ? seconds / 86400 : (seconds - 86399) / 86400
        let secondOfDay = Int(seconds - days * 86400)
        let (year, month, day) = civilFromDays(days)
        guard year >= 0 && year <= 9999 else { return nil }
        var out = [UInt8]()
        out.reserveCapacity(20)
        func two(_ v: Int) {
            out.append(UInt8(0x30 + v / 10))
            out.append(UInt8(0x30 + v % 10))
        }
        two(Int(year / 100))
        two(Int(year % 100))
        out.append(UInt8(ascii: "-"))
        two(month)
        out.append(UInt8(ascii: "-"))
        two(day)
        out.append(UInt8(ascii: "T"))
        two(secondOfDay / 3600)
        out.append(UInt8(ascii: ":"))
        two(secondOfDay / 60 % 60)
        out.append(UInt8(ascii: ":"))
        two(secondOfDay % 60)
        out.append(UInt8(ascii: "Z"))
        return String(decoding: out, as: UTF8.self)
    }

    static func daysInMonth(_ year: Int, _ month: Int) -> Int {
        switch month {
        case 2: return (year % 4 == 0 && year % 100 != 0) || year % 400 == 0 ? 29 : 28
        case 4, 6, 9, 11: return 30
        default: return 31
        }
    }

    /// Days since 1970-01-01 (Howard Hinnant's civil-date algorithm).
    static func daysFromCivil(_ year: Int, _ month: Int, _ day: Int) -> Int {
        let y = month <= 2 ? year - 1 : year
        let era = (y >= 0 ? y : y - 399) / 400
        let yearOfEra = y - era * 400
        let dayOfYear = (153 * (month > 2 ? month - 3 : month + 9) + 2) / 5 + day - 1
        let dayOfEra = yearOfEra * 365 + yearOfEra / 4 - yearOfEra / 100 + dayOfYear
        return era * 146097 + dayOfEra - 719468
    }

    static func civilFromDays(_ days: Int64) -> (Int64, Int, Int) {
        let z = days + 719468
        let era = (z >= 0 ? z : z - 146096) / 146097
        let dayOfEra = z - era * 146097
        let yearOfEra = (dayOfEra - dayOfEra / 1460 + dayOfEra / 36524 - dayOfEra / 146096) / 365
        let dayOfYear = dayOfEra - (365 * yearOfEra + yearOfEra / 4 - yearOfEra / 100)
        let mp = (5 * dayOfYear + 2) / 153
        let day = Int(dayOfYear - (153 * mp + 2) / 5 + 1)
        let month = Int(mp < 10 ? mp + 3 : mp - 9)
        return (yearOfEra + era * 400 + (month <= 2 ? 1 : 0), month, day)
    }
}
