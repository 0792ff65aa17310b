import Foundation

/// Demangling (Swift through the runtime's `swift_demangle`, C++ through `__cxa_demangle`) and the
/// simplified `Type.member` form signatures are built from (SPEC section 6).
public enum SwiftNames {
    private typealias SwiftDemangle = @convention(c) (
        UnsafePointer<CChar>?, Int, UnsafeMutablePointer<CChar>?, UnsafeMutablePointer<Int>?, UInt32
    ) -> UnsafeMutablePointer<CChar>?
    private typealias CxaDemangle = @convention(c) (
        UnsafePointer<CChar>?, UnsafeMutablePointer<CChar>?, UnsafeMutablePointer<Int>?, UnsafeMutablePointer<Int32>?
    ) -> UnsafeMutablePointer<CChar>?

    // Looked up at run time: the Swift runtime is always loaded, libstdc++ usually is (Foundation
    // uses it), and a missing one just means names stay raw.
    nonisolated(unsafe) private static let swiftDemangle: SwiftDemangle? = {
        guard let symbol = dlsym(UnsafeMutableRawPointer(bitPattern: 0), "swift_demangle") else { return nil }
        return unsafeBitCast(symbol, to: SwiftDemangle.self)
    }()
    nonisolated(unsafe) private static let cxaDemangle: CxaDemangle? = {
        var symbol = dlsym(UnsafeMutableRawPointer(bitPattern: 0), "__cxa_demangle")
        if symbol == nil, let library = dlopen("libstdc++.so.6", RTLD_NOW | RTLD_LOCAL) {
            symbol = dlsym(library, "__cxa_demangle")
        }
        guard let symbol else { return nil }
        return unsafeBitCast(symbol, to: CxaDemangle.self)
    }()

    /// Mangled names longer than this are left raw: nothing real is that long, and it bounds the
    /// demanglers' recursion on hostile input.
    static let longestMangledName = 16_384

    static func isSwiftMangled(_ name: String) -> Bool {
        for prefix in ["$s", "_$s", "$S", "_$S", "$e", "_$e", "_T0"] where name.hasPrefix(prefix) { return true }
        return false
    }

    static func isCxxMangled(_ name: String) -> Bool { name.hasPrefix("_Z") || name.hasPrefix("__Z") }

    /// The full demangled name, or `nil` when the name is not mangled or does not demangle.
    public static func demangle(_ mangled: String) -> String? {
        guard mangled.utf8.count <= longestMangledName else { return nil }
        if isSwiftMangled(mangled), let swiftDemangle {
            return mangled.withCString { pointer -> String? in
                guard let result = swiftDemangle(pointer, strlen(pointer), nil, nil, 0) else { return nil }
                defer { free(result) }
                let text = String(cString: result)
                return text.isEmpty || text == mangled ? nil : text
            }
        }
        if isCxxMangled(mangled), let cxaDemangle {
            let name = mangled.hasPrefix("__Z") ? String(mangled.dropFirst()) : mangled
            return name.withCString { pointer -> String? in
                var status: Int32 = 0
                guard let result = cxaDemangle(pointer, nil, nil, &status), status == 0 else { return nil }
                defer { free(result) }
                return String(cString: result)
            }
        }
        return nil
    }

    /// The `Type.member` form: `YuiLines.parse`, `closure in ThreadView.body`, `ChatStore.apply`.
    /// A name that cannot be demangled comes back as it was.
    public static func simplified(_ mangledOrPlain: String) -> String {
        if isSwiftMangled(mangledOrPlain) {
            guard let full = demangle(mangledOrPlain) else { return mangledOrPlain }
            return simplifiedSwift(full)
        }
        if isCxxMangled(mangledOrPlain) {
            guard let full = demangle(mangledOrPlain) else { return mangledOrPlain }
            return simplifiedCxx(full)
        }
        if mangledOrPlain.contains("::") { return simplifiedCxx(mangledOrPlain) }
        return mangledOrPlain
    }

    // MARK: - Swift

