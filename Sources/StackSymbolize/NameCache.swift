/// Demangled and simplified names, computed once per symbol.
struct NameCache {
    private var known: [String: (String, String)] = [:]

    mutating func names(for stored: String) -> (full: String, simplified: String) {
        if let hit = known[stored] { return hit }
        let full = SwiftNames.demangle(stored) ?? stored
        let simple: String
        if full == stored {
            simple = SwiftNames.isSwiftMangled(stored) || SwiftNames.isCxxMangled(stored) ? stored : SwiftNames.simplified(stored)
        } else if SwiftNames.isSwiftMangled(stored) {
            simple = SwiftNames.simplifiedSwift(full)
        } else {
            simple = SwiftNames.simplifiedCxx(full)
        }
        known[stored] = (full, simple)
        return (full, simple)
    }

    /// Demangles every name of `lookups` ahead of use (on a worker thread).
    mutating func warm(_ lookups: [RawLookup]) {
        for lookup in lookups {
            for frame in lookup.frames { _ = names(for: frame.linkageName ?? frame.plainName ?? "??") }
        }
    }

    mutating func merge(_ other: NameCache) {
        known.merge(other.known) { mine, _ in mine }
    }
}
