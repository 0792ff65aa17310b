// Generic parameters, archetypes, requirements and signatures; standard types, function entities, accessors, metadata.
extension MangledSwiftName {
    /// `protocol-list 'p'`: `any P`, printed as the protocol's name when there is one.
    mutating func existential() -> Int32? {
        var protocols: [Int32] = []
        if pop(.emptyList) == nil {
            var first = false
            repeat {
                first = pop(.firstElement) != nil
                guard let proto = popProtocol() else { return nil }
                protocols.append(proto)
            } while !first
        }
        let start = children.count
        for proto in protocols.reversed() { children.append(proto) }
        nodes.append(Node(kind: .existential, firstChild: Int32(start), childCount: Int32(protocols.count)))
        return Int32(nodes.count - 1)
    }

    mutating func protocolList(_ result: Int32) -> Int32? {
        if pop(.emptyList) == nil {
            var first = false
            repeat {
                first = pop(.firstElement) != nil
                guard popProtocol() != nil else { return nil }
            } while !first
        }
        return result
    }

    /// `z`, `s`, INDEX or `d` INDEX INDEX.
    func genericParameterIndex(_ parser: inout Parser) -> Bool {
        if parser.nextIf(UInt8(ascii: "d")) { return parser.index() != nil && parser.index() != nil }
        if parser.nextIf(UInt8(ascii: "z")) || parser.nextIf(UInt8(ascii: "s")) { return true }
        return parser.index() != nil
    }

    /// An associated type's name: an identifier and, when the base conforms to several
    /// protocols, the protocol.
    mutating func popAssociatedTypeName() -> Bool {
        if let top = stack.last, Self.isType(kind(top)) {
            guard kind(top) == .protocolType else { return false }
            stack.removeLast()
        }
        return pop(.identifier) != nil
    }

    mutating func popAssociatedTypeList() -> Bool {
        var first = false
        repeat {
            first = pop(.firstElement) != nil
            guard popAssociatedTypeName() else { return false }
        } while !first
        return true
    }

    mutating func archetype(_ parser: inout Parser) -> Int32? {
        switch parser.next() {
        case UInt8(ascii: "r"), UInt8(ascii: "u"):
            return make(.otherType)
        case UInt8(ascii: "R"), UInt8(ascii: "U"):
            guard parser.index() != nil else { return nil }
            return make(.otherType)
        case UInt8(ascii: "z"):
            guard popAssociatedTypeName() else { return nil }
        case UInt8(ascii: "y"):
            guard genericParameterIndex(&parser), popAssociatedTypeName() else { return nil }
        case UInt8(ascii: "Z"):
            guard popAssociatedTypeList() else { return nil }
        case UInt8(ascii: "Y"):
            guard genericParameterIndex(&parser), popAssociatedTypeList() else { return nil }
        case UInt8(ascii: "x"):
            guard popAssociatedTypeName(), let base = popType() else { return nil }
            checkUnbracketed(base)
        case UInt8(ascii: "X"):
            guard popAssociatedTypeList(), let base = popType() else { return nil }
            checkUnbracketed(base)
        default:
            return nil
        }
        let node = make(.otherType)
        substitutions.append(node)
        return node
    }