    /// Prefixes of demangled Swift names that say how, not what; dropped (`specialized`, thunks).
    private static let swiftPrefixes = [
        "specialized ", "merged ", "partial apply for ", "partial apply forwarder for ", "dispatch thunk of ",
        "@objc ", "@nonobjc ", "static ", "async function pointer to ", "protocol witness for ",
        "reabstraction thunk helper ", "reabstraction thunk ", "outlined copy of ", "outlined consume of ",
        "outlined destroy of ", "outlined init with take of ", "outlined init with copy of ",
        "outlined assign with take of ", "outlined assign with copy of ", "outlined retain of ",
        "outlined release of ", "variable initialization expression of ", "lazy protocol witness table accessor for ",
        "type metadata accessor for ", "one-time initialization function for ", "one-time initialization token for ",
        "unsafeMutableAddressor of ", "unsafeAddressor of ", "property wrapper backing initializer of ",
        "property wrapper init from projected value of ", "default argument ", "key path getter for ",
        "key path setter for ", "back deployment fallback for ", "back deployment thunk for ",
        "distributed thunk ", "opaque type descriptor for ", "method descriptor for ", "nominal type descriptor for ",
        "type metadata for ", "type metadata completion function for ", "value witness for ",
        "base witness table accessor for ", "associated type witness table accessor for ",
        "instantiation function for generic protocol witness table for ", "protocol conformance descriptor for ",
        "type metadata instantiation function for ", "type metadata singleton initialization cache for ",
    ]

    private static let accessors: Set<String> = [
        "getter", "setter", "modify", "_modify", "read", "_read", "didset", "willset", "unsafeAddressor",
        "unsafeMutableAddressor", "materializeForSet", "init", "modify2", "read2", "yielding borrow", "yielding mutate",
    ]

    static func simplifiedSwift(_ full: String) -> String {
        var text = Substring(full)
        var closure = false
        var changed = true
        while changed {
            changed = false
            text = text.drop(while: { $0 == " " })
            // `(1) suspend resume partial function for X`, `(2) await resume partial function for X`
            if text.hasPrefix("("), let range = text.range(of: " partial function for "),
                text[..<range.lowerBound].split(separator: " ").count <= 3
            {
                text = text[range.upperBound...]
                changed = true
            }
            for prefix in swiftPrefixes where text.hasPrefix(prefix) {
                text = text.dropFirst(prefix.count)
                changed = true
            }
            // `generic specialization <...> of X`, `function signature specialization <...> of X`
            for prefix in ["generic specialization ", "function signature specialization ", "generic partial specialization "]
            where text.hasPrefix(prefix) {
                text = text.dropFirst(prefix.count)
                if text.hasPrefix("<") { text = text[skipBalanced(text, from: text.startIndex)...] }
                text = text.drop(while: { $0 == " " })
                if text.hasPrefix("of ") { text = text.dropFirst(3) }
                changed = true
            }
            // `closure #1 (Swift.Int) -> () in X`, `implicit closure #2 in X`
            for prefix in ["closure #", "implicit closure #", "autoclosure #"] where text.hasPrefix(prefix) {
                if let inRange = topLevelRange(of: " in ", in: text) {
                    text = text[inRange.upperBound...]
                    closure = true
                    changed = true
                }
            }
            // `initializeWithCopy value witness for X`: the type the witness serves.
            if let witness = topLevelRange(of: " value witness for ", in: text) {
                text = text[witness.upperBound...]
                changed = true
            }
            if text.hasPrefix("type ") {  // `... accessor for type X and conformance Y`
                text = text.dropFirst(5)
                if let andRange = topLevelRange(of: " and conformance ", in: text) { text = text[..<andRange.lowerBound] }
                changed = true
            }
            // `X in conformance Y` (witnesses): keep X.
            if let inRange = topLevelRange(of: " in conformance ", in: text) {
                text = text[..<inRange.lowerBound]
                changed = true
            }
        }
        var entity = entityPath(text)
        if entity.isEmpty { return full }
        return (closure ? "closure in " : "") + entity.removeFirstModule()
    }

