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
    private static let swiftDemangle: SwiftDemangle? = {
        guard let symbol = dlsym(UnsafeMutableRawPointer(bitPattern: 0), "swift_demangle") else { return nil }
        return unsafeBitCast(symbol, to: SwiftDemangle.self)
    }()
    private static let cxaDemangle: CxaDemangle? = {
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

    private static let swiftPrefixBytes: [[UInt8]] = swiftPrefixes.map { Array($0.utf8) }
    private static let specializationPrefixes: [[UInt8]] = [
        "generic specialization ", "function signature specialization ", "generic partial specialization ",
    ].map { Array($0.utf8) }
    private static let closurePrefixes: [[UInt8]] = ["closure #", "implicit closure #", "autoclosure #"].map { Array($0.utf8) }
    private static let partialFunction = Array(" partial function for ".utf8)
    private static let inConformance = Array(" in conformance ".utf8)
    private static let andConformance = Array(" and conformance ".utf8)
    private static let valueWitness = Array(" value witness for ".utf8)
    private static let inWord = Array(" in ".utf8)
    private static let discriminator = Array(" in _".utf8)
    private static let extensionIn = Array("(extension in ".utf8)
    private static let typeWord = Array("type ".utf8)
    private static let ofWord = Array("of ".utf8)

    // The simplification works on UTF-8 bytes: it runs once per distinct symbol, and on a batch of
    // ten thousand symbols String's index arithmetic cost more than the DWARF lookups.

    @inline(__always)
    private static func matches(_ text: [UInt8], _ at: Int, _ end: Int, _ needle: [UInt8]) -> Bool {
        guard end - at >= needle.count else { return false }
        var index = 0
        while index < needle.count {
            if text[at + index] != needle[index] { return false }
            index += 1
        }
        return true
    }

    /// The index just past the bracket group starting at `start` (`(`, `<`, `[`); `->` is an arrow.
    private static func skipBalanced(_ text: [UInt8], from start: Int, _ end: Int) -> Int {
        var depth = 0
        var index = start
        while index < end {
            switch text[index] {
            case UInt8(ascii: "("), UInt8(ascii: "<"), UInt8(ascii: "["): depth += 1
            case UInt8(ascii: ")"), UInt8(ascii: "]"): depth -= 1
            case UInt8(ascii: ">"):
                if !(index > start && text[index - 1] == UInt8(ascii: "-")) { depth -= 1 }
            default: break
            }
            index += 1
            if depth <= 0 { return index }
        }
        return end
    }

    /// The first occurrence of `needle` outside brackets, in `start..<end`.
    private static func topLevelFind(_ needle: [UInt8], in text: [UInt8], _ start: Int, _ end: Int) -> Int? {
        var depth = 0
        var index = start
        while index < end {
            let byte = text[index]
            if byte == UInt8(ascii: "(") || byte == UInt8(ascii: "<") || byte == UInt8(ascii: "[") {
                depth += 1
            } else if byte == UInt8(ascii: ")") || byte == UInt8(ascii: "]") {
                depth -= 1
            } else if byte == UInt8(ascii: ">"), !(index > start && text[index - 1] == UInt8(ascii: "-")) {
                depth -= 1
            }
            if depth == 0, byte == needle[0], matches(text, index, end, needle) { return index }
            index += 1
        }
        return nil
    }

    static func simplifiedSwift(_ full: String) -> String {
        let text = Array(full.utf8)
        var start = 0
        var end = text.count
        var closure = false
        var changed = true
        while changed {
            changed = false
            while start < end, text[start] == UInt8(ascii: " ") { start += 1 }
            guard start < end else { break }
            // `(1) suspend resume partial function for X`, `(2) await resume partial function for X`
            if text[start] == UInt8(ascii: "("), let found = firstIndex(of: partialFunction, in: text, start, min(end, start + 40)) {
                start = found + partialFunction.count
                changed = true
            }
            for prefix in swiftPrefixBytes where matches(text, start, end, prefix) {
                start += prefix.count
                changed = true
            }
            // `generic specialization <...> of X`, `function signature specialization <...> of X`
            for prefix in specializationPrefixes where matches(text, start, end, prefix) {
                start += prefix.count
                if start < end, text[start] == UInt8(ascii: "<") { start = skipBalanced(text, from: start, end) }
                while start < end, text[start] == UInt8(ascii: " ") { start += 1 }
                if matches(text, start, end, ofWord) { start += ofWord.count }
                changed = true
            }
            // `closure #1 (Swift.Int) -> () in X`, `implicit closure #2 in X`
            for prefix in closurePrefixes where matches(text, start, end, prefix) {
                if let found = topLevelFind(inWord, in: text, start, end) {
                    start = found + inWord.count
                    closure = true
                    changed = true
                }
            }
            // `initializeWithCopy value witness for X`: the type the witness serves.
            if let found = topLevelFind(valueWitness, in: text, start, end) {
                start = found + valueWitness.count
                changed = true
            }
            if matches(text, start, end, typeWord) {  // `... accessor for type X and conformance Y`
                start += typeWord.count
                if let found = topLevelFind(andConformance, in: text, start, end) { end = found }
                changed = true
            }
            // `X in conformance Y` (witnesses): keep X.
            if let found = topLevelFind(inConformance, in: text, start, end) {
                end = found
                changed = true
            }
        }
        var components = entityPath(text, start, end)
        if components.isEmpty { return full }
        // Accessors fold into their property: `ThreadView.body.getter` → `ThreadView.body`.
        if components.count >= 3, let last = components.last, accessors.contains(last), last != "init" {
            components.removeLast()
        }
        if let last = components.last {
            if last == "__allocating_init" { components[components.count - 1] = "init" }
            if last == "__deallocating_deinit" { components[components.count - 1] = "deinit" }
        }
        // Drop the module when a type or member follows it.
        let kept = components.count >= 2 ? components.dropFirst() : components[...]
        return (closure ? "closure in " : "") + kept.joined(separator: ".")
    }

    private static func firstIndex(of needle: [UInt8], in text: [UInt8], _ start: Int, _ end: Int) -> Int? {
        var index = start
        while index < end {
            if text[index] == needle[0], matches(text, index, text.count, needle) { return index }
            index += 1
        }
        return nil
    }

    /// `Module.Type.member(args) -> R` or `Module.Type.prop.getter : T` → path components.
    private static func entityPath(_ text: [UInt8], _ start: Int, _ end: Int) -> [String] {
        var components: [String] = []
        var current: [UInt8] = []
        var index = start
        func flush() {
            if !current.isEmpty { components.append(String(decoding: current, as: UTF8.self)) }
            current.removeAll(keepingCapacity: true)
        }
        while index < end {
            let byte = text[index]
            switch byte {
            case UInt8(ascii: "("):
                if matches(text, index, end, extensionIn) {
                    // `(extension in Module):Swift.Array.member`: the extended type names the member.
                    index = skipBalanced(text, from: index, end)
                    if index < end, text[index] == UInt8(ascii: ":") { index += 1 }
                    continue
                }
                // `(name in _0123ABCD)`: a private declaration's discriminator; the name is what counts.
                let groupEnd = skipBalanced(text, from: index, end)
                if let found = firstIndex(of: discriminator, in: text, index + 1, groupEnd),
                    !text[(index + 1)..<groupEnd].contains(UInt8(ascii: "("))
                {
                    current.append(contentsOf: text[(index + 1)..<found])
                    index = groupEnd
                    continue
                }
                if !current.isEmpty || !components.isEmpty {
                    flush()  // the argument list: the path ends here
                    return components
                }
                index = groupEnd
                continue
            case UInt8(ascii: "<"):
                index = skipBalanced(text, from: index, end)  // generic arguments
                continue
            case UInt8(ascii: "."):
                flush()
            case UInt8(ascii: " "):
                // ` : Type` after a variable or accessor, or `in`/`where` clauses: the path ends.
                flush()
                return components
            default:
                current.append(byte)
            }
            index += 1
        }
        flush()
        return components
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