    mutating func requirement(_ parser: inout Parser) -> Int32? {
        enum Subject { case parameter, associated, associatedList, substitution }
        enum Constraint { case conformance, baseClass, sameType, layout, sameShape, inverse }
        let subject: Subject
        let constraint: Constraint
        switch parser.next() {
        case UInt8(ascii: "c"): (subject, constraint) = (.associated, .baseClass)
        case UInt8(ascii: "C"): (subject, constraint) = (.associatedList, .baseClass)
        case UInt8(ascii: "b"): (subject, constraint) = (.parameter, .baseClass)
        case UInt8(ascii: "B"): (subject, constraint) = (.substitution, .baseClass)
        case UInt8(ascii: "t"): (subject, constraint) = (.associated, .sameType)
        case UInt8(ascii: "T"): (subject, constraint) = (.associatedList, .sameType)
        case UInt8(ascii: "s"): (subject, constraint) = (.parameter, .sameType)
        case UInt8(ascii: "S"): (subject, constraint) = (.substitution, .sameType)
        case UInt8(ascii: "m"): (subject, constraint) = (.associated, .layout)
        case UInt8(ascii: "l"): (subject, constraint) = (.parameter, .layout)
        case UInt8(ascii: "L"): (subject, constraint) = (.substitution, .layout)
        case UInt8(ascii: "p"): (subject, constraint) = (.associated, .conformance)
        case UInt8(ascii: "P"): (subject, constraint) = (.associatedList, .conformance)
        case UInt8(ascii: "Q"): (subject, constraint) = (.substitution, .conformance)
        case UInt8(ascii: "h"): (subject, constraint) = (.parameter, .sameShape)
        case UInt8(ascii: "i"): (subject, constraint) = (.parameter, .inverse)
        case UInt8(ascii: "I"): (subject, constraint) = (.substitution, .inverse)
        case UInt8(ascii: "j"): (subject, constraint) = (.associated, .inverse)
        case UInt8(ascii: "J"): (subject, constraint) = (.associatedList, .inverse)
        case UInt8(ascii: "z"), UInt8(ascii: "d"), UInt8(ascii: "_"), UInt8(ascii: "0")...UInt8(ascii: "9"):
            parser.position -= 1
            (subject, constraint) = (.parameter, .conformance)
        default:
            return nil  // `RM` (two readings), pack and value markers
        }
        // An inverse requirement (`~Copyable`) names the protocol by its bit before the parameter.
        if constraint == .inverse, parser.index() == nil { return nil }
        switch subject {
        case .parameter:
            guard genericParameterIndex(&parser) else { return nil }
        case .associated:
            guard genericParameterIndex(&parser), popAssociatedTypeName() else { return nil }
            substitutions.append(make(.otherType))
        case .associatedList:
            guard genericParameterIndex(&parser), popAssociatedTypeList() else { return nil }
            substitutions.append(make(.otherType))
        case .substitution:
            guard popType() != nil else { return nil }
        }
        switch constraint {
        case .conformance:
            guard popProtocol() != nil else { return nil }
        case .baseClass, .sameType, .sameShape:
            guard popType() != nil else { return nil }
        case .inverse:
            break
        case .layout:
            switch parser.next() {
            case UInt8(ascii: "U"), UInt8(ascii: "R"), UInt8(ascii: "N"), UInt8(ascii: "C"), UInt8(ascii: "D"),
                UInt8(ascii: "T"), UInt8(ascii: "B"), UInt8(ascii: "S"):
                break
            case UInt8(ascii: "E"), UInt8(ascii: "M"):
                guard parser.index() != nil, parser.index() != nil else { return nil }
            case UInt8(ascii: "e"), UInt8(ascii: "m"):
                guard parser.index() != nil else { return nil }
            default:
                return nil
            }
        }
        return make(.requirement)
    }

    mutating func genericSignature(_ parser: inout Parser, counts: Bool) -> Int32? {
        if counts {
            while !parser.nextIf(UInt8(ascii: "l")) {
                if parser.nextIf(UInt8(ascii: "z")) { continue }
                guard parser.index() != nil else { return nil }
            }
        }
        while pop(.requirement) != nil {}
        return make(.signature)
    }

    /// The standard types `S` followed by one letter names (`Si` Swift.Int), by that letter.
    static let standardTypes = table(
        structures: "aArray bBool DDictionary dDouble fFloat hSet IDefaultIndices iInt JCharacter NClosedRange nRange "
            + "OObjectIdentifier PUnsafePointer pUnsafeMutablePointer RUnsafeBufferPointer rUnsafeMutableBufferPointer "
            + "SString sSubstring uUInt VUnsafeRawPointer vUnsafeMutableRawPointer WUnsafeRawBufferPointer "
            + "wUnsafeMutableRawBufferPointer AAutoreleasingUnsafeMutablePointer qOptional",
        protocols: "BBinaryFloatingPoint EEncodable eDecodable FFloatingPoint GRandomNumberGenerator HHashable jNumeric "
            + "KBidirectionalCollection kRandomAccessCollection LComparable lCollection MMutableCollection "
            + "mRangeReplaceableCollection QEquatable TSequence tIteratorProtocol UUnsignedInteger XRangeExpression "
            + "xStrideable YRawRepresentable yStringProtocol ZSignedInteger zBinaryInteger")
    /// The second set, `Sc` followed by one letter (`ScT` Swift.Task).
    static let concurrencyTypes = table(
        structures: "CCheckedContinuation cUnsafeContinuation ECancellationError eUnownedSerialExecutor GTaskGroup "
            + "gThrowingTaskGroup JUnownedJob PTaskPriority SAsyncStream sAsyncThrowingStream TTask tUnsafeCurrentTask "
            + "MMainActor",
        protocols: "AActor FExecutor fSerialExecutor IAsyncIteratorProtocol iAsyncSequence hTaskExecutor")
    static let optionalType = standardTypes[Int(UInt8(ascii: "q"))]!

    static func table(structures: String, protocols: String) -> [(name: [UInt8], kind: Kind)?] {
        var types = [(name: [UInt8], kind: Kind)?](repeating: nil, count: 128)
        for (words, kind) in [(structures, Kind.structure), (protocols, Kind.protocolType)] {
            for word in words.split(separator: " ") {
                // The kind only matters to the printer for classes, and none of these is one.
                types[Int(word.utf8.first!)] = (Array(word.utf8.dropFirst()), word == "qOptional" ? .enumeration : kind)
            }
        }
        return types
    }

