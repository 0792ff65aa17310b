// The operators of the mangling grammar (docs/ABI/Mangling.rst): identifiers, substitutions, nominal types, tuples, functions, existentials.
extension MangledSwiftName {
    // MARK: Operators

    mutating func demangleOperator(_ parser: inout Parser) -> Int32? {
        let byte = parser.next()
        switch byte {
        case UInt8(ascii: "0")...UInt8(ascii: "9"):
            parser.position -= 1
            return identifier(&parser)
        case UInt8(ascii: "A"): return substitution(&parser)
        case UInt8(ascii: "B"): return builtin(&parser)
        case UInt8(ascii: "C"): return nominal(.classType)
        case UInt8(ascii: "V"): return nominal(.structure)
        case UInt8(ascii: "O"): return nominal(.enumeration)
        case UInt8(ascii: "P"): return nominal(.protocolType)
        case UInt8(ascii: "a"): return nominal(.typeAlias)
        case UInt8(ascii: "E"):
            _ = pop(.signature)
            guard popModule() != nil, let type = popType(), Self.isNominalKind(kind(type)) else { return nil }
            return make(.extensionContext, type)
        case UInt8(ascii: "F"):
            _ = pop(.signature)
            guard let type = popFunctionType() else { return nil }
            _ = popLabels(type)
            guard let name = pop(where: Self.isDeclName), let context = popContext() else { return nil }
            return make(.function, context, name)
        case UInt8(ascii: "G"): return boundGeneric()
        case UInt8(ascii: "K"): return make(.annotation)
        case UInt8(ascii: "L"): return localName(&parser)
        case UInt8(ascii: "M"): return metadata(&parser)
        case UInt8(ascii: "N"):
            guard let type = popType() else { return nil }
            return typeGlobal(type)
        case UInt8(ascii: "Q"): return archetype(&parser)
        case UInt8(ascii: "R"): return requirement(&parser)
        case UInt8(ascii: "S"): return standard(&parser)
        case UInt8(ascii: "T"): return thunkOrSpecialization(&parser)
        case UInt8(ascii: "W"): return witness(&parser)
        case UInt8(ascii: "X"): return specialType(&parser)
        case UInt8(ascii: "Y"): return yOperator(&parser)
        case UInt8(ascii: "Z"):
            guard let entity = pop(where: { Self.isContext($0) || Self.isType($0) }) else { return nil }
            return make(.staticEntity, entity)
        case UInt8(ascii: "c"):
            return popFunctionType()
        case UInt8(ascii: "d"): return make(.variadic)
        case UInt8(ascii: "f"): return functionEntity(&parser)
        case UInt8(ascii: "h"), UInt8(ascii: "n"), UInt8(ascii: "z"), UInt8(ascii: "m"):
            // shared, owned, inout, metatype
            guard let type = popType() else { return nil }
            return make(.otherType, type)
        case UInt8(ascii: "i"):
            _ = pop(.fileDiscriminator)
            guard let type = popType() else { return nil }
            checkUnbracketed(type)
            _ = popLabels(type)
            guard let context = popContext() else { return nil }
            return accessor(&parser, storage: make(.subscriptEntity, context))
        case UInt8(ascii: "v"):
            guard let type = popType() else { return nil }
            checkUnbracketed(type)
            _ = popLabels(type)
            guard let name = pop(where: Self.isDeclName), let context = popContext() else { return nil }
            return accessor(&parser, storage: make(.variable, context, name))
        case UInt8(ascii: "l"): return genericSignature(&parser, counts: false)
        case UInt8(ascii: "r"): return genericSignature(&parser, counts: true)
        case UInt8(ascii: "p"): return existential()
        case UInt8(ascii: "q"):
            guard genericParameterIndex(&parser) else { return nil }
            return make(.otherType)
        case UInt8(ascii: "x"): return make(.otherType)
        case UInt8(ascii: "s"): return swift()
        case UInt8(ascii: "t"): return tuple()
        case UInt8(ascii: "u"):
            _ = pop(.signature)
            guard let type = popType() else { return nil }
            return make(.dependentGeneric, type)
        case UInt8(ascii: "w"):
            // A value witness: two letters name it (`xx` destroy, `cp` initializeWithCopy, ...).
            guard Self.valueWitnesses.contains(where: { $0.0 == parser.peek && $0.1 == parser.bytes[min(parser.position + 1, parser.end - 1)] }),
                parser.position + 2 <= parser.end
            else { return nil }
            parser.position += 2
            guard let type = popType() else { return nil }
            return typeGlobal(type)
        case UInt8(ascii: "y"): return make(.emptyList)
        case UInt8(ascii: "_"): return make(.firstElement)
        case UInt8(ascii: "o"): return operatorName(&parser)
        case UInt8(ascii: "I"): return implementationFunctionType(&parser)
        default: return nil
        }
    }

