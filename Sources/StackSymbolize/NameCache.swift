/// Demangled and simplified names, computed once per symbol.
struct NameCache {
    private var known: [String: (String, String)] = [:]

    /// - Parameter simplified: the simplified form when it is known already (a symbol index stores
    ///   the one `simplifiedName` gives): only the full name is then demangled.
    mutating func names(for stored: String, simplified: String? = nil) -> (full: String, simplified: String) {
        var found = ("", "")
        // One hash for a hit or a miss: the entry is found or made once and filled in place (a
        // lookup then an insert hashed each new name twice, a twelfth of the names' cost).
        Self.fill(&known[stored, default: ("", "")], stored, simplified, &found)
        return found
    }

    private static func fill(_ entry: inout (String, String), _ stored: String, _ simplified: String?, _ found: inout (String, String)) {
        if entry.0.isEmpty {
            if let simplified {
                entry = (SwiftNames.demangle(stored) ?? stored, simplified)
            } else {
                entry = computed(stored)
            }
        }
        found = entry
    }

    /// The simplified form `names(for:)` gives `stored`, computed without a cache (the index
    /// builder computes each name once).
    static func simplifiedName(_ stored: String) -> String { computed(stored).1 }

    private static func computed(_ stored: String) -> (String, String) {
        let full = SwiftNames.demangle(stored) ?? stored
        let simple: String
        if full == stored {
            simple = SwiftNames.isSwiftMangled(stored) || SwiftNames.isCxxMangled(stored) ? stored : SwiftNames.simplified(stored)
        } else if SwiftNames.isSwiftMangled(stored) {
            simple = SwiftNames.simplifiedSwift(full)
        } else {
            simple = SwiftNames.simplifiedCxx(full)
        }
        return (full, simple)
    }

    /// Room for `count` more names, so a batch does not rehash the cache as it grows. Capped: a
    /// batch of many repeated addresses has far fewer names, and a table reserved for all of them
    /// would be touched all over by the few it holds (a 1,000,000-address batch, 48 MB).
    mutating func reserve(_ count: Int) { known.reserveCapacity(known.count + min(count, 1 << 15)) }

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
