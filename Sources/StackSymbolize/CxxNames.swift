import Foundation

// The `Type.member` form of a demangled C++ name.

extension SwiftNames {
    /// `ns::Type::member(int) const` → `Type.member`.
    static func simplifiedCxx(_ full: String) -> String {
        var text = Substring(full)
        for prefix in ["non-virtual thunk to ", "virtual thunk to ", "construction vtable for ", "vtable for "]
        where text.hasPrefix(prefix) {
            text = text.dropFirst(prefix.count)
        }
        // Cut the argument list: the first top-level `(` after a name character.
        var depth = 0
        var index = text.startIndex
        var plain = ""
        while index < text.endIndex {
            let character = text[index]
            if character == "<" {
                depth += 1
            } else if character == ">" {
                depth -= 1
            } else if character == "(" && depth == 0 {
                if text[index...].hasPrefix("(anonymous namespace)") {
                    plain += "(anonymous namespace)"
                    index = text.index(index, offsetBy: "(anonymous namespace)".count)
                    continue
                }
                break
            } else if depth == 0 {
                plain.append(character)
            }
            index = text.index(after: index)
        }
        // A return type may precede the name (`void ns::f`): keep what follows the last space.
        if let space = plain.lastIndex(of: " "), !plain.hasSuffix(" ") { plain = String(plain[plain.index(after: space)...]) }
        let parts = plain.components(separatedBy: "::").filter { !$0.isEmpty }
        guard !parts.isEmpty else { return full }
        return parts.suffix(2).joined(separator: ".")
    }
}
