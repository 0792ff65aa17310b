import Foundation

// Byte-level scanning of demangled Swift names: the words and groups the simplification
// (`SwiftNameSimplifier.swift`) looks for.

extension SwiftNames {
    // MARK: - Swift

    // The demangled text is a tree printed with infix words: `A of B`, `A for B`, `A in B`,
    // `X specialization <...> of B`, `protocol witness for R in conformance T : P in M`. The
    // simplification peels the words that say how (a specialization, a thunk, an async piece, a
    // merged copy) until the function itself is left, then reads its `Type.member` path. It works on
    // UTF-8 bytes: it runs once per distinct symbol, and on a batch of ten thousand symbols String's
    // index arithmetic cost more than the DWARF lookups.

    typealias Bytes = [UInt8]

    /// One-word modifiers of what follows (`static Foo.bar`, `merged closure #1 ...`).
    static let modifiers: [Bytes] = ["merged ", "static ", "specialized ", "@objc ", "@nonobjc ", "dynamic "]
        .map { Array($0.utf8) }

    /// Conformances `T : P in M` whose type `T` names the function: a witness table or its
    /// accessors serve the conforming type.
    static let conformancePrefixes: [Bytes] = [
        "protocol witness table for ", "protocol witness table accessor for ", "generic protocol witness table for ",
        "instantiation function for generic protocol witness table for ", "protocol conformance descriptor for ",
        "resilient protocol witness table for ",
    ].map { Array($0.utf8) }
    /// Like `conformancePrefixes`, but `X in T : P in M`: the conformance follows the first ` in `.
    static let nestedConformancePrefixes: [Bytes] = [
        "base witness table accessor for ", "associated type witness table accessor for ",
    ].map { Array($0.utf8) }

    static let protocolWitness = Array("protocol witness for ".utf8)
    static let inConformance = Array(" in conformance ".utf8)
    static let vtableThunk = Array("vtable thunk for ".utf8)
    static let dispatchingTo = Array(" dispatching to ".utf8)
    static let reabstractionThunk = Array("reabstraction thunk".utf8)
    static let partialFunction = Array(" partial function for ".utf8)
    static let typeAndConformance = Array(" and conformance ".utf8)
    static let typeWord = Array("type ".utf8)
    static let unmangledSuffix = Array(" with unmangled suffix ".utf8)
    static let ofWord = Array(" of ".utf8)
    static let inWord = Array(" in ".utf8)
    static let typeSeparator = Array(" : ".utf8)
    static let discriminator = Array(" in _".utf8)
    static let extensionIn = Array("(extension in ".utf8)
    static let privateContext = Array("in _".utf8)
    static let optionalType = Array("Swift.Optional<".utf8)
    static let closureWords: [Bytes] = ["closure #", "implicit closure #", "autoclosure #"]
        .map { Array($0.utf8) }

    /// What a reabstraction thunk reads as: it converts one function type into another and serves no
    /// function of its own, and its types (hundreds of characters) would make every signature through
    /// it unique to one generic instantiation.
    static let reabstractionThunkName = "reabstraction thunk"

    static let accessors: Set<String> = [
        "getter", "setter", "modify", "_modify", "read", "_read", "didset", "willset", "unsafeAddressor",
        "unsafeMutableAddressor", "materializeForSet", "init", "modify2", "read2", "yielding borrow", "yielding mutate",
        "owningAddressor", "owningMutableAddressor", "nativeOwningAddressor", "nativeOwningMutableAddressor",
        "nativePinningAddressor", "nativePinningMutableAddressor", "globalGetter",
    ]

    @inline(__always)
    static func matches(_ text: Bytes, _ at: Int, _ end: Int, _ needle: Bytes) -> Bool {
        guard end - at >= needle.count else { return false }
        var index = 0
        while index < needle.count {
            if text[at + index] != needle[index] { return false }
            index += 1
        }
        return true
    }

    /// Characters of an operator name (`==`, `..<`, `&>>`).
    @inline(__always)
    static func isOperatorByte(_ byte: UInt8) -> Bool {
        switch byte {
        case UInt8(ascii: "/"), UInt8(ascii: "="), UInt8(ascii: "-"), UInt8(ascii: "+"), UInt8(ascii: "!"),
            UInt8(ascii: "*"), UInt8(ascii: "%"), UInt8(ascii: "<"), UInt8(ascii: ">"), UInt8(ascii: "&"),
            UInt8(ascii: "|"), UInt8(ascii: "^"), UInt8(ascii: "~"), UInt8(ascii: "?"), UInt8(ascii: "."):
            return true
        default:
            return false
        }
    }

