import SymbolNames

/// Demangled and simplified names, computed once per symbol.
struct NameCache {
    /// A stored name as a key, hashed once over eight bytes at a time (Dictionary's SipHash over
    /// every byte of long mangled names was 3% of a small binary's batch).
    private struct Key: Hashable {
        let name: String
        let hash: UInt64

        init(_ name: String) {
            self.name = name
            hash = StringInterner.hash(name)
        }

        static func == (left: Key, right: Key) -> Bool { left.hash == right.hash && left.name == right.name }
        func hash(into hasher: inout Hasher) { hasher.combine(hash) }
    }

    private var known: [Key: (String, String)] = [:]
    private var reader = MangledSwiftName()
    /// Whether the full demangled name is made too. Text and folded output print only simplified
    /// names, which `MangledSwiftName` reads straight from the mangling; the runtime's full
    /// demangling was then half of the names' cost. Without it a frame's full name is the stored
    /// one.
    var makesFullNames = true

    /// - Parameter simplified: the simplified form when it is known already (a symbol index stores
    ///   the one `simplifiedName` gives): only the full name is then demangled.
    mutating func names(for stored: String, simplified: String? = nil) -> (full: String, simplified: String) {
        var found = ("", "")
        // One hash for a hit or a miss: the entry is found or made once and filled in place (a
        // lookup then an insert hashed each new name twice, a twelfth of the names' cost).
        Self.fill(&known[Key(stored), default: ("", "")], stored, simplified, makesFullNames, &reader, &found)
        return found
    }

    /// `names(for:simplified:).simplified`, without copying the full name out.
    mutating func simplifiedName(for stored: String, simplified: String? = nil) -> String {
        var found = ""
        Self.fillSimplified(&known[Key(stored), default: ("", "")], stored, simplified, makesFullNames, &reader, &found)
        return found
    }

    private static func fillSimplified(
        _ entry: inout (String, String), _ stored: String, _ simplified: String?, _ makesFullNames: Bool,
        _ reader: inout MangledSwiftName, _ found: inout String
    ) {
        if entry.0.isEmpty {
            let simple = simplified ?? SymbolName.simplifiedName(stored, using: &reader)
            // Without full names a name with no simplified form still gets its full one: that is
            // what a frame without a simplified name shows (`ExpandedFrame.name`).
            entry = (makesFullNames || simple.isEmpty ? SymbolName.fullName(stored) : stored, simple)
        }
        found = entry.1
    }

    private static func fill(
        _ entry: inout (String, String), _ stored: String, _ simplified: String?, _ makesFullNames: Bool,
        _ reader: inout MangledSwiftName, _ found: inout (String, String)
    ) {
        if entry.0.isEmpty {
            let simple = simplified ?? SymbolName.simplifiedName(stored, using: &reader)
            // Without full names a name with no simplified form still gets its full one: that is
            // what a frame without a simplified name shows (`ExpandedFrame.name`).
            entry = (makesFullNames || simple.isEmpty ? SymbolName.fullName(stored) : stored, simple)
        }
        found = entry
    }

    /// Room for `count` more names, so a batch does not rehash the cache as it grows. Capped: a
    /// batch of many repeated addresses has far fewer names, and a table reserved for all of them
    /// would be touched all over by the few it holds (a 1,000,000-address batch, 48 MB).
    mutating func reserve(_ count: Int) { known.reserveCapacity(known.count + min(count, 1 << 15)) }
}