    /// `identifier 'o' FIXITY`: the identifier's letters stand for operator characters.
    mutating func operatorName(_ parser: inout Parser) -> Int32? {
        guard let identifier = pop(.identifier),
            [UInt8(ascii: "i"), UInt8(ascii: "p"), UInt8(ascii: "P")].contains(parser.next())
        else { return nil }
        let item = nodes[Int(identifier)]
        var characters: [UInt8] = []
        for byte in textBytes(item) {
            guard let character = Self.operatorCharacters[byte] else { return nil }
            characters.append(character)
        }
        return textNode(.operatorName, characters)
    }

    static let operatorCharacters: [UInt8: UInt8] = {
        var characters: [UInt8: UInt8] = [:]
        for (letter, character) in zip("acdeglmnopqrstxz".utf8, "&@/=><*!|+?%-~^.".utf8) { characters[letter] = character }
        return characters
    }()

    /// A SIL function type (`@escaping @callee_guaranteed (@guaranteed A) -> (@owned B)`), as the
    /// reabstraction thunks' types are: its attributes, then one convention letter per parameter
    /// and result, each taking one of the types before it.
    mutating func implementationFunctionType(_ parser: inout Parser) -> Int32? {
        _ = pop(.signature)
        if parser.peek == UInt8(ascii: "s") || parser.peek == UInt8(ascii: "I") || parser.peek == UInt8(ascii: "P") {
            return nil  // pattern or invocation substitutions, pseudo-generic signatures
        }
        _ = parser.nextIf(UInt8(ascii: "e"))
        _ = parser.nextIf(UInt8(ascii: "A")) || parser.nextIf(UInt8(ascii: "N"))
        _ = parser.nextIf(UInt8(ascii: "O"))
        if "dlfr".utf8.contains(parser.peek) { parser.position += 1 }
        guard "ygxt".utf8.contains(parser.next()) else { return nil }
        if parser.peek == UInt8(ascii: "z") { return nil }  // a C type
        if "BCMJKVW".utf8.contains(parser.peek) { parser.position += 1 }
        if "AIG".utf8.contains(parser.peek) { parser.position += 1 }
        _ = parser.nextIf(UInt8(ascii: "h"))
        _ = parser.nextIf(UInt8(ascii: "H"))
        _ = parser.nextIf(UInt8(ascii: "T"))
        var types = 0
        while "iclbnXxygevpm".utf8.contains(parser.peek) {
            parser.position += 1
            // @noDerivative, sending, @isolated, @implicit_leading
            while "wTIL".utf8.contains(parser.peek) { parser.position += 1 }
            types += 1
        }
        while "rodualgkm".utf8.contains(parser.peek) {
            parser.position += 1
            _ = parser.nextIf(UInt8(ascii: "w"))
            types += 1
        }
        while parser.nextIf(UInt8(ascii: "Y")) {
            guard "iclbnXxygevpm".utf8.contains(parser.next()) else { return nil }
            types += 1
        }
        if parser.nextIf(UInt8(ascii: "z")) {
            guard "rodualgkm".utf8.contains(parser.next()) else { return nil }
            _ = parser.nextIf(UInt8(ascii: "w"))
            types += 1
        }
        guard parser.nextIf(UInt8(ascii: "_")) else { return nil }
        for _ in 0..<types {
            guard popType() != nil else { return nil }
        }
        return make(.otherType)
    }

    static let valueWitnesses: [(UInt8, UInt8)] = [
        "al", "ca", "ta", "de", "xx", "XX", "Xx", "CP", "Cp", "cp", "TK", "Tk", "tk", "pr", "xs", "xg", "Cc", "Tt", "tT",
        "ug", "up", "ui", "et", "st",
    ].map { (Array($0.utf8)[0], Array($0.utf8)[1]) }

