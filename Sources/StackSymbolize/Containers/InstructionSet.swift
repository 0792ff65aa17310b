/// The instruction set, for the caller-address rule (docs/design.md, "Symbolication").
enum InstructionSet: Sendable {
    case arm64, x86, other

    /// The instruction set of a catalog entry's `arch` (`arm64e`, `x86_64`, ...).
    init(architecture: String) {
        if architecture.hasPrefix("arm64") {
            self = .arm64
        } else if architecture == "x86_64" || architecture == "i386" {
            self = .x86
        } else {
            self = .other
        }
    }

    /// The caller's instruction for a return address: arm64 aligns down to 4 and steps back one
    /// instruction; x86 steps back one byte (anything inside the call instruction will do).
    func callerAddress(_ returnAddress: UInt64) -> UInt64 {
        switch self {
        case .arm64: return returnAddress >= 4 ? (returnAddress & ~3) - 4 : 0
        case .x86, .other: return returnAddress >= 1 ? returnAddress - 1 : 0
        }
    }
}
