import Foundation
import SystemIO

/// What a conversion needs beyond the input bytes (`payload-tool rows` flags).
public struct ConversionOptions: Sendable {
    /// `--user`: a UUID; `nil` leaves `user_id` null (allowed for files, not for the database).
    public var userID: String?
    /// `--timezone`: the zone of zone-less timestamps (device-local time); UTC when not given.
    /// The default is the fixed zero offset (`GMT`): a named zone (`UTC`) loads ICU's zone data,
    /// a few milliseconds of every run's start-up; both read as offset 0 (`Timestamp.offset`).
    public var timeZone: TimeZone
    /// `--promotion`: overrides the ProMotion table when set.
    public var promotionOverride: Bool?
    /// `--period-start` / `--period-end` (seconds since 1970, UTC): the period of a single diagnostic
    /// that carries no `timeStampBegin` (`MXDiagnostic.jsonRepresentation()` has none).
    public var periodStart: Int64?
    public var periodEnd: Int64?

    /// Largest JSON document read whole (a JSON Lines file may be longer; its lines may not).
    public var maxFileBytes: Int = 64 << 20
    /// Largest line of a JSON Lines input.
    public var maxLineBytes: Int = 16 << 20
    /// Deepest JSON nesting accepted (objects and arrays).
    public var maxJSONDepth: Int = 512
    /// Where the names crash reports give their frames are kept, when a command prints names
    /// (`symbolicate`, `top`, `report`); `nil` keeps none.
    public var frameNames: ReportFrameNames?
    /// A file found in a folder or a zip, not named: content that is no input (a `feedback.json`,
    /// an `Info.plist`, a picture) is skipped (`InputOutcome.notAnInput`), not an error.
    public var skipsOtherContent = false
    /// `--build`: the build a bare call-stack tree's stacks are read for (`symbolicate`, `top`);
    /// without it a tree is refused, as it names no build. `allSamples`: every sample path of a
    /// tree, not only its heaviest (`symbolicate --all-samples`).
    public var treeBuild: Int?
    public var treeAllSamples = false

    public init(userID: String? = nil, timeZone: TimeZone = TimeZone(secondsFromGMT: 0)!, promotionOverride: Bool? = nil) {
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
    /// Control characters from the input (a file name, a key) are escaped here, whatever the
    /// message: nothing an input holds reaches the terminal raw.
    public var description: String {
        InputText.escaped(place.isEmpty ? "\(file): \(message)" : "\(file): \(place): \(message)")
    }
}

/// What reading one input gave.
public enum InputOutcome: Sendable, Equatable {
    /// Read; `succeeded` is false when an error was reported.
    case read(succeeded: Bool)
    /// With `skipsOtherContent`: content that is none of the inputs; nothing reported, no rows.
    case notAnInput
    /// A zip (`PK` first): its entries are the inputs, which `payload-tool` reads one by one.
    case zip
}

/// Turns any input of docs/rows.md, "Inputs" into rows: a payload dump (payload, array, single diagnostic,
/// JSON Lines) is converted; a row file as `payload-tool rows` writes it (JSON array or JSON Lines)
/// is read back as it is. Every command that reads inputs goes through here.
public enum RowSource {
    /// Reads one input and hands its rows to `emit`, in order.
    ///
    /// The file is read with plain `read(2)` calls: a JSON document whole (up to
    /// `options.maxFileBytes`), JSON Lines line by line (each up to `options.maxLineBytes`), so
    /// memory does not grow with the input.
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
        switch read(path: path, options: options, standardInput: standardInput, report: report, emit: emit) {
        case .read(let succeeded): return succeeded
        case .notAnInput: return true
        case .zip:
            let name = path == "-" ? "<stdin>" : path
            report(InputDiagnostic(severity: .error, file: name, place: "", message: "a zip: payload-tool reads zips entry by entry"))
            return false
        }
    }

    /// `readRows`, saying also whether the input was a zip or (with `skipsOtherContent`) no input.
    public static func read(
        path: String, options: ConversionOptions, standardInput: FileHandle? = nil,
        report: (InputDiagnostic) -> Void, emit: (Row) -> Void
    ) -> InputOutcome {
        let name = path == "-" ? "<stdin>" : path
        let descriptor: Int32
        if path == "-" {
            descriptor = standardInput?.fileDescriptor ?? STDIN_FILENO
        } else {
            do {
                descriptor = try FileIO.openForReading(path)
            } catch {
                report(InputDiagnostic(severity: .error, file: name, place: "", message: "\(error.action): \(error.reason)"))
                return .read(succeeded: false)
            }
        }
        defer { if path != "-" { FileIO.close(descriptor) } }
        // The session keeps the closures only for this call.
        return withoutActuallyEscaping(report) { report in
            withoutActuallyEscaping(emit) { emit in
                let session = InputSession(file: name, options: options, report: report, emit: emit)
                session.read(from: InputReader(descriptor: descriptor))
                return session.outcome
            }
        }
    }

    /// Converts one input held in memory, in any form `readRows` accepts. The entry point of the
    /// fuzz target: whatever the bytes, it reports and returns, never traps.
    @discardableResult
    public static func rows(
        fromBytes bytes: UnsafeRawBufferPointer, fileName: String, options: ConversionOptions,
        report: (InputDiagnostic) -> Void, emit: (Row) -> Void
    ) -> Bool {
        if case .read(let succeeded) = read(bytes: bytes, fileName: fileName, options: options, report: report, emit: emit) {
            return succeeded
        }
        return true
    }

    /// `rows(fromBytes:)`, saying also whether the bytes were a zip or (with `skipsOtherContent`)
    /// no input: a zip's entry is read through here.
    public static func read(
        bytes: UnsafeRawBufferPointer, fileName: String, options: ConversionOptions, report: (InputDiagnostic) -> Void,
        emit: (Row) -> Void
    ) -> InputOutcome {
        withoutActuallyEscaping(report) { report in
            withoutActuallyEscaping(emit) { emit in
                let session = InputSession(file: fileName, options: options, report: report, emit: emit)
                session.convertWhole(bytes)
                return session.outcome
            }
        }
    }
}