    /// `NAME`, `0` followed by literal runs and word substitutions; `00` (Punycode) is not read.
    mutating func identifier(_ parser: inout Parser) -> Int32? {
        var usesWords = false
        if parser.nextIf(UInt8(ascii: "0")) {
            if parser.peek == UInt8(ascii: "0") { return nil }  // Punycode
            usesWords = true
        }
        if !usesWords {
            // One literal run: the node points into the name itself.
            guard let count = parser.natural(), count > 0, parser.position + count <= parser.end else { return nil }
            literalRuns.append(ByteRun(start: Int32(parser.position), end: Int32(parser.position + count)))
            nodes.append(Node(kind: .identifier, textStart: Int32(parser.position), textCount: Int32(count), textInName: true))
            parser.position += count
            let node = Int32(nodes.count - 1)
            substitutions.append(node)
            return node
        }
        let start = text.count
        repeat {
            while usesWords, Self.isLower(parser.peek) || Self.isUpper(parser.peek) {
                let letter = parser.next()
                let index = Int(Self.isLower(letter) ? letter - UInt8(ascii: "a") : letter - UInt8(ascii: "A"))
                if Self.isUpper(letter) { usesWords = false }
                guard wordsAvailable(index) else { return nil }
                text.append(contentsOf: UnsafeBufferPointer(rebasing: parser.bytes[words[index].range]))
            }
            if parser.nextIf(UInt8(ascii: "0")) { break }
            guard let count = parser.natural(), count > 0, parser.position + count <= parser.end else { return nil }
            let slice = parser.position..<(parser.position + count)
            text.append(contentsOf: UnsafeBufferPointer(rebasing: parser.bytes[slice]))
            literalRuns.append(ByteRun(start: Int32(slice.lowerBound), end: Int32(slice.upperBound)))
            parser.position += count
        } while usesWords
        guard text.count > start else { return nil }
        nodes.append(Node(kind: .identifier, textStart: Int32(start), textCount: Int32(text.count - start)))
        let node = Int32(nodes.count - 1)
        substitutions.append(node)
        return node
    }

    /// Whether word `index` is known, reading the words of the literal runs so far as far as
    /// needed: most names substitute few words or none, and the runs are read only then.
    mutating func wordsAvailable(_ index: Int) -> Bool {
        while words.count <= index, wordRunsRead < literalRuns.count, words.count < 26 {
            recordWords(bytes, literalRuns[wordRunsRead].range)
            wordRunsRead += 1
        }
        return index < words.count
    }

    /// The words of a literal run, for later word substitutions: a word starts at a letter and
    /// ends before `_`, or before an uppercase letter that follows a non-uppercase one; words of
    /// one letter do not count.
    mutating func recordWords(_ bytes: UnsafeBufferPointer<UInt8>, _ slice: Range<Int>) {
        var wordStart = -1
        var index = slice.lowerBound
        while index <= slice.upperBound {
            let byte: UInt8 = index < slice.upperBound ? bytes[index] : 0
            if wordStart >= 0 {
                let previous = bytes[index - 1]
                if byte == UInt8(ascii: "_") || byte == 0 || (!Self.isUpper(previous) && Self.isUpper(byte)) {
                    if index - wordStart >= 2, words.count < 26 { words.append(ByteRun(start: Int32(wordStart), end: Int32(index))) }
                    wordStart = -1
                }
            }
            if wordStart < 0, !Self.isDigit(byte), byte != UInt8(ascii: "_"), byte != 0 { wordStart = index }
            index += 1
        }
    }

    /// `A` followed by lowercase references (each pushed) and a last uppercase one, each with an
    /// optional repeat count; or `A` INDEX for the 27th substitution on.
    mutating func substitution(_ parser: inout Parser) -> Int32? {
        var repeatCount = -1
        while true {
            let byte = parser.next()
            if byte == 0 { return nil }
            if Self.isLower(byte) || Self.isUpper(byte) {
                let index = Int(Self.isLower(byte) ? byte - UInt8(ascii: "a") : byte - UInt8(ascii: "A"))
                guard index < substitutions.count, repeatCount <= 2048 else { return nil }
                let node = substitutions[index]
                var count = repeatCount
                while count > 1 {
                    stack.append(node)
                    count -= 1
                }
                if Self.isUpper(byte) { return node }
                stack.append(node)
                repeatCount = -1
                continue
            }
            if byte == UInt8(ascii: "_") {
                let index = repeatCount + 27
                guard index >= 0, index < substitutions.count else { return nil }
                return substitutions[index]
            }
            parser.position -= 1
            guard let count = parser.natural() else { return nil }
            repeatCount = count
        }
    }