    /// `Module.Type.member(args) -> R` or `Module.Type.prop.getter : T` → path components.
    private static func entityPath(_ text: Substring) -> [String] {
        var components: [String] = []
        var current = ""
        var index = text.startIndex
        var sawExtension = false
        while index < text.endIndex {
            let character = text[index]
            switch character {
            case "(":
                if text[index...].hasPrefix("(extension in ") {
                    // `(extension in Module):Swift.Array.member`: the extended type names the member.
                    let end = skipBalanced(text, from: index)
                    index = end
                    if index < text.endIndex, text[index] == ":" { index = text.index(after: index) }
                    sawExtension = true
                    continue
                }
                // `(name in _0123ABCD)`: a private declaration's discriminator; the name is what counts.
                let group = text[index..<skipBalanced(text, from: index)]
                if let inRange = group.range(of: " in _"), !group.dropFirst().contains("(") {
                    current += group[group.index(after: group.startIndex)..<inRange.lowerBound]
                    index = group.endIndex
                    continue
                }
                if !current.isEmpty || !components.isEmpty {
                    // The argument list: the path ends here.
                    if !current.isEmpty { components.append(current) }
                    return finish(components, false)
                }
                index = skipBalanced(text, from: index)
                continue
            case "<":
                index = skipBalanced(text, from: index)  // generic arguments
                continue
            case ".":
                if !current.isEmpty { components.append(current) }
                current = ""
            case " ":
                // ` : Type` after a variable or accessor, or `in`/`where` clauses: the path ends.
                if !current.isEmpty { components.append(current) }
                return finish(components, sawExtension)
            default:
                current.append(character)
            }
            index = text.index(after: index)
        }
        if !current.isEmpty { components.append(current) }
        return finish(components, sawExtension)
    }

    private static func finish(_ components: [String], _ sawExtension: Bool) -> [String] {
        var components = components
        // Accessors fold into their property: `ThreadView.body.getter` → `ThreadView.body`.
        if components.count >= 3, let last = components.last, accessors.contains(last), last != "init" {
            components.removeLast()
        }
        if let last = components.last {
            if last == "__allocating_init" { components[components.count - 1] = "init" }
            if last == "__deallocating_deinit" { components[components.count - 1] = "deinit" }
        }
        return components
    }

    /// The index just past the bracket group starting at `start` (`(`, `<`, `[`).
    private static func skipBalanced(_ text: Substring, from start: Substring.Index) -> Substring.Index {
        var depth = 0
        var index = start
        while index < text.endIndex {
            switch text[index] {
            case "(", "<", "[": depth += 1
            case ")", ">", "]":
                // `->` is an arrow, not a closing bracket.
                if text[index] == ">", index > text.startIndex, text[text.index(before: index)] == "-" { break }
                depth -= 1
            default: break
            }
            index = text.index(after: index)
            if depth <= 0 { return index }
        }
        return text.endIndex
    }

    /// The first occurrence of `needle` outside brackets.
    private static func topLevelRange(of needle: String, in text: Substring) -> Range<Substring.Index>? {
        var depth = 0
        var index = text.startIndex
        while index < text.endIndex {
            let character = text[index]
            if character == "(" || character == "<" || character == "[" { depth += 1 }
            if character == ")" || character == "]" { depth -= 1 }
            if character == ">", !(index > text.startIndex && text[text.index(before: index)] == "-") { depth -= 1 }
            if depth == 0, text[index...].hasPrefix(needle) {
                return index..<text.index(index, offsetBy: needle.count)
            }
            index = text.index(after: index)
        }
        return nil
    }

    // MARK: - C++

    /// `ns::Type::member(int) const` → `Type.member`.
    static func simplifiedCxx(_ full: String) -> String {
        var text = Substring(full)
        for prefix in ["non-virtual thunk to ", "virtual thunk to ", "construction vtable for ", "vtable for "]
        where text.hasPrefix(prefix) {
            text = text.dropFirst(prefix.count)
        }
        // Cut the argument list: the first top-level `(` after a name character.
        var depth = 0
        var end = text.endIndex
        var index = text.startIndex
        var plain = ""
        while index < text.endIndex {
            let character = text[index]
            if character == "<" { depth += 1 } else if character == ">" { depth -= 1 } else if character == "(" && depth == 0 {
                if text[index...].hasPrefix("(anonymous namespace)") {
                    plain += "(anonymous namespace)"
                    index = text.index(index, offsetBy: "(anonymous namespace)".count)
                    continue
                }
                end = index
                break
            } else if depth == 0 {
                plain.append(character)
            }
            index = text.index(after: index)
        }
        _ = end
        // A return type may precede the name (`void ns::f`): keep what follows the last space.
        if let space = plain.lastIndex(of: " "), !plain.hasSuffix(" ") { plain = String(plain[plain.index(after: space)...]) }
        let parts = plain.components(separatedBy: "::").filter { !$0.isEmpty }
        guard !parts.isEmpty else { return full }
        return parts.suffix(2).joined(separator: ".")
    }
}

extension Array where Element == String {
    /// Drops the module (the first component) when there is a type or member after it.
    fileprivate func removeFirstModule() -> String {
        if count >= 2 { return dropFirst().joined(separator: ".") }
        return joined(separator: ".")
    }
}
