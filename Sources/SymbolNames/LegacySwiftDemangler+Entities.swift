// The legacy (`_T`) grammar: thunks, specializations and entities (functions, variables,
// closures and their contexts).

extension LegacySwiftDemangler {
    // MARK: Thunks and specializations

    /// `TR` / `Tr`: `('G' generic-signature)? type type`; the second type is where the thunk
    /// converts from.
    mutating func reabstractionThunk(helper: Bool) -> String? {
        var signature = ""
        if next("G") {
            guard let parsed = genericSignature() else { return nil }
            signature = parsed + " "
        }
        guard let to = type(), let from = type() else { return nil }
        return (helper ? "reabstraction thunk helper " : "reabstraction thunk ") + signature + "from " + print(from)
            + " to " + print(to)
    }

    mutating func specialization() -> String? {
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
    mutating func signatureArgument() -> String? {
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
    mutating func mangledIdentifier() -> String? {
        guard let name = identifier() else { return nil }
        return LegacySwiftDemangler.demangle(name) ?? name
    }

    // MARK: Entities

    mutating func entity() -> Node? {
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

    static let accessorCodes: [(String, String)] = [
        ("au", "unsafeMutableAddressor"), ("lu", "unsafeAddressor"), ("aO", "owningMutableAddressor"),
        ("lO", "owningAddressor"), ("ao", "nativeOwningMutableAddressor"), ("lo", "nativeOwningAddressor"),
        ("ap", "nativePinningMutableAddressor"), ("lp", "nativePinningAddressor"), ("g", "getter"),
        ("s", "setter"), ("m", "materializeForSet"), ("w", "willset"), ("W", "didset"),
    ]

    mutating func context() -> Node? {
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

    mutating func module() -> Node? {
        if next("s") { return .module("Swift") }
        if peek == UInt8(ascii: "S") { return substitution() }
        guard let name = identifier() else { return nil }
        let module = Node.module(name)
        substitutions.append(module)
        return module
    }

    /// `C`/`V`/`O`/`P` + context + decl-name, or a substitution.
    mutating func nominalType() -> Node? {
        if peek == UInt8(ascii: "S") { return substitution() }
        let kind = peek
        guard next("C") || next("V") || next("O") || next("P") else { return nil }
        guard let context = context(), let name = declName() else { return nil }
        let type = Node.nominal(kind: kind, context: context, name: name)
        substitutions.append(type)
        return type
    }

    /// A protocol in a conformance or requirement: context + decl-name, or a substitution.
    mutating func protocolName() -> Node? {
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
    mutating func substitution() -> Node? {
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
    static let knownTypes: [UInt8: String] = [
        UInt8(ascii: "a"): "Array", UInt8(ascii: "b"): "Bool", UInt8(ascii: "c"): "UnicodeScalar",
        UInt8(ascii: "d"): "Double", UInt8(ascii: "f"): "Float", UInt8(ascii: "i"): "Int",
        UInt8(ascii: "V"): "UnsafeRawPointer", UInt8(ascii: "v"): "UnsafeMutableRawPointer",
        UInt8(ascii: "P"): "UnsafePointer", UInt8(ascii: "p"): "UnsafeMutablePointer",
        UInt8(ascii: "Q"): "ImplicitlyUnwrappedOptional", UInt8(ascii: "q"): "Optional",
        UInt8(ascii: "R"): "UnsafeBufferPointer", UInt8(ascii: "r"): "UnsafeMutableBufferPointer",
        UInt8(ascii: "S"): "String", UInt8(ascii: "u"): "UInt",
    ]
}