    mutating func standard(_ parser: inout Parser) -> Int32? {
        switch parser.peek {
        case UInt8(ascii: "o"):
            parser.position += 1
            return textNode(.module, "__C".utf8)
        case UInt8(ascii: "C"):
            parser.position += 1
            return textNode(.module, "__C_Synthesized".utf8)
        case UInt8(ascii: "g"):
            parser.position += 1
            guard let type = popType() else { return nil }
            let optional = standardType(Self.optionalType)
            let node = make(.boundGeneric, value: optional, type)
            substitutions.append(node)
            return node
        default:
            break
        }
        let repeatCount = parser.natural() ?? 1
        guard repeatCount <= 2048 else { return nil }
        let concurrency = parser.nextIf(UInt8(ascii: "c"))
        let letter = Int(parser.next())
        guard letter < 128, let found = concurrency ? Self.concurrencyTypes[letter] : Self.standardTypes[letter] else {
            return nil
        }
        let node = standardType(found)
        for _ in 1..<max(repeatCount, 1) { stack.append(node) }
        return node
    }

    mutating func standardType(_ type: (name: [UInt8], kind: Kind)) -> Int32 {
        let name = textNode(.identifier, type.name)
        return make(type.kind, swift(), name)
    }

    mutating func functionEntity(_ parser: inout Parser) -> Int32? {
        let kind: Kind
        switch parser.next() {
        case UInt8(ascii: "C"), UInt8(ascii: "c"):
            kind = parser.bytes[parser.position - 1] == UInt8(ascii: "C") ? .allocator : .constructor
            // A file-discriminated initializer (`(in _0123ABCD).init`) simplifies as any other:
            // its type's name and `init` (checked on the toolchain's 314,394 Swift function names).
            _ = pop(.fileDiscriminator)
            guard let type = popType() else { return nil }
            _ = popLabels(type)
        case UInt8(ascii: "U"), UInt8(ascii: "u"):
            kind = parser.bytes[parser.position - 1] == UInt8(ascii: "U") ? .explicitClosure : .implicitClosure
            guard parser.index() != nil, popType() != nil else { return nil }
        case UInt8(ascii: "A"):
            kind = .defaultArgument
            guard parser.index() != nil else { return nil }
        case UInt8(ascii: "i"): kind = .variableInitializer
        case UInt8(ascii: "P"): kind = .wrapperInitializer
        case UInt8(ascii: "D"): kind = .deallocator
        case UInt8(ascii: "d"): kind = .destructor
        case UInt8(ascii: "E"): kind = .ivarDestroyer
        case UInt8(ascii: "e"): kind = .ivarInitializer
        default:
            return nil
        }
        guard let context = popContext() else { return nil }
        return make(kind, context)
    }

    mutating func accessor(_ parser: inout Parser, storage: Int32) -> Int32? {
        switch parser.next() {
        case UInt8(ascii: "p"): return storage
        case UInt8(ascii: "m"), UInt8(ascii: "s"), UInt8(ascii: "g"), UInt8(ascii: "G"), UInt8(ascii: "w"),
            UInt8(ascii: "W"), UInt8(ascii: "r"), UInt8(ascii: "M"):
            return make(.accessor, storage)
        case UInt8(ascii: "i"):
            return make(.accessor, value: 1, storage)
        case UInt8(ascii: "a"), UInt8(ascii: "l"):
            switch parser.next() {
            case UInt8(ascii: "u"), UInt8(ascii: "O"), UInt8(ascii: "o"), UInt8(ascii: "p"): return make(.accessor, storage)
            default: return nil
            }
        default:
            return nil
        }
    }

    mutating func metadata(_ parser: inout Parser) -> Int32? {
        switch parser.next() {
        case UInt8(ascii: "a"), UInt8(ascii: "f"), UInt8(ascii: "i"), UInt8(ascii: "I"), UInt8(ascii: "l"),
            UInt8(ascii: "L"), UInt8(ascii: "m"), UInt8(ascii: "n"), UInt8(ascii: "o"), UInt8(ascii: "P"),
            UInt8(ascii: "r"), UInt8(ascii: "u"):
            guard let type = popType() else { return nil }
            return typeGlobal(type)
        case UInt8(ascii: "p"):
            guard let proto = popProtocol() else { return nil }
            return make(.typeGlobal, value: Self.describedType, proto)
        case UInt8(ascii: "V"):
            guard let entity = pop(where: Self.isContext) else { return nil }
            return make(.entityGlobal, entity)
        case UInt8(ascii: "c"):
            guard let conformance = popConformance() else { return nil }
            return make(.conformanceGlobal, conformance)
        default:
            return nil
        }
    }
}
