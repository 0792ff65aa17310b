import Foundation

// The `Type.member` form of a demangled Swift name.

extension SwiftNames {
    /// `modules`: the name's paths start with their module (`YuiApp.YuiLines.fail`), as the
    /// demangler writes them; crash reports write them without (`YuiLines.fail`).
    package static func simplifiedSwift(_ full: String, modules: Bool = true) -> String {
        let text = Array(full.utf8)
        guard let simple = simplify(text, 0, text.count, modules: modules), !simple.isEmpty else { return full }
        return simple
    }

    /// The simplified form of the demangled name in `start..<end`, or `nil` when no path is left.
    static func simplify(_ text: Bytes, _ start: Int, _ end: Int, modules: Bool = true) -> String? {
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
                return witness(text, start + protocolWitness.count, end, modules: modules)
            }
            if let prefix = conformancePrefixes.first(where: { matches(text, start, end, $0) }) {
                return conformingType(text, start + prefix.count, end, modules: modules)
            }
            if let prefix = nestedConformancePrefixes.first(where: { matches(text, start, end, $0) }) {
                let rest = start + prefix.count
                guard let found = topLevelFind(inWord, in: text, rest, end) else { return nil }
                return conformingType(text, found + inWord.count, end, modules: modules)
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
        return contextChain(text, start, end, modules: modules)
    }

    /// `protocol witness for Swift.Hashable.hash(into:) in conformance Foo.Bar : Swift.Hashable in Foo`
    /// runs `Bar`'s `hash`: the conforming type and the requirement's member.
    static func witness(_ text: Bytes, _ start: Int, _ end: Int, modules: Bool = true) -> String? {
        guard let split = topLevelFind(inConformance, in: text, start, end) else { return simplify(text, start, end, modules: modules) }
        var requirementStart = start
        while let modifier = modifiers.first(where: { matches(text, requirementStart, split, $0) }) {
            requirementStart += modifier.count
        }
        let requirement = path(text, requirementStart, split, hasModule: modules)
        guard let member = requirement.last, requirement.count >= 2 else { return simplify(text, start, split, modules: modules) }
        guard let type = conformingType(text, split + inConformance.count, end, modules: modules) else { return member }
        return type + "." + member
    }

    /// `T : P in M` → `T` simplified (`<A where ...> Foo.Bar<A> : P in M` → `Bar`).
    static func conformingType(_ text: Bytes, _ start: Int, _ end: Int, modules: Bool = true) -> String? {
        var start = start
        let typeEnd = lastTopLevelFind(typeSeparator, in: text, start, end) ?? end
        if start < typeEnd, text[start] == UInt8(ascii: "<") {  // a conditional conformance's requirements
            start = skipGroup(text, from: start, typeEnd)
        }
        return simplify(text, start, typeEnd, modules: modules)
    }

    /// A name with its contexts, `A in B in C`: closures (`closure #1 (...) in`), local functions
    /// (`lookup #1 (...) in`), local types (`FeatureInfo #1 in`) and their members
    /// (`count.getter : Swift.Int in`), around an outermost ordinary path. Local declarations join the
    /// outermost path as members of the function they are declared in
    /// (`SceneKitToolSpec.constructTasks.lookup`): their own names (`lookup`, `Visitor`, `C`) are too
    /// common to stand alone. Closures collapse into one leading `closure in`.
    static func contextChain(_ text: Bytes, _ start: Int, _ end: Int, modules: Bool = true) -> String? {
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
        guard var outermost = index > start ? simplify(text, index, end, modules: modules) : pathName(text, index, end, modules: modules) else {
            return inner.isEmpty ? nil : (closure ? "closure in " : "") + inner.reversed().joined(separator: ".")
        }
        if outermost.hasPrefix("closure in ") {
            if inner.isEmpty { closure = true }
            outermost.removeFirst("closure in ".count)
        }
        return (closure ? "closure in " : "") + ([outermost] + inner.reversed()).joined(separator: ".")
    }

    static let arrow = Array("-> ".utf8)

    /// Whether an element ends in a bare result type (`init(from:) -> Result`,
    /// `closure #8 () -> MutableNodeInfo #1`): a local type or one nested in it prints its own
    /// context after it, unbracketed.
    static func endsInBareResultType(_ text: Bytes, _ start: Int, _ end: Int) -> Bool {
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
    static func ownContextAfterResultType(in text: Bytes, from: Int, _ end: Int) -> Int? {
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
    static func pathName(_ text: Bytes, _ start: Int, _ end: Int, modules: Bool = true) -> String? {
        let components = path(text, start, end, hasModule: modules)
        return components.isEmpty ? nil : components.joined(separator: ".")
    }

    /// `name #3 ...`: where a local declaration's name ends.
    static func localDiscriminator(_ text: Bytes, _ start: Int, _ end: Int) -> Int? {
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
    static func path(_ text: Bytes, _ start: Int, _ end: Int, hasModule: Bool) -> [String] {
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
    static func entityPath(_ text: Bytes, _ start: Int, _ end: Int) -> [String] {
        var components: [String] = []
        var current = ComponentBytes()
        var index = start
        func flush() {
            if !current.isEmpty { components.append(current.string(in: text)) }
            current = ComponentBytes()
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
                    current.append((index + 1)..<found, of: text)
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
                // A run of ordinary bytes goes in at once (byte by byte, the appends were most of
                // the path's cost).
                var runEnd = index + 1
                while runEnd < end, !isPathBreak(text[runEnd]) { runEnd += 1 }
                current.append(index..<runEnd, of: text)
                index = runEnd
                continue
            }
            index += 1
        }
        flush()
        return components
    }

    /// A path component as `entityPath` gathers it: nearly always one run of the text, kept as its
    /// range; bytes of its own only when pieces that do not touch are joined (a private name's
    /// discriminator left out). A byte array per component was a tenth of the simplification.
    struct ComponentBytes {
        private var run: Range<Int>?
        private var joined: Bytes?

        var isEmpty: Bool { joined?.isEmpty ?? (run?.isEmpty ?? true) }

        mutating func append(_ range: Range<Int>, of text: Bytes) {
            guard !range.isEmpty else { return }
            if joined != nil {
                joined!.append(contentsOf: text[range])
            } else if let current = run, !current.isEmpty {
                if current.upperBound == range.lowerBound {
                    run = current.lowerBound..<range.upperBound
                } else {
                    joined = Array(text[current]) + text[range]
                }
            } else {
                run = range
            }
        }

        func string(in text: Bytes) -> String {
            if let joined { return String(decoding: joined, as: UTF8.self) }
            guard let run else { return "" }
            return text.withUnsafeBufferPointer { String(decoding: UnsafeBufferPointer(rebasing: $0[run]), as: UTF8.self) }
        }
    }

    /// The bytes `entityPath` acts on; every other byte belongs to the current component.
    @inline(__always)
    static func isPathBreak(_ byte: UInt8) -> Bool {
        switch byte {
        case UInt8(ascii: "("), UInt8(ascii: "<"), UInt8(ascii: "@"), UInt8(ascii: "."), UInt8(ascii: " "): return true
        default: return false
        }
    }
}
