import Foundation

// The `Type.member` form of a demangled C++ name.

extension SwiftNames {
    static let cxxThunkPrefixes: [Bytes] = ["non-virtual thunk to ", "virtual thunk to ", "construction vtable for ", "vtable for "]
        .map { Array($0.utf8) }
    static let anonymousNamespace = Array("(anonymous namespace)".utf8)

    /// `ns::Type::member(int) const` → `Type.member`. Works on UTF-8 bytes (every byte it looks
    /// for is ASCII, so it never splits a character): it runs once per distinct C++ symbol, and
    /// Character-by-Character scanning was a twentieth of a cold batch on a C++-heavy binary.
    package static func simplifiedCxx(_ full: String) -> String {
        let text = Array(full.utf8)
        var start = 0
        for prefix in cxxThunkPrefixes where matches(text, start, text.count, prefix) { start += prefix.count }
        // Cut the argument list: the first top-level `(` (other than `(anonymous namespace)`).
        var depth = 0
        var plain: Bytes = []
        plain.reserveCapacity(text.count - start)
        var index = start
        while index < text.count {
            let byte = text[index]
            if byte == UInt8(ascii: "<") {
                depth += 1
            } else if byte == UInt8(ascii: ">") {
                depth -= 1
            } else if byte == UInt8(ascii: "(") && depth == 0 {
                if matches(text, index, text.count, anonymousNamespace) {
                    plain += anonymousNamespace
                    index += anonymousNamespace.count
                    continue
                }
                break
            } else if depth == 0 {
                plain.append(byte)
            }
            index += 1
        }
        // A return type may precede the name (`void ns::f`): keep what follows the last space.
        var nameStart = 0
        if plain.last != UInt8(ascii: " "), let space = plain.lastIndex(of: UInt8(ascii: " ")) { nameStart = space + 1 }
        // The last two non-empty `::`-separated parts, joined by a dot.
        var parts: [Range<Int>] = []
        var partStart = nameStart
        var position = nameStart
        while position < plain.count {
            if plain[position] == UInt8(ascii: ":"), position + 1 < plain.count, plain[position + 1] == UInt8(ascii: ":") {
                if position > partStart { parts.append(partStart..<position) }
                position += 2
                partStart = position
            } else {
                position += 1
            }
        }
        if plain.count > partStart { parts.append(partStart..<plain.count) }
        guard let last = parts.last else { return full }
        let name = String(decoding: plain[last], as: UTF8.self)
        guard parts.count >= 2 else { return name }
        return String(decoding: plain[parts[parts.count - 2]], as: UTF8.self) + "." + name
    }
}
