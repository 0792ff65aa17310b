import Foundation

/// The last few distinct strings a file's frames named (images or UUIDs), by the bytes that gave
/// them, so a frame naming one of them takes that very string. Kept to the last one alone, a stack
/// of the app's frames then four system images' made four new strings a row, and a new UUID string
/// is checked and made canonical too: 8% of the CPU of `top` over a row file, and every row's UUIDs
/// were hashed again when `top` shared them (`UUIDStrings`).
struct RecentStrings {
    /// How many are kept: more images than a stack usually names, few enough to look through.
    static let capacity = 8
    /// Names longer than this are made anew each time (no image name or UUID is).
    static let longest = 128

    /// Slot `i`'s bytes at `i * longest`, its length in `lengths[i]`, its string in `strings[i]`.
    private var bytes = [UInt8](repeating: 0, count: capacity * longest)
    private var lengths: [Int] = []
    private var strings: [String] = []
    /// The slot found or filled last (looked at first: a stack names one image many times in a row).
    private var last = 0
    /// The slot the next new string replaces, once all are filled.
    private var nextReplaced = 0

    /// The string of the string node `node` (nil when absent or no string): a kept one when its
    /// bytes are the same, else `make` of it, kept.
    mutating func string(_ document: JSONDocument, _ node: Int?, make: (String) -> String) -> String? {
        guard let node, document.kind(node) == .string else { return nil }
        let raw = document.rawBytes(node)
        // An escaped string's raw bytes are not its text: made anew, not kept (as is "", which
        // costs nothing to make).
        let keepable = !document.isEscaped(node) && raw.count > 0 && raw.count <= Self.longest
        if keepable, let slot = slot(of: raw) {
            last = slot
            return strings[slot]
        }
        guard let text = document.string(node) else { return nil }
        let made = make(text)
        if keepable { keep(made, raw) }
        return made
    }

    private func slot(of raw: UnsafeBufferPointer<UInt8>) -> Int? {
        bytes.withUnsafeBufferPointer { kept in
            func holds(_ slot: Int) -> Bool {
                lengths[slot] == raw.count && memcmp(kept.baseAddress! + slot * Self.longest, raw.baseAddress!, raw.count) == 0
            }
            if last < lengths.count, holds(last) { return last }
            return lengths.indices.first(where: holds)
        }
    }

    private mutating func keep(_ string: String, _ raw: UnsafeBufferPointer<UInt8>) {
        let slot: Int
        if lengths.count < Self.capacity {
            slot = lengths.count
            lengths.append(raw.count)
            strings.append(string)
        } else {
            slot = nextReplaced
            nextReplaced = (nextReplaced + 1) % Self.capacity
            lengths[slot] = raw.count
            strings[slot] = string
        }
        bytes.withUnsafeMutableBufferPointer { kept in
            _ = memcpy(kept.baseAddress! + slot * Self.longest, raw.baseAddress!, raw.count)
        }
        last = slot
    }
}