    mutating func builtin(_ parser: inout Parser) -> Int32? {
        switch parser.next() {
        case UInt8(ascii: "A"), UInt8(ascii: "b"), UInt8(ascii: "B"), UInt8(ascii: "c"), UInt8(ascii: "D"), UInt8(ascii: "d"),
            UInt8(ascii: "e"), UInt8(ascii: "I"), UInt8(ascii: "j"), UInt8(ascii: "O"), UInt8(ascii: "o"),
            UInt8(ascii: "p"), UInt8(ascii: "P"), UInt8(ascii: "t"), UInt8(ascii: "w"):
            break
        case UInt8(ascii: "f"), UInt8(ascii: "i"):
            guard parser.natural() != nil, parser.nextIf(UInt8(ascii: "_")) else { return nil }
        default:
            return nil
        }
        return make(.otherType)
    }

    mutating func nominal(_ kind: Kind) -> Int32? {
        guard let name = pop(where: Self.isDeclName), let context = popContext() else { return nil }
        let node = make(kind, context, name)
        substitutions.append(node)
        return node
    }

    mutating func localName(_ parser: inout Parser) -> Int32? {
        if parser.nextIf(UInt8(ascii: "L")) {
            guard pop(.identifier) != nil, let name = pop(where: Self.isDeclName) else { return nil }
            return make(.privateName, name)
        }
        if parser.nextIf(UInt8(ascii: "l")) {
            guard pop(.identifier) != nil else { return nil }
            return make(.fileDiscriminator)
        }
        // `LA`...`LJ` (related entities) are not read.
        guard parser.index() != nil, let name = pop(where: Self.isDeclName) else { return nil }
        return make(.localName, name)
    }

    /// The types of a generic application, one list per nesting level, the type's own last (its
    /// parents' before). The node's `value` is the nominal type, its children the type's own
    /// arguments.
    mutating func boundGeneric() -> Int32? {
        let start = children.count
        var ownArguments = true
        while true {
            if ownArguments {
                while let type = popType() { children.append(type) }
            } else {
                while popType() != nil {}
            }
            ownArguments = false
            if pop(.emptyList) != nil { break }
            guard pop(.firstElement) != nil else { return nil }
        }
        children.reverse(from: start)
        guard let nominal = popType(), Self.isNominalKind(kind(nominal)) else { return nil }
        nodes.append(Node(kind: .boundGeneric, value: nominal, firstChild: Int32(start), childCount: Int32(children.count - start)))
        let node = Int32(nodes.count - 1)
        substitutions.append(node)
        return node
    }

    mutating func tuple() -> Int32? {
        let start = children.count
        if pop(.emptyList) == nil {
            var first = false
            repeat {
                first = pop(.firstElement) != nil
                _ = pop(.variadic)
                _ = pop(.identifier)
                guard let type = popType() else { return nil }
                children.append(type)
            } while !first
        }
        children.reverse(from: start)
        nodes.append(Node(kind: .tuple, firstChild: Int32(start), childCount: Int32(children.count - start)))
        return Int32(nodes.count - 1)
    }

    /// Effects (`Ya`, `Yb`, `K`, a global actor), then the parameters, then the result.
    mutating func popFunctionType() -> Int32? {
        while pop(.annotation) != nil {}
        guard let parameters = popParameters(), let result = popParameters() else { return nil }
        checkUnbracketed(result)
        return make(.functionType, parameters, result)
    }

    mutating func popParameters() -> Int32? {
        if pop(.emptyList) != nil { return make(.tuple) }
        return popType()
    }

    /// A function's argument labels, one per parameter (`_` for none), or `y` for no labels at
    /// all. Labels follow the name, so they are popped before it.
    mutating func popLabels(_ type: Int32) -> Bool {
        if pop(.emptyList) != nil { return true }
        var function = type
        if kind(function) == .dependentGeneric { function = child(function, 0) }
        guard kind(function) == .functionType else { return false }
        let parameters = child(function, 0)
        let count = kind(parameters) == .tuple ? childCount(parameters) : 1
        guard count > 0 else { return false }
        for _ in 0..<count {
            guard pop(where: { $0 == .identifier || $0 == .firstElement }) != nil else { return false }
        }
        return true
    }
}
