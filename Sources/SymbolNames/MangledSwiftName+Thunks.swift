// Globals around types: conformances, witnesses, special types, thunks and specializations.
extension MangledSwiftName {
    mutating func typeGlobal(_ type: Int32) -> Int32 {
        checkUnbracketed(type)
        return make(.typeGlobal, value: Self.describedType, type)
    }

    mutating func popConformance() -> Int32? {
        let signature = pop(.signature)
        _ = popModule()
        guard popProtocol() != nil, var type = popType() else { return nil }
        checkUnbracketed(type)
        if signature != nil { type = make(.dependentGeneric, type) }
        return make(.conformance, type)
    }

    mutating func witness(_ parser: inout Parser) -> Int32? {
        switch parser.next() {
        case UInt8(ascii: "P"), UInt8(ascii: "G"), UInt8(ascii: "I"), UInt8(ascii: "r"), UInt8(ascii: "a"):
            guard let conformance = popConformance() else { return nil }
            return make(.conformanceGlobal, conformance)
        case UInt8(ascii: "l"), UInt8(ascii: "L"):
            guard popConformance() != nil, let type = popType() else { return nil }
            checkUnbracketed(type)
            return make(.lazyWitnessGlobal, type)
        case UInt8(ascii: "b"):
            guard popType() != nil, let conformance = popConformance() else { return nil }
            return make(.conformanceGlobal, conformance)
        case UInt8(ascii: "T"):
            guard popType() != nil, popAssociatedTypeList(), let conformance = popConformance() else { return nil }
            return make(.conformanceGlobal, conformance)
        case UInt8(ascii: "V"):
            guard let type = popType() else { return nil }
            return typeGlobal(type)
        case UInt8(ascii: "Z"), UInt8(ascii: "z"):
            // `context (decl-name '_')+`: the variables a global's initializer sets.
            var names: [Int32] = []
            while pop(.firstElement) != nil {
                guard let name = pop(where: Self.isDeclName) else { return nil }
                names.append(name)
            }
            guard names.count == 1, popContext() != nil else { return nil }
            return make(.initializationGlobal, names[0])
        case UInt8(ascii: "v"):
            guard parser.nextIf(UInt8(ascii: "d")) || parser.nextIf(UInt8(ascii: "i")),
                let entity = pop(where: Self.isContext)
            else { return nil }
            return make(.entityGlobal, entity)
        case UInt8(ascii: "O"):
            // Outlined value operations; the capitalised ones print words in brackets.
            switch parser.next() {
            case UInt8(ascii: "y"), UInt8(ascii: "e"), UInt8(ascii: "r"), UInt8(ascii: "s"), UInt8(ascii: "b"),
                UInt8(ascii: "c"), UInt8(ascii: "d"), UInt8(ascii: "f"), UInt8(ascii: "h"), UInt8(ascii: "i"),
                UInt8(ascii: "g"), UInt8(ascii: "j"):
                // Storing a tag or projecting a payload names the enum case by its index.
                let operation = parser.bytes[parser.position - 1]
                if operation == UInt8(ascii: "i") || operation == UInt8(ascii: "j") {
                    guard parser.index() != nil else { return nil }
                }
                guard pop(.signature) == nil, let type = popType() else { return nil }
                return typeGlobal(type)
            default:
                return nil
            }
        default:
            return nil
        }
    }

    mutating func specialType(_ parser: inout Parser) -> Int32? {
        switch parser.next() {
        case UInt8(ascii: "o"), UInt8(ascii: "u"), UInt8(ascii: "w"), UInt8(ascii: "p"), UInt8(ascii: "D"):
            guard let type = popType() else { return nil }
            return make(.otherType, type)
        case UInt8(ascii: "M"), UInt8(ascii: "m"):
            guard [UInt8(ascii: "t"), UInt8(ascii: "T"), UInt8(ascii: "o")].contains(parser.next()), let type = popType()
            else { return nil }
            return make(.otherType, type)
        case UInt8(ascii: "E"), UInt8(ascii: "f"), UInt8(ascii: "K"), UInt8(ascii: "A"), UInt8(ascii: "B"),
            UInt8(ascii: "C"), UInt8(ascii: "L"):
            return popFunctionType()
        case UInt8(ascii: "l"):
            return protocolList(make(.otherType))
        case UInt8(ascii: "e"):
            return make(.otherType)
        default:
            return nil
        }
    }

    mutating func yOperator(_ parser: inout Parser) -> Int32? {
        switch parser.next() {
        case UInt8(ascii: "a"), UInt8(ascii: "b"), UInt8(ascii: "A"), UInt8(ascii: "T"), UInt8(ascii: "C"):
            return make(.annotation)
        case UInt8(ascii: "K"), UInt8(ascii: "c"):
            guard popType() != nil else { return nil }
            return make(.annotation)
        case UInt8(ascii: "j"):
            guard [UInt8(ascii: "f"), UInt8(ascii: "r"), UInt8(ascii: "d"), UInt8(ascii: "l")].contains(parser.next())
            else { return nil }
            return make(.annotation)
        case UInt8(ascii: "i"), UInt8(ascii: "u"), UInt8(ascii: "t"), UInt8(ascii: "k"):
            guard let type = popType() else { return nil }
            return make(.otherType, type)
        default:
            return nil
        }
    }

