/// One way of reading the parts of a DWARF unit a lookup needs: the unit's code ranges, its tree
/// of functions and inlined calls, its line table, and the names of its DIEs.
///
/// Two readers implement it. `BytesUnitDecoder` reads the stored section bytes itself: it decodes
/// each abbreviation table once and reads only what a lookup asks for (docs/speed.md). It
/// declines what it is not sure of, such as compressed sections, an unknown form or split DWARF.
/// `LibdwUnitDecoder` is elfutils' reader, the reference. `DwarfReader` asks the bytes reader
/// first and libdw for whatever it declines, and records why in `DecoderFallbacks`. The tests
/// ask both readers and compare their answers.
protocol UnitDecoder {
    /// The code ranges of a compile or partial unit, from its unit DIE. Other units, such as type
    /// units, have none.
    mutating func unitRanges(_ unit: UnitLocation) -> Result<[AddressRange], DecodeRefusal>
    /// Reads the unit's functions and inlined calls into `decoded`. With `wanted` (sorted), only
    /// the functions that hold one of these addresses are kept. A refusal leaves `decoded` as it was.
    mutating func readScopes(_ unit: UnitLocation, wanted: [UInt64]?, into decoded: inout DecodedUnit) -> Result<Void, DecodeRefusal>
    /// Reads the unit's line rows and file tables into `decoded`. With `wanted`, only the rows
    /// that hold those addresses are kept. A refusal leaves `decoded` as it was.
    mutating func readLines(_ unit: UnitLocation, wanted: [UInt64]?, into decoded: inout DecodedUnit) -> Result<Void, DecodeRefusal>
    /// A DIE's names: the linkage name, found through its abstract origin and specification, and
    /// `DW_AT_name`.
    mutating func names(atDIE offset: UInt64) -> Result<DIENames, DecodeRefusal>
    /// The DIE an inlined call's names come from (`DwarfDIE.nameOrigin`), or nil when it has none.
    mutating func nameOrigin(atDIE offset: UInt64) -> Result<UInt64?, DecodeRefusal>
}

/// A unit as the decoders are asked about it: where its unit DIE is, and where its header starts
/// when the unit list gave that.
struct UnitLocation {
    var dieOffset: UInt64
    var start: UInt64?
}

/// Why a decoder did not answer. The text names the place, e.g. "unit at offset 0x1f2c of
/// .debug_info: the DIE tree holds a form this reader does not read".
struct DecodeRefusal: Error {
    var reason: String
}

/// The steps of decoding that can fall back from the bytes reader to libdw.
public enum DecodeStep: Int, CaseIterable, Sendable {
    case unitRanges, scopes, lines, names

    /// The name of the step as a user reads it, e.g. "line tables".
    public var label: String {
        switch self {
        case .unitRanges: "unit ranges"
        case .scopes: "function trees"
        case .lines: "line tables"
        case .names: "names"
        }
    }
}

/// How often each decoding step was asked of one debug file, how often libdw had to answer because
/// the bytes reader declined, and the first reason the bytes reader gave for each step.
/// `symbolicate --verbose` and `dsyms` print this. On a file the bytes reader reads whole, such as
/// every fixture and the toolchain's binaries, it records no fallback.
public struct DecoderFallbacks: Sendable, Equatable {
    public private(set) var asked = [Int](repeating: 0, count: DecodeStep.allCases.count)
    public private(set) var answeredByLibdw = [Int](repeating: 0, count: DecodeStep.allCases.count)
    public private(set) var firstReason = [String?](repeating: nil, count: DecodeStep.allCases.count)

    public init() {}

    mutating func countAsked(_ step: DecodeStep) { asked[step.rawValue] += 1 }

    mutating func record(_ step: DecodeStep, _ refusal: DecodeRefusal) {
        answeredByLibdw[step.rawValue] += 1
        if firstReason[step.rawValue] == nil { firstReason[step.rawValue] = refusal.reason }
    }

    /// Adds what another handle on the same file counted, for example the second thread of a batch.
    mutating func add(_ other: DecoderFallbacks) {
        for step in DecodeStep.allCases.map(\.rawValue) {
            asked[step] += other.asked[step]
            answeredByLibdw[step] += other.answeredByLibdw[step]
            if firstReason[step] == nil { firstReason[step] = other.firstReason[step] }
        }
    }

    /// Whether libdw answered anything the bytes reader declined.
    public var isEmpty: Bool { answeredByLibdw.allSatisfy { $0 == 0 } }

    /// How many times libdw answered `step`.
    public func libdwCount(_ step: DecodeStep) -> Int { answeredByLibdw[step.rawValue] }

    /// What libdw read, step by step, and the reasons, e.g. "libdw read 3 of 556 line tables (the
    /// unit with its DIE at offset 4242 of .debug_info: ...)". Empty when nothing fell back.
    public var summary: String {
        let fellBack = DecodeStep.allCases.filter { answeredByLibdw[$0.rawValue] > 0 }
        guard !fellBack.isEmpty else { return "" }
        let counts = fellBack.map { "\(answeredByLibdw[$0.rawValue]) of \(asked[$0.rawValue]) \($0.label)" }
        var reasons: [String] = []
        for step in fellBack {
            if let reason = firstReason[step.rawValue], !reasons.contains(reason) { reasons.append(reason) }
        }
        return "libdw read \(counts.joined(separator: ", ")) (\(reasons.joined(separator: "; ")))"
    }
}
