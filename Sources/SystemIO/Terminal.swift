import Foundation

/// Whether a standard stream is a person's terminal: progress lines are drawn only there.
public enum Terminal {
    /// Whether `descriptor` is a terminal (`isatty`).
    public static func isTerminal(_ descriptor: Int32) -> Bool {
        isatty(descriptor) != 0
    }
}
