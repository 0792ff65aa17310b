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

    /// Prefixes the runtime's `swift_demangle` reads (`__T0` once its Mach-O underscore is gone).
    private static let modernPrefixes = ["$s", "_$s", "$S", "_$S", "$e", "_$e", "_T0", "__T0"]

    /// Whether `name` is a Swift symbol. Swift 3's `_T` names only count when they parse: plenty of
    /// C symbols start with `_T` too.
    static func isSwiftMangled(_ name: String) -> Bool {
        for prefix in modernPrefixes where name.hasPrefix(prefix) { return true }
        return isLegacySwiftMangled(name)
    }

    private static func isLegacySwiftMangled(_ name: String) -> Bool {
        LegacySwiftDemangler.hasLegacyPrefix(name.utf8) && name.utf8.count <= longestMangledName
            && LegacySwiftDemangler.demangle(name) != nil
    }

    static func isCxxMangled(_ name: String) -> Bool { name.hasPrefix("_Z") || name.hasPrefix("__Z") }

    /// The full demangled name, or `nil` when the name is not mangled or does not demangle.
    public static func demangle(_ mangled: String) -> String? {
        guard mangled.utf8.count <= longestMangledName else { return nil }
        // The runtime no longer reads Swift 3's mangling.
        if LegacySwiftDemangler.hasLegacyPrefix(mangled.utf8) { return LegacySwiftDemangler.demangle(mangled) }
        if modernPrefixes.contains(where: { mangled.hasPrefix($0) }), let swiftDemangle {
            let runtimeName = mangled.hasPrefix("__T0") ? String(mangled.dropFirst()) : mangled
            return runtimeName.withCString { pointer -> String? in
                guard let result = swiftDemangle(pointer, strlen(pointer), nil, nil, 0) else { return nil }
                defer { free(result) }
                let text = String(cString: result)
                return text.isEmpty || text == runtimeName ? nil : text
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
        if modernPrefixes.contains(where: { mangledOrPlain.hasPrefix($0) })
            || LegacySwiftDemangler.hasLegacyPrefix(mangledOrPlain.utf8)
        {
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

    // The demangled text is a tree printed with infix words: `A of B`, `A for B`, `A in B`,
    // `X specialization <...> of B`, `protocol witness for R in conformance T : P in M`. The
    // simplification peels the words that say how (a specialization, a thunk, an async piece, a
    // merged copy) until the function itself is left, then reads its `Type.member` path. It works on
    // UTF-8 bytes: it runs once per distinct symbol, and on a batch of ten thousand symbols String's
    // index arithmetic cost more than the DWARF lookups.

    private typealias Bytes = [UInt8]

    /// One-word modifiers of what follows (`static Foo.bar`, `merged closure #1 ...`).
    private static let modifiers: [Bytes] = ["merged ", "static ", "specialized ", "@objc ", "@nonobjc ", "dynamic "]
        .map { Array($0.utf8) }

    /// Conformances `T : P in M` whose type `T` names the function: a witness table or its
    /// accessors serve the conforming type.
    private static let conformancePrefixes: [Bytes] = [
        "protocol witness table for ", "protocol witness table accessor for ", "generic protocol witness table for ",
        "instantiation function for generic protocol witness table for ", "protocol conformance descriptor for ",
        "resilient protocol witness table for ",
    ].map { Array($0.utf8) }
    /// Like `conformancePrefixes`, but `X in T : P in M`: the conformance follows the first ` in `.
    private static let nestedConformancePrefixes: [Bytes] = [
        "base witness table accessor for ", "associated type witness table accessor for ",
    ].map { Array($0.utf8) }

    private static let protocolWitness = Array("protocol witness for ".utf8)
    private static let inConformance = Array(" in conformance ".utf8)
    private static let vtableThunk = Array("vtable thunk for ".utf8)
    private static let dispatchingTo = Array(" dispatching to ".utf8)
    private static let reabstractionThunk = Array("reabstraction thunk".utf8)
    private static let partialFunction = Array(" partial function for ".utf8)
    private static let typeAndConformance = Array(" and conformance ".utf8)
    private static let typeWord = Array("type ".utf8)
    private static let unmangledSuffix = Array(" with unmangled suffix ".utf8)
    private static let ofWord = Array(" of ".utf8)
    private static let inWord = Array(" in ".utf8)
    private static let typeSeparator = Array(" : ".utf8)
    private static let discriminator = Array(" in _".utf8)
    private static let extensionIn = Array("(extension in ".utf8)
    private static let privateContext = Array("in _".utf8)
    private static let optionalType = Array("Swift.Optional<".utf8)
    private static let closureWords: [Bytes] = ["closure #", "implicit closure #", "autoclosure #"]
        .map { Array($0.utf8) }

    /// What a reabstraction thunk reads as: it converts one function type into another and serves no
    /// function of its own, and its types (hundreds of characters) would make every signature through
    /// it unique to one generic instantiation.
    static let reabstractionThunkName = "reabstraction thunk"

    private static let accessors: Set<String> = [
        "getter", "setter", "modify", "_modify", "read", "_read", "didset", "willset", "unsafeAddressor",
        "unsafeMutableAddressor", "materializeForSet", "init", "modify2", "read2", "yielding borrow", "yielding mutate",
        "owningAddressor", "owningMutableAddressor", "nativeOwningAddressor", "nativeOwningMutableAddressor",
        "nativePinningAddressor", "nativePinningMutableAddressor", "globalGetter",
    ]

    @inline(__always)
    private static func matches(_ text: Bytes, _ at: Int, _ end: Int, _ needle: Bytes) -> Bool {
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
    private static func isOperatorByte(_ byte: UInt8) -> Bool {
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
    private static func operatorEnd(_ text: Bytes, after dot: Int, _ end: Int) -> Int? {
        var index = dot + 1
        guard index < end, isOperatorByte(text[index]) else { return nil }
        while index < end, isOperatorByte(text[index]) { index += 1 }
        return index
    }

    private static let fixities: [Bytes] = [" infix", " prefix", " postfix"].map { Array($0.utf8) }

    /// The end of an operator name starting at `start` when it is one (`< infix(...)`, as a local
    /// type's `static <` prints), or `nil`.
    private static func fixedOperatorEnd(_ text: Bytes, at start: Int, _ end: Int) -> Int? {
        var index = start
        while index < end, isOperatorByte(text[index]) { index += 1 }
        guard index > start, fixities.contains(where: { matches(text, index, end, $0) }) else { return nil }
        return index
    }

    /// One step of a bracket-aware scan from `index`: the next index, with `depth` updated for `(`
    /// and `<`. Square brackets are not counted: the demangler prints
    /// `[Closure Propagated : f, Argument Types : [...]>` without the closing one.
    @inline(__always)
    private static func scanStep(_ text: Bytes, _ index: Int, _ end: Int, _ depth: inout Int) -> Int {
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
    private static func skipGroup(_ text: Bytes, from start: Int, _ end: Int) -> Int {
        var depth = 0
        var index = start
        while index < end {
            index = scanStep(text, index, end, &depth)
            if depth <= 0 { return index }
        }
        return end
    }

    /// The first occurrence of `needle` outside brackets, in `start..<end`.
    private static func topLevelFind(_ needle: Bytes, in text: Bytes, _ start: Int, _ end: Int) -> Int? {
        var depth = 0
        var index = start
        while index < end {
            if depth == 0, text[index] == needle[0], matches(text, index, end, needle) { return index }
            index = scanStep(text, index, end, &depth)
        }
        return nil
    }

    /// The last occurrence of `needle` outside brackets, in `start..<end`.
    private static func lastTopLevelFind(_ needle: Bytes, in text: Bytes, _ start: Int, _ end: Int) -> Int? {
        var found: Int?
        var depth = 0
        var index = start
        while index < end {
            if depth == 0, text[index] == needle[0], matches(text, index, end, needle) { found = index }
            index = scanStep(text, index, end, &depth)
        }
        return found
    }

    /// The first occurrence of `needle` in `start..<end` that starts before `startingBefore`.
    private static func firstIndex(
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
    private static func isWordByte(_ byte: UInt8) -> Bool {
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
    private static func isDescriptiveWordStart(_ byte: UInt8) -> Bool {
        (byte >= UInt8(ascii: "a") && byte <= UInt8(ascii: "z")) || byte == UInt8(ascii: "@")
            || byte == UInt8(ascii: "#") || (byte >= UInt8(ascii: "0") && byte <= UInt8(ascii: "9"))
    }

    private static let describedByWords: [Bytes] = ["of", "for", "to"].map { Array($0.utf8) }
    private static let contextWord = Array("in".utf8)

    /// Words that describe what follows and end in `of`, `for` or `to`: `outlined copy of `,
    /// `default argument 2 of `, `type metadata accessor for `, `partial apply forwarder for `,
    /// `storeEnumTagSinglePayload value witness for `. Returns where the words before `of` end (the
    /// label) and where the described thing starts. ` in ` stops the search: `closure #1 in X` is a
    /// context, not a description.
    private static func descriptiveWords(_ text: Bytes, _ start: Int, _ end: Int) -> (labelEnd: Int, rest: Int)? {
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

    private static let specializationWord = Array("specialization".utf8)

    /// After `generic specialization <...> of `, `function signature specialization <...> of `,
    /// `generic not re-abstracted specialization <...> of ` (any words ending in `specialization`):
    /// where the specialized function starts.
    private static func specializationEnd(_ text: Bytes, _ start: Int, _ end: Int) -> Int? {
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
    private static func isStructuralType(_ text: Bytes, _ start: Int, _ end: Int) -> Bool {
        guard start < end else { return false }
        if text[start] == UInt8(ascii: "@") { return true }
        guard text[start] == UInt8(ascii: "(") else { return false }
        if matches(text, start, end, extensionIn) { return false }
        var index = start + 1
        while index < end, isWordByte(text[index]) { index += 1 }
        return !(index > start + 1 && matches(text, index, end, discriminator))
    }

    static func simplifiedSwift(_ full: String) -> String {
        let text = Array(full.utf8)
        guard let simple = simplify(text, 0, text.count), !simple.isEmpty else { return full }
        return simple
    }

    /// The simplified form of the demangled name in `start..<end`, or `nil` when no path is left.
    private static func simplify(_ text: Bytes, _ start: Int, _ end: Int) -> String? {
        var start = start
        var end = end
        if let suffix = topLevelFind(unmangledSuffix, in: text, start, end) { end = suffix }  // `.resume.0`, `.cold.1`
        while true {
            while start < end, text[start] == UInt8(ascii: " ") { start += 1 }
            guard start < end else { return nil }
            // `(1) suspend resume partial function for X`, `(2) await resume partial function for X`
            if text[start] == UInt8(ascii: "("),
                let found = firstIndex(of: partialFunction, in: text, start, end, startingBefore: start + 40)
            {
                start = found + partialFunction.count
                continue
            }
            if let modifier = modifiers.first(where: { matches(text, start, end, $0) }) {
                start += modifier.count
                continue
            }
            if matches(text, start, end, reabstractionThunk) { return reabstractionThunkName }
            if matches(text, start, end, protocolWitness) {
                return witness(text, start + protocolWitness.count, end)
            }
            if let prefix = conformancePrefixes.first(where: { matches(text, start, end, $0) }) {
                return conformingType(text, start + prefix.count, end)
            }
            if let prefix = nestedConformancePrefixes.first(where: { matches(text, start, end, $0) }) {
                let rest = start + prefix.count
                guard let found = topLevelFind(inWord, in: text, rest, end) else { return nil }
                return conformingType(text, found + inWord.count, end)
            }
            // `vtable thunk for Base.f dispatching to Derived.f`: the thunk serves `Derived.f`.
            if matches(text, start, end, vtableThunk) {
                start += vtableThunk.count
                if let found = topLevelFind(dispatchingTo, in: text, start, end) { start = found + dispatchingTo.count }
                continue
            }
            if let after = specializationEnd(text, start, end) {
                start = after
                continue
            }
            if let (labelEnd, rest) = descriptiveWords(text, start, end) {
                let label = start..<labelEnd
                start = rest
                // `outlined copy of Swift.Optional<Foo.Bar>` copies a `Bar`.
                while matches(text, start, end, optionalType),
                    skipGroup(text, from: start + optionalType.count - 1, end) == end
                {
                    start += optionalType.count
                    end -= 1
                }
                // `outlined destroy of (Swift.String, Any)` has no single type to name: it reads as
                // what it does.
                if isStructuralType(text, start, end) { return String(decoding: text[label], as: UTF8.self) }
                continue
            }
            // `type Foo.Bar and conformance Foo.Bar : P in M` (lazy witness table accessors): `Bar`.
            if matches(text, start, end, typeWord) {
                start += typeWord.count
                if let found = topLevelFind(typeAndConformance, in: text, start, end) { end = found }
                continue
            }
            break
        }
        return contextChain(text, start, end)
    }

    /// `protocol witness for Swift.Hashable.hash(into:) in conformance Foo.Bar : Swift.Hashable in Foo`
    /// runs `Bar`'s `hash`: the conforming type and the requirement's member.
    private static func witness(_ text: Bytes, _ start: Int, _ end: Int) -> String? {
        guard let split = topLevelFind(inConformance, in: text, start, end) else { return simplify(text, start, end) }
        var requirementStart = start
        while let modifier = modifiers.first(where: { matches(text, requirementStart, split, $0) }) {
            requirementStart += modifier.count
        }
        let requirement = path(text, requirementStart, split, hasModule: true)
        guard let member = requirement.last, requirement.count >= 2 else { return simplify(text, start, split) }
        guard let type = conformingType(text, split + inConformance.count, end) else { return member }
        return type + "." + member
    }

    /// `T : P in M` → `T` simplified (`<A where ...> Foo.Bar<A> : P in M` → `Bar`).
    private static func conformingType(_ text: Bytes, _ start: Int, _ end: Int) -> String? {
        var start = start
        let typeEnd = lastTopLevelFind(typeSeparator, in: text, start, end) ?? end
        if start < typeEnd, text[start] == UInt8(ascii: "<") {  // a conditional conformance's requirements
            start = skipGroup(text, from: start, typeEnd)
        }
        return simplify(text, start, typeEnd)
    }

    /// A name with its contexts, `A in B in C`: closures (`closure #1 (...) in`), local functions
    /// (`lookup #1 (...) in`), local types (`FeatureInfo #1 in`) and their members
    /// (`count.getter : Swift.Int in`), around an outermost ordinary path. Local declarations join the
    /// outermost path as members of the function they are declared in
    /// (`SceneKitToolSpec.constructTasks.lookup`): their own names (`lookup`, `Visitor`, `C`) are too
    /// common to stand alone. Closures collapse into one leading `closure in`.
    private static func contextChain(_ text: Bytes, _ start: Int, _ end: Int) -> String? {
        var closure = false
        var inner: [String] = []  // innermost first
        var index = start
        while let found = topLevelFind(inWord, in: text, index, end) {
            let elementStart = index
            let elementEnd = found
            if closureWords.contains(where: { matches(text, elementStart, elementEnd, $0) }) {
                if inner.isEmpty { closure = true }
            } else if let hash = localDiscriminator(text, elementStart, elementEnd) {
                var nameStart = elementStart
                if text[nameStart] == UInt8(ascii: "$") { nameStart += 1 }  // `$defer`
                inner.append(String(decoding: text[nameStart..<hash], as: UTF8.self))
            } else {
                var memberStart = elementStart
                while let modifier = modifiers.first(where: { matches(text, memberStart, elementEnd, $0) }) {
                    memberStart += modifier.count
                }
                inner.append(contentsOf: path(text, memberStart, elementEnd, hasModule: false).reversed())
            }
            index = found + inWord.count
            // `init(...) -> Visitor #1 in F in Visitor #1 in F`: a local type returned by the element
            // prints with its own context before the element's own.
            if endsInBareResultType(text, elementStart, elementEnd),
                let ownContext = ownContextAfterResultType(in: text, from: index, end)
            {
                index = ownContext
            }
        }
        // The outermost context may itself be wrapped (`closure #1 in static Foo.bar`,
        // `implicit closure #1 in default argument 0 of Foo.bar`); without contexts it is the path.
        guard var outermost = index > start ? simplify(text, index, end) : pathName(text, index, end) else {
            return inner.isEmpty ? nil : (closure ? "closure in " : "") + inner.reversed().joined(separator: ".")
        }
        if outermost.hasPrefix("closure in ") {
            if inner.isEmpty { closure = true }
            outermost.removeFirst("closure in ".count)
        }
        return (closure ? "closure in " : "") + ([outermost] + inner.reversed()).joined(separator: ".")
    }

    private static let arrow = Array("-> ".utf8)

    /// Whether an element ends in a bare result type (`init(from:) -> Result`,
    /// `closure #8 () -> MutableNodeInfo #1`): a local type or one nested in it prints its own
    /// context after it, unbracketed.
    private static func endsInBareResultType(_ text: Bytes, _ start: Int, _ end: Int) -> Bool {
        guard let found = lastTopLevelFind(arrow, in: text, start, end) else { return false }
        var index = found + arrow.count
        while index < end {
            if text[index] == UInt8(ascii: "(") || text[index] == UInt8(ascii: "<") { return false }
            index += 1
        }
        return true
    }

    /// Where an element's own context starts when its bare result type printed its context first:
    /// that type is declared in a function enclosing the element, so the remaining elements are
    /// `typeContext + ownContext` with `typeContext` a tail of `ownContext` (`Visitor #1 in F` then
    /// `F`, or `PersistedCompilationState #1 in F` then the same). `nil` when they are not.
    private static func ownContextAfterResultType(in text: Bytes, from: Int, _ end: Int) -> Int? {
        var elements: [Range<Int>] = []
        var index = from
        while let found = topLevelFind(inWord, in: text, index, end) {
            elements.append(index..<found)
            index = found + inWord.count
        }
        elements.append(index..<end)
        func same(_ left: Range<Int>, _ right: Range<Int>) -> Bool {
            left.count == right.count && text[left].elementsEqual(text[right])
        }
        let count = elements.count
        for length in stride(from: 1, through: count / 2, by: 1)
        where (0..<length).allSatisfy({ same(elements[$0], elements[count - length + $0]) }) {
            return elements[length].lowerBound
        }
        return nil
    }

    /// `Module.Type.member(...)` → `Type.member`, or `nil` when no path is there.
    private static func pathName(_ text: Bytes, _ start: Int, _ end: Int) -> String? {
        let components = path(text, start, end, hasModule: true)
        return components.isEmpty ? nil : components.joined(separator: ".")
    }

    /// `name #3 ...`: where a local declaration's name ends.
    private static func localDiscriminator(_ text: Bytes, _ start: Int, _ end: Int) -> Int? {
        var index = start
        while index < end {
            let byte = text[index]
            if byte == UInt8(ascii: " ") {
                guard index + 1 < end, text[index + 1] == UInt8(ascii: "#") else { return nil }
                var digitsEnd = index + 2
                while digitsEnd < end, text[digitsEnd] >= UInt8(ascii: "0"), text[digitsEnd] <= UInt8(ascii: "9") {
                    digitsEnd += 1
                }
                return digitsEnd > index + 2 ? index : nil
            }
            if byte == UInt8(ascii: ".") || byte == UInt8(ascii: "(") || byte == UInt8(ascii: "<") { return nil }
            index += 1
        }
        return nil
    }

    /// A path's components, accessors folded into their property, `__allocating_init` read as
    /// `init`, and the module dropped when `hasModule` and a type or member follows it.
    private static func path(_ text: Bytes, _ start: Int, _ end: Int, hasModule: Bool) -> [String] {
        var components = entityPath(text, start, end)
        // Accessors fold into their property: `ThreadView.body.getter` → `ThreadView.body`.
        if components.count >= (hasModule ? 3 : 2), let last = components.last, accessors.contains(last),
            last != "init"
        {
            components.removeLast()
        }
        if let last = components.last {
            if last == "__allocating_init" { components[components.count - 1] = "init" }
            if last == "__deallocating_deinit" { components[components.count - 1] = "deinit" }
        }
        if hasModule, components.count >= 2 { components.removeFirst() }
        return components
    }

    /// `Module.Type.member(args) -> R` or `Module.Type.prop.getter : T` → path components.
    private static func entityPath(_ text: Bytes, _ start: Int, _ end: Int) -> [String] {
        var components: [String] = []
        var current: Bytes = []
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
                    index = skipGroup(text, from: index, end)
                    if index < end, text[index] == UInt8(ascii: ":") { index += 1 }
                    continue
                }
                // `(name in _0123ABCD)`: a private declaration's discriminator; the name is what counts.
                // `(in _0123ABCD)` alone marks a private extension's context: nothing to keep.
                let groupEnd = skipGroup(text, from: index, end)
                if matches(text, index + 1, groupEnd, privateContext) {
                    index = groupEnd
                    continue
                }
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
                if current.isEmpty, components.isEmpty, let operatorEnd = fixedOperatorEnd(text, at: index, end) {
                    return [String(decoding: text[index..<operatorEnd], as: UTF8.self)]  // `< infix(...)`
                }
                index = skipGroup(text, from: index, end)  // generic arguments
                continue
            case UInt8(ascii: "@"):
                // `Basics.Run.log@Sendable (...)`: the demangler prints a function's type attributes
                // right after its name.
                flush()
                return components
            case UInt8(ascii: "."):
                flush()
                if let operatorEnd = operatorEnd(text, after: index, end) {
                    // `Swift.Int.< infix(...)`: the operator is the member, and the path ends with it.
                    components.append(String(decoding: text[(index + 1)..<operatorEnd], as: UTF8.self))
                    return components
                }
            case UInt8(ascii: " "):
                // ` : Type` after a variable or accessor, ` infix`, or `where` clauses: the path ends.
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

// MARK: - Swift 3 (legacy `_T`) names

/// Swift 1–3 mangled names (`_TFC10Foundation15NSSimpleCStringD`): Swift 3-era dSYMs still carry
/// them, and the runtime's `swift_demangle` no longer reads them. This parses the old grammar
/// (`_T` + global) into a small tree and prints it the way the toolchain's demangler prints names
/// without sugar, so the simplification reads both the same way. A name only counts when the whole
/// of it parses: a C symbol that happens to start with `_T` stays as it was.
struct LegacySwiftDemangler {
    fileprivate typealias Node = LegacyNode

    private let text: [UInt8]
    private var position: Int
    private var substitutions: [Node] = []
    private var nesting = 0
    /// Set when a name would print too long: substitutions can repeat a subtree at every level,
    /// so a short hostile name could otherwise print exponentially long.
    private var tooLong = false

    private init(_ text: [UInt8], position: Int) {
        self.text = text
        self.position = position
    }

    /// `_T` or `__T` (Mach-O symbol tables) followed by something other than `0` (Swift 4's `_T0`
    /// is the runtime's). Reads four bytes at most: it runs for every symbol.
    static func hasLegacyPrefix<Bytes: Sequence<UInt8>>(_ bytes: Bytes) -> Bool {
        var iterator = bytes.makeIterator()
        let (underscore, T, zero) = (UInt8(ascii: "_"), UInt8(ascii: "T"), UInt8(ascii: "0"))
        guard iterator.next() == underscore else { return false }
        var second = iterator.next()
        if second == underscore { second = iterator.next() }  // `__T`
        guard second == T, let third = iterator.next() else { return false }
        return third != zero
    }

    /// The demangled name, or `nil` when `name` is not a whole legacy Swift name.
    static func demangle(_ name: String) -> String? {
        demangle(Array(name.utf8))
    }

    static func demangle(_ bytes: [UInt8]) -> String? {
        guard hasLegacyPrefix(bytes) else { return nil }
        let start = bytes[1] == UInt8(ascii: "_") ? 3 : 2
        var parser = LegacySwiftDemangler(bytes, position: start)
        guard var result = parser.global(), !parser.tooLong else { return nil }
        if parser.position < bytes.count {
            // `.cold.1`, `.llvm.1234`: a suffix the compiler or linker appended.
            guard bytes[parser.position] == UInt8(ascii: ".") else { return nil }
            result += " with unmangled suffix \"" + String(decoding: bytes[parser.position...], as: UTF8.self) + "\""
        }
        return result
    }

    // MARK: Reading

    private var atEnd: Bool { position >= text.count }
    private var peek: UInt8 { position < text.count ? text[position] : 0 }

    /// Consumes `expected` when the text continues with it.
    private mutating func next(_ expected: String) -> Bool {
        var index = position
        for byte in expected.utf8 {
            guard index < text.count, text[index] == byte else { return false }
            index += 1
        }
        position = index
        return true
    }

    private static func isDigit(_ byte: UInt8) -> Bool { byte >= UInt8(ascii: "0") && byte <= UInt8(ascii: "9") }

    /// `[0-9]+`, bounded so hostile input cannot overflow.
    private mutating func natural() -> Int? {
        guard Self.isDigit(peek) else { return nil }
        var value = 0
        while Self.isDigit(peek) {
            value = value * 10 + Int(peek - UInt8(ascii: "0"))
            guard value < 1 << 24 else { return nil }
            position += 1
        }
        return value
    }

    /// `_` is 0, `N_` is N + 1.
    private mutating func index() -> Int? {
        if next("_") { return 0 }
        guard let value = natural(), next("_") else { return nil }
        return value + 1
    }

    // MARK: Globals

    private mutating func global() -> String? {
        nesting += 1
        defer { nesting -= 1 }
        guard nesting < 64 else { return nil }
        if next("PA") {
            let objc = next("o")
            guard next("__T"), let inner = global() else { return nil }
            return (objc ? "partial apply ObjC forwarder for " : "partial apply forwarder for ") + inner
        }
        if next("M") { return metadata() }
        if next("w") {
            guard let kind = valueWitnessKind(), let type = type() else { return nil }
            return kind + " value witness for " + print(type)
        }
        if next("W") { return witnessTable() }
        if next("T") {
            if next("S") { return specialization() }
            if next("o") { return global().map { "@objc " + $0 } }
            if next("O") { return global().map { "@nonobjc " + $0 } }
            if next("D") { return global().map { "dynamic " + $0 } }
            if next("R") { return reabstractionThunk(helper: true) }
            if next("r") { return reabstractionThunk(helper: false) }
            if next("W") {
                guard let conformance = conformance(), let entity = entity() else { return nil }
                return "protocol witness for " + print(entity) + " in conformance " + conformance
            }
            return nil
        }
        if next("t") { return type().map { print($0) } }
        guard let entity = entity() else { return nil }
        return print(entity)
    }

    private mutating func metadata() -> String? {
        let prefixes: [(String, String)] = [
            ("a", "type metadata accessor for "), ("L", "lazy cache variable for type metadata for "),
            ("f", "full type metadata for "), ("m", "metaclass for "), ("P", "generic type metadata pattern for "),
            ("n", "nominal type descriptor for "),
        ]
        if next("p") { return protocolName().map { "protocol descriptor for " + print($0) } }
        for (code, words) in prefixes where next(code) { return type().map { words + print($0) } }
        return type().map { "type metadata for " + print($0) }
    }

    private mutating func valueWitnessKind() -> String? {
        let kinds: [String: String] = [
            "al": "allocateBuffer", "ca": "assignWithCopy", "ta": "assignWithTake", "de": "deallocateBuffer",
            "xx": "destroy", "XX": "destroyBuffer", "Xx": "destroyArray", "CP": "initializeBufferWithCopyOfBuffer",
            "Cp": "initializeBufferWithCopy", "cp": "initializeWithCopy", "TK": "initializeBufferWithTakeOfBuffer",
            "Tk": "initializeBufferWithTake", "tk": "initializeWithTake", "pr": "projectBuffer",
            "Cc": "initializeArrayWithCopy", "Tt": "initializeArrayWithTakeFrontToBack",
            "tT": "initializeArrayWithTakeBackToFront", "xs": "storeExtraInhabitant", "xg": "getExtraInhabitantIndex",
            "ug": "getEnumTag", "up": "destructiveProjectEnumData", "ui": "destructiveInjectEnumTag",
        ]
        guard position + 2 <= text.count else { return nil }
        let code = String(decoding: text[position..<(position + 2)], as: UTF8.self)
        guard let kind = kinds[code] else { return nil }
        position += 2
        return kind
    }

    private mutating func witnessTable() -> String? {
        if next("V") { return type().map { "value witness table for " + print($0) } }
        if next("o") { return entity().map { "witness table offset for " + print($0) } }
        if next("v") {
            let words: String
            if next("d") {
                words = "direct field offset for "
            } else if next("i") {
                words = "indirect field offset for "
            } else {
                return nil
            }
            return entity().map { words + print($0) }
        }
        let conformancePrefixes: [(String, String)] = [
            ("P", "protocol witness table for "), ("a", "protocol witness table accessor for "),
            ("G", "generic protocol witness table for "),
            ("I", "instantiation function for generic protocol witness table for "),
        ]
        for (code, words) in conformancePrefixes where next(code) { return conformance().map { words + $0 } }
        if next("l") || next("L") {
            let words = text[position - 1] == UInt8(ascii: "l")
                ? "lazy protocol witness table accessor for type "
                : "lazy protocol witness table cache variable for type "
            guard let type = type(), let conformance = conformance() else { return nil }
            return words + print(type) + " and conformance " + conformance
        }
        if next("t") {
            guard let conformance = conformance(), let name = identifier() else { return nil }
            return "associated type metadata accessor for " + name + " in " + conformance
        }
        if next("T") {
            guard let conformance = conformance(), let name = identifier(), let proto = protocolName() else {
                return nil
            }
            return "associated type witness table accessor for " + name + " : " + print(proto) + " in " + conformance
        }
        return nil
    }

    /// `T : P in M`, optionally under a generic signature (`<A> Foo<A> : P in M`).
    private mutating func conformance() -> String? {
        var signature = ""
        if next("u") {
            guard let parsed = genericSignature() else { return nil }
            signature = parsed + " "
        }
        guard let type = type(), let proto = protocolName(), let module = module() else { return nil }
        return signature + print(type) + " : " + print(proto) + " in " + print(module)
    }

    // MARK: Thunks and specializations

    /// `TR` / `Tr`: `('G' generic-signature)? type type`; the second type is where the thunk
    /// converts from.
    private mutating func reabstractionThunk(helper: Bool) -> String? {
        var signature = ""
        if next("G") {
            guard let parsed = genericSignature() else { return nil }
            signature = parsed + " "
        }
        guard let to = type(), let from = type() else { return nil }
        return (helper ? "reabstraction thunk helper " : "reabstraction thunk ") + signature + "from " + print(from)
            + " to " + print(to)
    }

    private mutating func specialization() -> String? {
        let words: String
        let functionSignature: Bool
        if next("g") {
            (words, functionSignature) = ("generic specialization <", false)
        } else if next("r") {
            (words, functionSignature) = ("generic not re-abstracted specialization <", false)
        } else if next("f") {
            (words, functionSignature) = ("function signature specialization <", true)
        } else {
            return nil
        }
        var parts: [String] = []
        if next("q") { parts.append("serialized") }
        guard natural() != nil else { return nil }  // the pass that made it
        var argument = 0
        while !next("_") {
            guard !atEnd else { return nil }
            if functionSignature {
                guard let info = signatureArgument() else { return nil }
                if !info.isEmpty { parts.append("Arg[\(argument)] = " + info) }
                argument += 1
            } else {
                guard let type = type() else { return nil }
                var conformances: [String] = []
                while !next("_") {
                    guard !atEnd, let conformance = conformance() else { return nil }
                    conformances.append(conformance)
                }
                let with = conformances.isEmpty ? "" : " with " + conformances.joined(separator: " and ")
                parts.append(print(type) + with)
            }
        }
        guard next("_T"), let inner = global() else { return nil }
        return words + parts.joined(separator: ", ") + "> of " + inner
    }

    /// One argument of a function signature specialization, through its `_`; empty when unchanged.
    private mutating func signatureArgument() -> String? {
        if next("n_") { return "" }
        if next("cl") {
            guard let closure = mangledIdentifier() else { return nil }
            var types: [String] = []
            while !next("_") {
                guard !atEnd, let type = type() else { return nil }
                types.append(print(type))
            }
            return "[Closure Propagated : " + closure + ", Argument Types : [" + types.joined(separator: ", ") + "]"
        }
        if next("cp") {
            let value: String
            if next("fr") {
                guard let function = mangledIdentifier() else { return nil }
                value = "[Constant Propagated Function : " + function + "]"
            } else if next("g") {
                guard let global = mangledIdentifier() else { return nil }
                value = "[Constant Propagated Global : " + global + "]"
            } else if next("i") {
                guard let number = natural() else { return nil }
                value = "[Constant Propagated Integer : \(number)]"
            } else if next("fl") {
                guard let number = natural() else { return nil }
                value = "[Constant Propagated Float : \(number)]"
            } else if next("se") {
                guard let encoding = natural(), next("v"), let string = identifier() else { return nil }
                value = "[Constant Propagated String : " + (encoding == 0 ? "u8" : "u16") + "'" + string + "']"
            } else {
                return nil
            }
            return next("_") ? value : nil
        }
        if next("i_") { return "Value Promoted from Box" }
        if next("k_") { return "Stack Promoted from Box" }
        var effects: [String] = []
        if next("d") { effects.append("Dead") }
        if next("g") {
            effects.append("Owned To Guaranteed")
        } else if next("o") {
            effects.append("Guaranteed To Owned")
        }
        if next("s") { effects.append("Exploded") }
        guard !effects.isEmpty, next("_") else { return nil }
        return effects.joined(separator: " and ")
    }

    /// An identifier holding a mangled name (`35_TFF7specgen...`), shown demangled when it is one.
    private mutating func mangledIdentifier() -> String? {
        guard let name = identifier() else { return nil }
        return LegacySwiftDemangler.demangle(name) ?? name
    }

    // MARK: Entities

    private mutating func entity() -> Node? {
        nesting += 1
        defer { nesting -= 1 }
        guard nesting < 64 else { return nil }
        let isStatic = next("Z")
        let basic: UInt8
        switch peek {
        case UInt8(ascii: "F"), UInt8(ascii: "v"), UInt8(ascii: "I"), UInt8(ascii: "i"):
            basic = peek
            position += 1
        default:
            return isStatic ? nil : nominalType()
        }
        guard let context = context() else { return nil }
        var entity = LegacyEntity(isStatic: isStatic, context: context, kind: .function, name: nil, type: nil)
        switch basic {
        case UInt8(ascii: "I"):
            if next("A") {
                guard let number = index() else { return nil }
                entity.kind = .defaultArgument(number)
            } else if next("i") {
                entity.kind = .initializer
            } else {
                return nil
            }
            return .entity(entity)
        case UInt8(ascii: "v"):
            guard let name = declName(), let type = type() else { return nil }
            (entity.kind, entity.name, entity.type) = (.variable, name, type)
            return .entity(entity)
        case UInt8(ascii: "i"):
            guard let name = declName(), let type = type() else { return nil }
            (entity.kind, entity.name, entity.type) = (.subscript, name, type)
            return .entity(entity)
        default:
            break
        }
        // A function's entity-name.
        for (code, accessor) in Self.accessorCodes where next(code) {
            guard let name = declName(), let type = type() else { return nil }
            (entity.kind, entity.name, entity.type) = (.accessor(accessor), name, type)
            return .entity(entity)
        }
        let untyped: [(String, LegacyEntity.Kind)] = [
            ("D", .special("__deallocating_deinit")), ("d", .special("deinit")),
            ("E", .special("__ivar_destroyer")), ("e", .special("__ivar_initializer")),
        ]
        for (code, kind) in untyped where next(code) {
            entity.kind = kind
            return .entity(entity)
        }
        if next("C") || next("c") {
            // A struct's or enum's `C` constructor reads `init`: only classes allocate.
            let allocating = text[position - 1] == UInt8(ascii: "C") && Self.isClass(context)
            guard let type = type() else { return nil }
            (entity.kind, entity.type) = (.special(allocating ? "__allocating_init" : "init"), type)
            return .entity(entity)
        }
        if next("U") || next("u") {
            let explicit = text[position - 1] == UInt8(ascii: "U")
            guard let number = index(), let type = type() else { return nil }
            (entity.kind, entity.type) = (.closure(number, implicit: !explicit), type)
            return .entity(entity)
        }
        guard let name = declName(), let type = type() else { return nil }
        (entity.name, entity.type) = (name, type)
        return .entity(entity)
    }

    private static let accessorCodes: [(String, String)] = [
        ("au", "unsafeMutableAddressor"), ("lu", "unsafeAddressor"), ("aO", "owningMutableAddressor"),
        ("lO", "owningAddressor"), ("ao", "nativeOwningMutableAddressor"), ("lo", "nativeOwningAddressor"),
        ("ap", "nativePinningMutableAddressor"), ("lp", "nativePinningAddressor"), ("g", "getter"),
        ("s", "setter"), ("m", "materializeForSet"), ("w", "willset"), ("W", "didset"),
    ]

    private mutating func context() -> Node? {
        nesting += 1
        defer { nesting -= 1 }
        guard nesting < 64 else { return nil }
        switch peek {
        case UInt8(ascii: "E"):
            position += 1
            guard let module = module(), let base = context() else { return nil }
            return .extensionContext(module: module, base: base, signature: nil)
        case UInt8(ascii: "e"):
            position += 1
            guard let module = module(), let signature = genericSignature(), let base = context() else { return nil }
            return .extensionContext(module: module, base: base, signature: signature)
        case UInt8(ascii: "S"):
            return substitution()
        case UInt8(ascii: "s"):
            position += 1
            return .module("Swift")
        case UInt8(ascii: "F"), UInt8(ascii: "v"), UInt8(ascii: "I"), UInt8(ascii: "i"), UInt8(ascii: "Z"):
            return entity()
        case UInt8(ascii: "C"), UInt8(ascii: "V"), UInt8(ascii: "O"), UInt8(ascii: "P"):
            return nominalType()
        default:
            return module()
        }
    }

    private mutating func module() -> Node? {
        if next("s") { return .module("Swift") }
        if peek == UInt8(ascii: "S") { return substitution() }
        guard let name = identifier() else { return nil }
        let module = Node.module(name)
        substitutions.append(module)
        return module
    }

    /// `C`/`V`/`O`/`P` + context + decl-name, or a substitution.
    private mutating func nominalType() -> Node? {
        if peek == UInt8(ascii: "S") { return substitution() }
        let kind = peek
        guard next("C") || next("V") || next("O") || next("P") else { return nil }
        guard let context = context(), let name = declName() else { return nil }
        let type = Node.nominal(kind: kind, context: context, name: name)
        substitutions.append(type)
        return type
    }

    /// A protocol in a conformance or requirement: context + decl-name, or a substitution.
    private mutating func protocolName() -> Node? {
        if peek == UInt8(ascii: "S") {
            guard let found = substitution() else { return nil }
            guard case .module = found else { return found }  // a module: the protocol's name follows
            guard let name = declName() else { return nil }
            let proto = Node.nominal(kind: UInt8(ascii: "P"), context: found, name: name)
            substitutions.append(proto)
            return proto
        }
        guard let context = next("s") ? Node.module("Swift") : module(), let name = declName() else { return nil }
        let proto = Node.nominal(kind: UInt8(ascii: "P"), context: context, name: name)
        substitutions.append(proto)
        return proto
    }

    /// `S_`, `S0_`, or a known name: `Si` (Swift.Int), `So` (__C), `SC` (__C_Synthesized)...
    private mutating func substitution() -> Node? {
        guard next("S") else { return nil }
        if next("o") { return .module("__C") }
        if next("C") { return .module("__C_Synthesized") }
        if let name = Self.knownTypes[peek] {
            let kind = peek == UInt8(ascii: "q") || peek == UInt8(ascii: "Q") ? UInt8(ascii: "O") : UInt8(ascii: "V")
            position += 1
            return .nominal(kind: kind, context: .module("Swift"), name: .plain(name))
        }
        guard let number = index(), number < substitutions.count else { return nil }
        return substitutions[number]
    }

    /// The standard library types with one-letter substitutions.
    private static let knownTypes: [UInt8: String] = [
        UInt8(ascii: "a"): "Array", UInt8(ascii: "b"): "Bool", UInt8(ascii: "c"): "UnicodeScalar",
        UInt8(ascii: "d"): "Double", UInt8(ascii: "f"): "Float", UInt8(ascii: "i"): "Int",
        UInt8(ascii: "V"): "UnsafeRawPointer", UInt8(ascii: "v"): "UnsafeMutableRawPointer",
        UInt8(ascii: "P"): "UnsafePointer", UInt8(ascii: "p"): "UnsafeMutablePointer",
        UInt8(ascii: "Q"): "ImplicitlyUnwrappedOptional", UInt8(ascii: "q"): "Optional",
        UInt8(ascii: "R"): "UnsafeBufferPointer", UInt8(ascii: "r"): "UnsafeMutableBufferPointer",
        UInt8(ascii: "S"): "String", UInt8(ascii: "u"): "UInt",
    ]

    // MARK: Names

    private mutating func declName() -> LegacyName? {
        if next("L") {
            guard let number = index(), let name = identifier() else { return nil }
            return .local(name, number + 1)
        }
        if next("P") {
            guard let discriminator = identifier(), let name = identifier() else { return nil }
            return .private(name, discriminator: discriminator)
        }
        return identifier().map { .plain($0) }
    }

    /// `3foo`, an operator `oi1p` (`+ infix`), or a punycode `X...` name.
    private mutating func identifier() -> String? {
        if next("o") {
            let fixity: String
            if next("p") {
                fixity = " prefix"
            } else if next("P") {
                fixity = " postfix"
            } else if next("i") {
                fixity = " infix"
            } else {
                return nil
            }
            guard let length = natural(), length > 0, position + length <= text.count else { return nil }
            var name = ""
            for byte in text[position..<(position + length)] {
                guard let character = Self.operatorCharacters[byte] else { return nil }
                name.append(character)
            }
            position += length
            return name + fixity
        }
        if next("X") {
            guard !next("o") else { return nil }  // punycode operators: not met in practice
            guard let length = natural(), length > 0, position + length <= text.count else { return nil }
            let encoded = Array(text[position..<(position + length)])
            position += length
            return Self.punycodeDecode(encoded)
        }
        guard let length = natural(), length > 0, position + length <= text.count else { return nil }
        let name = String(decoding: text[position..<(position + length)], as: UTF8.self)
        position += length
        return name
    }

    private static let operatorCharacters: [UInt8: Character] = [
        UInt8(ascii: "a"): "&", UInt8(ascii: "c"): "@", UInt8(ascii: "d"): "/", UInt8(ascii: "e"): "=",
        UInt8(ascii: "g"): ">", UInt8(ascii: "l"): "<", UInt8(ascii: "m"): "*", UInt8(ascii: "n"): "!",
        UInt8(ascii: "o"): "|", UInt8(ascii: "p"): "+", UInt8(ascii: "q"): "?", UInt8(ascii: "r"): "%",
        UInt8(ascii: "s"): "-", UInt8(ascii: "t"): "~", UInt8(ascii: "x"): "^", UInt8(ascii: "z"): ".",
    ]

    /// Swift's punycode (RFC 3492 with `_` as the delimiter and digits `a`–`z`, `A`–`J`).
    private static func punycodeDecode(_ input: [UInt8]) -> String? {
        var output: [Unicode.Scalar] = []
        var rest = input[...]
        if let delimiter = input.lastIndex(of: UInt8(ascii: "_")) {
            for byte in input[..<delimiter] { output.append(Unicode.Scalar(byte)) }
            rest = input[(delimiter + 1)...]
        }
        var codePoint = 128
        var bias = 72
        var index = 0
        var iterator = rest.makeIterator()
        var pending = iterator.next()
        while pending != nil {
            let oldIndex = index
            var weight = 1
            var k = 36
            while true {
                guard let byte = pending else { return nil }
                pending = iterator.next()
                let digit: Int
                switch byte {
                case UInt8(ascii: "a")...UInt8(ascii: "z"): digit = Int(byte - UInt8(ascii: "a"))
                case UInt8(ascii: "A")...UInt8(ascii: "J"): digit = Int(byte - UInt8(ascii: "A")) + 26
                default: return nil
                }
                index += digit * weight
                guard index < 1 << 28 else { return nil }
                let threshold = k <= bias ? 1 : (k >= bias + 26 ? 26 : k - bias)
                if digit < threshold { break }
                weight *= 36 - threshold
                k += 36
            }
            var delta = oldIndex == 0 ? (index - oldIndex) / 700 : (index - oldIndex) / 2
            delta += delta / (output.count + 1)
            var adaptK = 0
            while delta > 455 {
                delta /= 35
                adaptK += 36
            }
            bias = adaptK + 36 * delta / (delta + 38)
            codePoint += index / (output.count + 1)
            index %= output.count + 1
            guard let scalar = Unicode.Scalar(UInt32(codePoint)) else { return nil }
            output.insert(scalar, at: index)
            index += 1
        }
        var result = ""
        result.unicodeScalars.append(contentsOf: output)
        return result
    }

    // MARK: Types

    private mutating func type() -> Node? {
        nesting += 1
        defer { nesting -= 1 }
        guard nesting < 64, !atEnd else { return nil }
        let byte = peek
        position += 1
        switch byte {
        case UInt8(ascii: "B"): return builtin()
        case UInt8(ascii: "a"):
            guard let context = context(), let name = declName() else { return nil }
            let alias = Node.nominal(kind: UInt8(ascii: "a"), context: context, name: name)
            substitutions.append(alias)
            return alias
        case UInt8(ascii: "b"): return functionType(attributes: "@convention(block) ")
        case UInt8(ascii: "c"): return functionType(attributes: "@convention(c) ")
        case UInt8(ascii: "F"), UInt8(ascii: "f"): return functionType(attributes: "")
        case UInt8(ascii: "K"): return functionType(attributes: "@autoclosure ")
        case UInt8(ascii: "D"): return type() != nil ? .text("Self") : nil
        case UInt8(ascii: "E"): return next("RR") ? .text("<ERROR TYPE>") : nil
        case UInt8(ascii: "G"):
            guard let base = type() else { return nil }
            return boundGeneric(base)
        case UInt8(ascii: "M"): return type().map { .suffixed($0, ".Type") }
        case UInt8(ascii: "P"):
            if next("M") { return type().map { .suffixed($0, ".Type") } }
            var protocols: [Node] = []
            while !next("_") {
                guard !atEnd, let proto = protocolName() else { return nil }
                protocols.append(proto)
            }
            return .composition(protocols)
        case UInt8(ascii: "R"): return type().map { .prefixed("inout ", $0) }
        case UInt8(ascii: "T"), UInt8(ascii: "t"): return tuple(variadic: byte == UInt8(ascii: "t"))
        case UInt8(ascii: "u"):
            guard let signature = genericSignature(), let inner = type() else { return nil }
            return .generic(signature: signature, inner)
        case UInt8(ascii: "x"): return .text(Self.genericParameterName(depth: 0, index: 0))
        case UInt8(ascii: "q"):
            guard let (depth, index) = genericParameterIndex() else { return nil }
            return .text(Self.genericParameterName(depth: depth, index: index))
        case UInt8(ascii: "w"):
            guard let (depth, index) = genericParameterIndex(), let member = associatedTypeName() else { return nil }
            return .text(Self.genericParameterName(depth: depth, index: index) + "." + member)
        case UInt8(ascii: "W"):
            guard let (depth, index) = genericParameterIndex() else { return nil }
            var path = Self.genericParameterName(depth: depth, index: index)
            while !next("_") {
                guard !atEnd, let member = associatedTypeName() else { return nil }
                path += "." + member
            }
            return .text(path)
        case UInt8(ascii: "Q"):
            // `Qu`: an opaque result type.
            return next("u") ? .text("some") : nil
        case UInt8(ascii: "X"): return specialType()
        case UInt8(ascii: "C"), UInt8(ascii: "V"), UInt8(ascii: "O"), UInt8(ascii: "S"):
            position -= 1
            return nominalType()
        default:
            return nil
        }
    }

    /// The arguments of `G base args... _`: one `_`-terminated list per nesting level of the base
    /// type, outermost first (`GVV1a5Outer5InnerSi_Sb_` → `a.Outer<Swift.Int>.Inner<Swift.Bool>`).
    private mutating func boundGeneric(_ base: Node) -> Node? {
        var parent: Node?
        var levelBase = base
        if case .nominal(let kind, let context, let name) = base, case .nominal = context {
            guard let boundParent = boundGeneric(context) else { return nil }
            parent = boundParent
            levelBase = .nominal(kind: kind, context: boundParent, name: name)
        }
        var arguments: [Node] = []
        while !next("_") {
            guard !atEnd, let argument = type() else { return nil }
            arguments.append(argument)
        }
        if arguments.isEmpty { return parent == nil ? nil : levelBase }
        return .boundGeneric(levelBase, arguments)
    }

    /// Whether an entity's context is a class (through extensions).
    private static func isClass(_ context: Node) -> Bool {
        switch context {
        case .nominal(let kind, _, _): return kind == UInt8(ascii: "C")
        case .extensionContext(_, let base, _), .boundGeneric(let base, _): return isClass(base)
        default: return false
        }
    }

    private mutating func builtin() -> Node? {
        if next("b") { return .text("Builtin.BridgeObject") }
        if next("B") { return .text("Builtin.UnsafeValueBuffer") }
        if next("O") { return .text("Builtin.UnknownObject") }
        if next("o") { return .text("Builtin.NativeObject") }
        if next("p") { return .text("Builtin.RawPointer") }
        if next("t") { return .text("Builtin.SILToken") }
        if next("w") { return .text("Builtin.Word") }
        if next("f") {
            guard let bits = natural(), next("_") else { return nil }
            return .text("Builtin.FPIEEE\(bits)")
        }
        if next("i") {
            guard let bits = natural(), next("_") else { return nil }
            return .text("Builtin.Int\(bits)")
        }
        if next("v") {
            guard let count = natural(), let element = type() else { return nil }
            let name = print(element)
            guard name.hasPrefix("Builtin.") else { return nil }
            return .text("Builtin.Vec\(count)x" + name.dropFirst("Builtin.".count))
        }
        return nil
    }

    private mutating func functionType(attributes: String) -> Node? {
        let throwing = next("z")
        guard let input = type(), let result = type() else { return nil }
        return .function(attributes: attributes, throws: throwing, input: input, result: result)
    }

    private mutating func tuple(variadic: Bool) -> Node? {
        var elements: [(label: String?, type: Node)] = []
        while !next("_") {
            guard !atEnd else { return nil }
            var label: String?
            if Self.isDigit(peek) {
                guard let name = identifier() else { return nil }
                label = name
            }
            guard let element = type() else { return nil }
            elements.append((label, element))
        }
        if variadic && elements.isEmpty { return nil }
        return .tuple(elements, variadic: variadic)
    }

    private mutating func specialType() -> Node? {
        if next("o") { return type().map { .prefixed("unowned ", $0) } }
        if next("u") { return type().map { .prefixed("unowned(unsafe) ", $0) } }
        if next("w") { return type().map { .prefixed("weak ", $0) } }
        if next("b") { return type().map { .prefixed("@box ", $0) } }
        if next("M") || next("PM") {
            let representation: String
            if next("t") {
                representation = "@thin "
            } else if next("T") {
                representation = "@thick "
            } else if next("o") {
                representation = "@objc_metatype "
            } else {
                return nil
            }
            return type().map { .prefixed(representation, .suffixed($0, ".Type")) }
        }
        if next("f") { return functionType(attributes: "@convention(thin) ") }
        if next("F") { return implFunctionType() }
        return nil
    }

    /// A SIL function type in a reabstraction thunk's signature:
    /// `XFo_dSc_dSb_` → `@callee_owned (@unowned Swift.UnicodeScalar) -> (@unowned Swift.Bool)`.
    private mutating func implFunctionType() -> Node? {
        var words: [String] = []
        switch peek {
        case UInt8(ascii: "t"): words.append("@convention(thin)")
        case UInt8(ascii: "o"): words.append("@callee_owned")
        case UInt8(ascii: "g"): words.append("@callee_guaranteed")
        case UInt8(ascii: "d"): words.append("@callee_unowned")
        default: return nil
        }
        position += 1
        let attributes: [(String, String)] = [
            ("Cb", "@convention(block)"), ("Cc", "@convention(c)"), ("Cm", "@convention(method)"),
            ("CO", "@convention(objc_method)"), ("Cw", "@convention(witness_method)"),
        ]
        for (code, attribute) in attributes where next(code) { words.append(attribute) }
        if next("G") {
            guard let signature = genericSignature() else { return nil }
            words.append(signature)
        }
        guard next("_") else { return nil }
        guard let parameters = implItems(results: false), let results = implItems(results: true) else { return nil }
        return .text(words.joined(separator: " ") + " (" + parameters + ") -> (" + results + ")")
    }

    private mutating func implItems(results: Bool) -> String? {
        var items: [String] = []
        while !next("_") {
            guard !atEnd else { return nil }
            let isError = next("z")
            let convention: String
            switch peek {
            case UInt8(ascii: "a"): convention = "@autoreleased"
            case UInt8(ascii: "d"): convention = "@unowned"
            case UInt8(ascii: "D"): convention = "@unowned_inner_pointer"
            case UInt8(ascii: "g"): convention = "@guaranteed"
            case UInt8(ascii: "e"): convention = "@deallocating"
            case UInt8(ascii: "i"): convention = results ? "@out" : "@in"
            case UInt8(ascii: "j"): convention = "@in_guaranteed"
            case UInt8(ascii: "l"): convention = "@inout"
            case UInt8(ascii: "o"): convention = "@owned"
            default: return nil
            }
            position += 1
            guard let type = type() else { return nil }
            items.append((isError ? "@error " : "") + convention + " " + print(type))
        }
        return items.joined(separator: ", ")
    }

    // MARK: Generics

    /// `x`, `N_` (index N + 1 at depth 0), `dM_N_` (depth M + 1).
    private mutating func genericParameterIndex() -> (Int, Int)? {
        if next("x") { return (0, 0) }
        if next("d") {
            guard let depth = index(), let index = index() else { return nil }
            return (depth + 1, index)
        }
        return index().map { (0, $0 + 1) }
    }

    /// `A`, `B`, ... `Z`, `AB`, `BB`...; a deeper parameter adds its depth: `A1`.
    static func genericParameterName(depth: Int, index: Int) -> String {
        var name = ""
        var rest = index
        repeat {
            name.append(Character(Unicode.Scalar(UInt8(ascii: "A") + UInt8(rest % 26))))
            rest /= 26
        } while rest > 0
        return depth > 0 ? name + String(depth) : name
    }

    /// `5Mince`, `P` + protocol + name (`A.Swift.Runcible.Mince`), or a substitution of one.
    private mutating func associatedTypeName() -> String? {
        if peek == UInt8(ascii: "S") { return substitution().map { print($0) } }
        let name: String
        if next("P") {
            guard let proto = protocolName(), let member = identifier() else { return nil }
            name = print(proto) + "." + member
        } else {
            guard let member = identifier() else { return nil }
            name = member
        }
        substitutions.append(.text(name))
        return name
    }

    /// `(count)* ('R' requirement*)? 'r'` → `<A, B where A: P>`, one bracket per depth.
    private mutating func genericSignature() -> String? {
        var counts: [Int] = []
        while peek != UInt8(ascii: "R") && peek != UInt8(ascii: "r") {
            guard !atEnd else { return nil }
            if next("z") {
                counts.append(0)
            } else {
                guard let count = index(), count < 1000 else { return nil }
                counts.append(count + 1)
            }
        }
        if counts.isEmpty { counts = [1] }
        var requirements: [String] = []
        if next("R") {
            while !next("r") {
                guard !atEnd, let requirement = requirement() else { return nil }
                requirements.append(requirement)
            }
        } else {
            guard next("r") else { return nil }
        }
        var text = ""
        for (depth, count) in counts.enumerated() {
            text += "<" + (0..<count).map { Self.genericParameterName(depth: depth, index: $0) }.joined(separator: ", ")
            if depth == counts.count - 1, !requirements.isEmpty {
                text += (count > 0 ? " where " : "where ") + requirements.joined(separator: ", ")
            }
            text += ">"
        }
        return text
    }

    private mutating func requirement() -> String? {
        let subject: String
        if next("w") {
            guard let (depth, index) = genericParameterIndex(), let member = associatedTypeName() else { return nil }
            subject = Self.genericParameterName(depth: depth, index: index) + "." + member
        } else if next("W") {
            guard let (depth, index) = genericParameterIndex() else { return nil }
            var path = Self.genericParameterName(depth: depth, index: index)
            while !next("_") {
                guard !atEnd, let member = associatedTypeName() else { return nil }
                path += "." + member
            }
            subject = path
        } else {
            guard let (depth, index) = genericParameterIndex() else { return nil }
            subject = Self.genericParameterName(depth: depth, index: index)
        }
        if next("z") {
            guard let type = type() else { return nil }
            return subject + " == " + print(type)
        }
        if peek == UInt8(ascii: "C") {
            guard let type = type() else { return nil }
            return subject + ": " + print(type)
        }
        guard let proto = protocolName() else { return nil }
        return subject + ": " + print(proto)
    }

    // MARK: Printing

    private mutating func print(_ node: Node) -> String {
        let printer = LegacyPrinter()
        let text = printer.print(node)
        if printer.budget < 0 { tooLong = true }
        return text
    }
}

fileprivate struct LegacyEntity {
    enum Kind {
        case function, variable, `subscript`, initializer
        case accessor(String)
        case special(String)  // `init`, `__allocating_init`, `deinit`...
        case closure(Int, implicit: Bool)
        case defaultArgument(Int)
    }
    var isStatic: Bool
    var context: LegacyNode
    var kind: Kind
    var name: LegacyName?
    var type: LegacyNode?
}

fileprivate enum LegacyName {
    case plain(String)
    case local(String, Int)
    case `private`(String, discriminator: String)
}

fileprivate indirect enum LegacyNode {
    case module(String)
    case nominal(kind: UInt8, context: LegacyNode, name: LegacyName)  // `C`lass, `V` struct, `O` enum, `P`, `a`lias
    case extensionContext(module: LegacyNode, base: LegacyNode, signature: String?)
    case entity(LegacyEntity)
    case text(String)  // printed the same everywhere: `A`, `Builtin.Word`, a SIL function type
    case boundGeneric(LegacyNode, [LegacyNode])
    case function(attributes: String, throws: Bool, input: LegacyNode, result: LegacyNode)
    case tuple([(label: String?, type: LegacyNode)], variadic: Bool)
    case composition([LegacyNode])
    case prefixed(String, LegacyNode)  // `inout T`, `weak T`
    case suffixed(LegacyNode, String)  // `T.Type`
    case generic(signature: String, LegacyNode)
}

/// Prints legacy trees the way the toolchain's demangler prints names without sugar.
fileprivate final class LegacyPrinter {
    /// Characters left to print; below zero, printing stops and the name counts as malformed.
    var budget = 100_000

    func print(_ node: LegacyNode) -> String {
        guard budget > 0 else { return "" }
        let text = printUncounted(node)
        budget -= text.utf8.count
        return text
    }

    private func printUncounted(_ node: LegacyNode) -> String {
        switch node {
        case .module(let name): return name
        case .nominal(_, let context, let name): return qualified(context, name: text(of: name), type: nil)
        case .extensionContext(let module, let base, let signature):
            return "(extension in " + print(module) + "):" + print(base) + (signature ?? "")
        case .entity(let entity): return print(entity)
        case .text(let text): return text
        case .boundGeneric(let base, let arguments):
            return print(base) + "<" + arguments.map(print).joined(separator: ", ") + ">"
        case .function(let attributes, let throwing, let input, let result):
            return attributes + parameters(input) + (throwing ? " throws" : "") + " -> " + print(result)
        case .tuple(let elements, let variadic):
            return "(" + tupleElements(elements, variadic: variadic) + ")"
        case .composition(let protocols):
            return protocols.isEmpty ? "Any" : protocols.map(print).joined(separator: " & ")
        case .prefixed(let prefix, let inner): return prefix + print(inner)
        case .suffixed(let inner, let suffix): return print(inner) + suffix
        case .generic(let signature, let inner):
            if case .function = inner { return signature + print(inner) }
            return signature + " " + print(inner)
        }
    }

    func text(of name: LegacyName) -> String {
        switch name {
        case .plain(let name): return name
        case .local(let name, let number): return name + " #\(number)"
        case .private(let name, let discriminator): return "(" + name + " in " + discriminator + ")"
        }
    }

    private func tupleElements(_ elements: [(label: String?, type: LegacyNode)], variadic: Bool) -> String {
        elements.enumerated().map { offset, element in
            (element.label.map { $0 + ": " } ?? "") + print(element.type)
                + (variadic && offset == elements.count - 1 ? "..." : "")
        }.joined(separator: ", ")
    }

    /// A function type's parameter list: a tuple prints as its elements, anything else in parentheses.
    private func parameters(_ input: LegacyNode) -> String {
        if case .tuple(let elements, let variadic) = input {
            return "(" + tupleElements(elements, variadic: variadic) + ")"
        }
        return "(" + print(input) + ")"
    }

    /// Whether a context reads as a dotted prefix (`Module.Type.`): not when a function or a
    /// local type is in it, which print as `name in context`.
    private func isSimple(_ context: LegacyNode) -> Bool {
        switch context {
        case .module: return true
        case .nominal(_, let inner, let name):
            if case .local = name { return false }
            return isSimple(inner)
        case .extensionContext(_, let base, _), .boundGeneric(let base, _): return isSimple(base)
        default: return false
        }
    }

    /// `Context.name` + type, or `name` + type + ` in ` + context.
    private func qualified(_ context: LegacyNode, name: String, type: String?) -> String {
        if isSimple(context) { return print(context) + "." + name + (type ?? "") }
        return name + (type ?? "") + " in " + print(context)
    }

    /// A function type's signature after the name (`<A>(x: A) -> ()`), or ` : Type` for others.
    private func signature(_ type: LegacyNode?, space: Bool) -> String {
        guard let type else { return "" }
        switch type {
        case .function(let attributes, let throwing, let input, let result) where attributes.isEmpty:
            return (space ? " " : "") + parameters(input) + (throwing ? " throws" : "") + " -> " + print(result)
        case .generic(let generics, let inner):
            if case .function(let attributes, let throwing, let input, let result) = inner, attributes.isEmpty {
                return generics + parameters(input) + (throwing ? " throws" : "") + " -> " + print(result)
            }
            return " : " + print(type)
        default:
            return " : " + print(type)
        }
    }

    func print(_ entity: LegacyEntity) -> String {
        let prefix = entity.isStatic ? "static " : ""
        let name = entity.name.map(text(of:)) ?? ""
        switch entity.kind {
        case .function, .subscript:
            var isLocal = false
            if case .local = entity.name { isLocal = true }
            return prefix + qualified(entity.context, name: name, type: signature(entity.type, space: isLocal))
        case .variable:
            return prefix + qualified(entity.context, name: name, type: entity.type.map { " : " + print($0) })
        case .accessor(let accessor):
            let type = entity.type.map { " : " + print($0) }
            return prefix + qualified(entity.context, name: name + "." + accessor, type: type)
        case .special(let special):
            return prefix + qualified(entity.context, name: special, type: signature(entity.type, space: false))
        case .closure(let number, let implicit):
            let words = (implicit ? "implicit closure #" : "closure #") + String(number + 1)
            return prefix + words + signature(entity.type, space: true) + " in " + print(entity.context)
        case .defaultArgument(let number):
            return "default argument \(number) of " + print(entity.context)
        case .initializer:
            return "variable initialization expression of " + print(entity.context)
        }
    }
}