    /// The end of an operator member name after the `.` at `dot` (`Swift.Int.< infix`), or `nil`
    /// when an ordinary name follows. Its `<` and `>` are no brackets.
    @inline(__always)
    static func operatorEnd(_ text: Bytes, after dot: Int, _ end: Int) -> Int? {
        var index = dot + 1
        guard index < end, isOperatorByte(text[index]) else { return nil }
        while index < end, isOperatorByte(text[index]) { index += 1 }
        return index
    }

    static let fixities: [Bytes] = [" infix", " prefix", " postfix"].map { Array($0.utf8) }

    /// The end of an operator name starting at `start` when it is one (`< infix(...)`, as a local
    /// type's `static <` prints), or `nil`.
    static func fixedOperatorEnd(_ text: Bytes, at start: Int, _ end: Int) -> Int? {
        var index = start
        while index < end, isOperatorByte(text[index]) { index += 1 }
        guard index > start, fixities.contains(where: { matches(text, index, end, $0) }) else { return nil }
        return index
    }

    /// One step of a bracket-aware scan from `index`: the next index, with `depth` updated for `(`
    /// and `<`. Square brackets are not counted: the demangler prints
    /// `[Closure Propagated : f, Argument Types : [...]>` without the closing one.
    @inline(__always)
    static func scanStep(_ text: Bytes, _ index: Int, _ end: Int, _ depth: inout Int) -> Int {
        switch text[index] {
        case UInt8(ascii: "("):
            depth += 1
        case UInt8(ascii: "<"):
            if index == 0 || text[index - 1] == UInt8(ascii: " "),
                let operatorEnd = fixedOperatorEnd(text, at: index, end)
            {
                return operatorEnd
            }
            depth += 1
        case UInt8(ascii: ")"):
            depth -= 1
        case UInt8(ascii: ">"):
            if index == 0 || text[index - 1] != UInt8(ascii: "-") { depth -= 1 }  // `->` is an arrow
        case UInt8(ascii: "."):
            if let operatorEnd = operatorEnd(text, after: index, end) { return operatorEnd }
        default:
            break
        }
        return index + 1
    }

    /// The index just past the bracket group opening at `start` (`(` or `<`); `end` if unclosed.
    static func skipGroup(_ text: Bytes, from start: Int, _ end: Int) -> Int {
        var depth = 0
        var index = start
        while index < end {
            index = scanStep(text, index, end, &depth)
            if depth <= 0 { return index }
        }
        return end
    }

    /// Whether `needle` occurs anywhere in `start..<end`, brackets or not: one comparison per byte,
    /// where the bracket-aware scan below looks at each byte's kind. Most of the words looked for
    /// (` with unmangled suffix `, ` in conformance `, ` in ` past the last context) are not there
    /// at all: a third of the names' simplification was scanning for them.
    static func occurs(_ needle: Bytes, in text: Bytes, _ start: Int, _ end: Int) -> Bool {
        guard end - start >= needle.count else { return false }
        return text.withUnsafeBufferPointer { bytes in
            needle.withUnsafeBufferPointer { needle in
                let first = needle[0]
                var index = start
                let last = end - needle.count
                while index <= last {
                    if bytes[index] == first {
                        var matched = 1
                        while matched < needle.count, bytes[index + matched] == needle[matched] { matched += 1 }
                        if matched == needle.count { return true }
                    }
                    index += 1
                }
                return false
            }
        }
    }

    /// The first occurrence of `needle` outside brackets, in `start..<end`.
    static func topLevelFind(_ needle: Bytes, in text: Bytes, _ start: Int, _ end: Int) -> Int? {
        guard occurs(needle, in: text, start, end) else { return nil }
        let first = needle[0]
        var depth = 0
        var index = start
        return text.withUnsafeBufferPointer { bytes -> Int? in
            while index < end {
                let byte = bytes[index]
                if byte == first, depth == 0, matches(text, index, end, needle) { return index }
                // Most bytes are letters: no bracket, dot or operator to look at.
                if !isStructural(byte) {
                    index += 1
                    continue
                }
                index = scanStep(text, index, end, &depth)
            }
            return nil
        }
    }

    /// The bytes `scanStep` does more than step over: brackets and the dot before an operator.
    @inline(__always)
    static func isStructural(_ byte: UInt8) -> Bool {
        switch byte {
        case UInt8(ascii: "("), UInt8(ascii: ")"), UInt8(ascii: "<"), UInt8(ascii: ">"), UInt8(ascii: "."): return true
        default: return false
        }
    }

