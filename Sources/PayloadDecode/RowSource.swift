import Foundation

/// What a conversion needs beyond the input bytes (`payload-tool rows` flags).
public struct ConversionOptions: Sendable {
    /// `--user`: a UUID; `nil` leaves `user_id` null (allowed for files, not for the database).
    public var userID: String?
    /// `--timezone`: the zone of zone-less timestamps (device-local time); UTC when not given.
    public var timeZone: TimeZone
    /// `--promotion`: overrides the ProMotion table when set.
    public var promotionOverride: Bool?

    public init(userID: String? = nil, timeZone: TimeZone = TimeZone(identifier: "UTC")!, promotionOverride: Bool? = nil) {
        self.userID = userID
        self.timeZone = timeZone
        self.promotionOverride = promotionOverride
    }
}

/// A warning or error about one input, naming the file and the place in it.
public struct InputDiagnostic: Sendable, Error, CustomStringConvertible {
    public enum Severity: String, Sendable { case warning, error }
    public var severity: Severity
    /// The path as given, or `<stdin>`.
    public var file: String
    /// Where in the file, e.g. `payload 2, key memoryMetrics.peakMemoryUsage` or `line 3, byte 17`.
    public var place: String
    public var message: String

    public init(severity: Severity, file: String, place: String, message: String) {
        self.severity = severity
        self.file = file
        self.place = place
        self.message = message
    }

    /// `samples/a.json: payload 2, key memoryMetrics.peakMemoryUsage: unknown unit 'parsecs'`
    public var description: String { place.isEmpty ? "\(file): \(message)" : "\(file): \(place): \(message)" }
}

/// Turns any input of SPEC section 3 into rows: a payload dump (payload, array, single diagnostic,
/// JSON Lines) is converted; a row file as `payload-tool rows` writes it (JSON array or JSON Lines)
/// is read back as it is. Every command that reads inputs goes through here.
public enum RowSource {
    /// Reads one input and hands its rows to `emit`, in order.
    ///
    /// - Parameters:
    ///   - path: a file path, or `-` for `standardInput`.
    ///   - report: receives every warning and error, each naming the file and the place.
    /// - Returns: `false` when the input failed (an error was reported); its good parts may still
    ///   have been emitted, per payload or per line, never a half-converted payload.
    @discardableResult
    public static func readRows(
        path: String, options: ConversionOptions, standardInput: FileHandle? = nil,
        report: (InputDiagnostic) -> Void, emit: (Row) -> Void
    ) -> Bool {
        // Scaffolding until the decoder lands.
        report(InputDiagnostic(severity: .error, file: path, place: "", message: "payload decoding is not built yet"))
        return false
    }
}
