import Foundation
import PayloadDecode

/// The options that shape how payload dumps become rows (`--user`, `--timezone`, `--promotion`,
/// the period), declared once for every command that converts dumps, so `rows`, `load`, `top` and
/// `report` accept the same values and derive the same row keys from them.
enum ConversionArguments {
    static let user = CommandOption(
        "--user", "UUID", parser: .userID, help: ["The user_id of every row (also part of each row_key)."])
    static let timeZone = CommandOption(
        "--timezone", "ZONE", parser: .timeZone,
        help: [
            "Zone of timestamps written without one: an IANA name",
            "(Europe/Berlin) or +HH:MM / -HH:MM. Default UTC.",
        ])
    static let promotion = CommandOption(
        "--promotion", parser: .choice(["on": true, "off": false], .invalidValue(detail: " (on or off).")),
        help: ["Override the ProMotion table for rows converted from payload dumps."])
    /// Read as text and parsed in the `--timezone` zone (see `conversionOptions(from:)`).
    static let periodStart = CommandOption(
        "--period-start", "TIME", parser: .text,
        help: [
            "The period of single diagnostics that carry no timestamps",
            "(2026-11-29 08:00:00). Without it: the diagnostic's signpostData,",
            "else the file's time.",
        ])
    static let periodEnd = CommandOption(
        "--period-end", "TIME", parser: .text, help: ["The end of that period (default: the start)."])

    /// The group as a command lists it; `user` is the command's own `--user` (its help says what the
    /// user means there).
    static func options(user: OptionDeclaration = user.declaration) -> [OptionDeclaration] {
        [user, timeZone.declaration, promotion.declaration, periodStart.declaration, periodEnd.declaration]
    }

    /// `[--user UUID] [--timezone ZONE] [--promotion on|off] [--period-start TIME [--period-end TIME]]`
    static let usage: [UsageItem] = [
        .optional(user.declaration), .optional(timeZone.declaration), .optional(promotion.declaration),
        .optionalPair(periodStart.declaration, periodEnd.declaration),
    ]

    static func conversionOptions(from parsed: CommandArguments) throws(UsageError) -> ConversionOptions {
        var conversion = ConversionOptions()
        conversion.userID = try parsed.value(user)
        if let zone = try parsed.value(timeZone) { conversion.timeZone = zone }
        conversion.promotionOverride = try parsed.value(promotion)
        // The period of single diagnostics without timestamps, read in the --timezone zone.
        conversion.periodStart = try parsed.value(periodStart, parsedBy: .time(in: conversion.timeZone))
        conversion.periodEnd = try parsed.value(periodEnd, parsedBy: .time(in: conversion.timeZone))
        if conversion.periodEnd != nil, conversion.periodStart == nil {
            throw UsageError(message: "Option '\(periodEnd.name)' needs '\(periodStart.name)'.")
        }
        if let start = conversion.periodStart, let end = conversion.periodEnd, end < start {
            throw UsageError(message: "Option '\(periodEnd.name)' is before '\(periodStart.name)'.")
        }
        return conversion
    }
}