    /// The last occurrence of `needle` outside brackets, in `start..<end`.
    static func lastTopLevelFind(_ needle: Bytes, in text: Bytes, _ start: Int, _ end: Int) -> Int? {
        guard occurs(needle, in: text, start, end) else { return nil }
        let first = needle[0]
        var found: Int?
        var depth = 0
        var index = start
        while index < end {
            let byte = text[index]
            if byte == first, depth == 0, matches(text, index, end, needle) { found = index }
            if !isStructural(byte) {
                index += 1
                continue
            }
            index = scanStep(text, index, end, &depth)
        }
        return found
    }

    /// The first occurrence of `needle` in `start..<end` that starts before `startingBefore`.
    static func firstIndex(
        of needle: Bytes, in text: Bytes, _ start: Int, _ end: Int, startingBefore: Int = .max
    ) -> Int? {
        var index = start
        while index < min(end, startingBefore) {
            if text[index] == needle[0], matches(text, index, end, needle) { return index }
            index += 1
        }
        return nil
    }

    @inline(__always)
    static func isWordByte(_ byte: UInt8) -> Bool {
        switch byte {
        case UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "A")...UInt8(ascii: "Z"),
            UInt8(ascii: "0")...UInt8(ascii: "9"), UInt8(ascii: "_"), UInt8(ascii: "$"), UInt8(ascii: "-"),
            UInt8(ascii: "#"), UInt8(ascii: "@"):
            return true
        default:
            return false
        }
    }

    /// Descriptive words start lowercase (`outlined`, `initializeWithCopy`, `@objc`); a path starts
    /// with a module name followed by `.`, a local type with its (usually capitalised) name.
    @inline(__always)
    static func isDescriptiveWordStart(_ byte: UInt8) -> Bool {
        (byte >= UInt8(ascii: "a") && byte <= UInt8(ascii: "z")) || byte == UInt8(ascii: "@")
            || byte == UInt8(ascii: "#") || (byte >= UInt8(ascii: "0") && byte <= UInt8(ascii: "9"))
    }

    static let describedByWords: [Bytes] = ["of", "for", "to"].map { Array($0.utf8) }
    static let contextWord = Array("in".utf8)

    /// Words that describe what follows and end in `of`, `for` or `to`: `outlined copy of `,
    /// `default argument 2 of `, `type metadata accessor for `, `partial apply forwarder for `,
    /// `storeEnumTagSinglePayload value witness for `. Returns where the words before `of` end (the
    /// label) and where the described thing starts. ` in ` stops the search: `closure #1 in X` is a
    /// context, not a description.
    static func descriptiveWords(_ text: Bytes, _ start: Int, _ end: Int) -> (labelEnd: Int, rest: Int)? {
        var index = start
        var words = 0
        while index < end, words < 10, isDescriptiveWordStart(text[index]) {
            let wordStart = index
            while index < end, isWordByte(text[index]) { index += 1 }
            guard index < end, text[index] == UInt8(ascii: " ") else { return nil }
            func wordIs(_ word: Bytes) -> Bool {
                index - wordStart == word.count && matches(text, wordStart, index, word)
            }
            if wordIs(contextWord) { return nil }
            if words > 0, describedByWords.contains(where: wordIs) { return (wordStart - 1, index + 1) }
            words += 1
            index += 1
        }
        return nil
    }

    static let specializationWord = Array("specialization".utf8)

    /// After `generic specialization <...> of `, `function signature specialization <...> of `,
    /// `generic not re-abstracted specialization <...> of ` (any words ending in `specialization`):
    /// where the specialized function starts.
    static func specializationEnd(_ text: Bytes, _ start: Int, _ end: Int) -> Int? {
        var index = start
        var words = 0
        while index < end, words < 6, isDescriptiveWordStart(text[index]) {
            while index < end, isWordByte(text[index]) { index += 1 }
            guard index + 1 < end, text[index] == UInt8(ascii: " ") else { return nil }
            if text[index + 1] == UInt8(ascii: "<"), index - start >= specializationWord.count,
                matches(text, index - specializationWord.count, index, specializationWord)
            {
                let headerEnd = skipGroup(text, from: index + 1, end)
                guard matches(text, headerEnd, end, ofWord) else { return nil }
                return headerEnd + ofWord.count
            }
            words += 1
            index += 1
        }
        return nil
    }

    /// A tuple or function type (`(Swift.String, Any)`, `@callee_guaranteed () -> ()`), as opposed
    /// to a private name `(name in _0123ABCD)` or `(extension in M):`.
    static func isStructuralType(_ text: Bytes, _ start: Int, _ end: Int) -> Bool {
        guard start < end else { return false }
        if text[start] == UInt8(ascii: "@") { return true }
        guard text[start] == UInt8(ascii: "(") else { return false }
        if matches(text, start, end, extensionIn) { return false }
        var index = start + 1
        while index < end, isWordByte(text[index]) { index += 1 }
        return !(index > start + 1 && matches(text, index, end, discriminator))
    }
}