    mutating func thunkOrSpecialization(_ parser: inout Parser) -> Int32? {
        switch parser.next() {
        case UInt8(ascii: "A"), UInt8(ascii: "m"), UInt8(ascii: "o"), UInt8(ascii: "O"), UInt8(ascii: "D"),
            UInt8(ascii: "j"), UInt8(ascii: "q"), UInt8(ascii: "u"), UInt8(ascii: "c"):
            return make(.attribute, value: AttributeKind.plain.rawValue)
        case UInt8(ascii: "Q"), UInt8(ascii: "Y"):
            guard parser.index() != nil else { return nil }
            return make(.attribute, value: AttributeKind.asyncPiece.rawValue)
        case UInt8(ascii: "t"):
            // Arguments the specialization dropped (`Tt0g5`, `Tt0t1g5`), then the specialization.
            _ = parser.natural()
            while parser.nextIf(UInt8(ascii: "t")) { _ = parser.natural() }
            guard [UInt8(ascii: "g"), UInt8(ascii: "G")].contains(parser.peek) else { return nil }
            return thunkOrSpecialization(&parser)
        case UInt8(ascii: "K"), UInt8(ascii: "k"):
            // A key path's getter or setter: the property, then types.
            guard parser.peek != UInt8(ascii: "M"), parser.peek != UInt8(ascii: "m") else { return nil }
            _ = parser.nextIf(UInt8(ascii: "q"))
            guard let first = popType() else { return nil }
            checkUnbracketed(first)
            while let type = popType() { checkUnbracketed(type) }
            _ = pop(.signature)
            guard let entity = pop(where: Self.isContext) else { return nil }
            return make(.entityGlobal, entity)
        case UInt8(ascii: "R"), UInt8(ascii: "r"):
            _ = pop(.signature)
            guard popType() != nil, popType() != nil else { return nil }
            return make(.reabstractionThunk)
        case UInt8(ascii: "g"), UInt8(ascii: "G"), UInt8(ascii: "i"), UInt8(ascii: "s"):
            let inlined = parser.bytes[parser.position - 1] == UInt8(ascii: "i")
            guard specializationInfo(&parser) else { return nil }
            // The specialized types: a list whose first element is marked with `_`.
            var first = false
            repeat {
                first = pop(.firstElement) != nil
                guard popType() != nil else { return nil }
            } while !first
            return make(.attribute, value: (inlined ? AttributeKind.inlined : AttributeKind.plain).rawValue)
        case UInt8(ascii: "f"):
            guard specializationInfo(&parser) else { return nil }
            var arguments: [SignatureArguments] = []
            while !parser.nextIf(UInt8(ascii: "_")) {
                guard let taken = signatureParameter(&parser) else { return nil }
                arguments.append(taken)
            }
            if !parser.nextIf(UInt8(ascii: "n")) {
                guard let taken = signatureParameter(&parser) else { return nil }
                arguments.append(taken)
            }
            // The propagated closures and constants were pushed in parameter order: the last first.
            for taken in arguments.reversed() where taken != .none {
                if taken == .typesAndName { while popType() != nil {} }
                guard pop(.identifier) != nil else { return nil }
            }
            return make(.attribute, value: AttributeKind.plain.rawValue)
        case UInt8(ascii: "W"):
            guard let entity = pop(where: { Self.isContext($0) || Self.isType($0) }), let conformance = popConformance()
            else { return nil }
            return make(.witness, conformance, entity)
        default:
            return nil
        }
    }

    /// `m` (metatype parameters removed), `q` (serialized), then the pass that specialized.
    func specializationInfo(_ parser: inout Parser) -> Bool {
        _ = parser.nextIf(UInt8(ascii: "m"))
        _ = parser.nextIf(UInt8(ascii: "q"))
        return Self.isDigit(parser.next())
    }

    /// What a function signature specialization's parameter takes from the stack: nothing, or a
    /// propagated closure's captured types and name.
    enum SignatureArguments { case none, typesAndName }

    /// One parameter of a function signature specialization.
    func signatureParameter(_ parser: inout Parser) -> SignatureArguments? {
        switch parser.next() {
        case UInt8(ascii: "n"), UInt8(ascii: "x"), UInt8(ascii: "i"), UInt8(ascii: "s"), UInt8(ascii: "r"):
            return SignatureArguments.none
        case UInt8(ascii: "e"), UInt8(ascii: "d"):
            _ = parser.nextIf(UInt8(ascii: "D"))
            _ = parser.nextIf(UInt8(ascii: "G"))
            _ = parser.nextIf(UInt8(ascii: "O"))
            _ = parser.nextIf(UInt8(ascii: "X"))
            return SignatureArguments.none
        case UInt8(ascii: "g"), UInt8(ascii: "o"):
            _ = parser.nextIf(UInt8(ascii: "X"))
            return SignatureArguments.none
        case UInt8(ascii: "c"):
            return .typesAndName
        default:
            // Propagated constants (`p`) print words the text simplification's bracket count trips on.
            return nil
        }
    }
}
