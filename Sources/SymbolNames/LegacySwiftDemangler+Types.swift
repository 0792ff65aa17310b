// The legacy (`_T`) grammar: types.

extension LegacySwiftDemangler {
    // MARK: Types

    mutating func type() -> Node? {
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
    mutating func boundGeneric(_ base: Node) -> Node? {
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
    static func isClass(_ context: Node) -> Bool {
        switch context {
        case .nominal(let kind, _, _): return kind == UInt8(ascii: "C")
        case .extensionContext(_, let base, _), .boundGeneric(let base, _): return isClass(base)
        default: return false
        }
    }

    mutating func builtin() -> Node? {
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

    mutating func functionType(attributes: String) -> Node? {
        let throwing = next("z")
        guard let input = type(), let result = type() else { return nil }
        return .function(attributes: attributes, throws: throwing, input: input, result: result)
    }

    mutating func tuple(variadic: Bool) -> Node? {
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

    mutating func specialType() -> Node? {
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
    mutating func implFunctionType() -> Node? {
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

    mutating func implItems(results: Bool) -> String? {
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
}
