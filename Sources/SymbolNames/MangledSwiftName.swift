import Foundation

// Swift's mangling read straight to the simplified `Type.member` name, without the runtime's full
// demangling and the text simplification after it (`SwiftNameSimplifier.swift`): names were two
// fifths of a cold batch on a small binary and a third of the index build. The grammar is the
// one in the Swift repository's docs/ABI/Mangling.rst: a postfix language of operators over a
// stack of nodes, with substitutions of earlier nodes and of words of earlier identifiers.
//
// Only the common shapes are read: functions, properties and their accessors, initializers,
// closures and local declarations, protocol witnesses, metadata, value witnesses and witness
// tables, with the specializations, thunks and async pieces around them. For anything else
// (an operator this reader does not know, a name whose printed form the text simplification
// reads in a way of its own) it answers `nil` and the caller takes the runtime's path, so a name
// is never simplified differently from before: `MangledSwiftNameTests` compares both ways on
// every Swift symbol of toolchain binaries.

/// Reads mangled Swift names to their simplified form. One reader is reused for many names: its
/// node storage is kept between them. Copies share that storage, so a reader (and a `NameCache`
/// holding one) is used by one thread at a time; each thread of a batch or a build makes its own.
package struct MangledSwiftName {
    enum Kind: UInt8 {
        case identifier, privateName, localName, module
        case operatorName  // text: the operator's characters (`==`, `..<`)
        case fileDiscriminator  // `(in _0123ABCD)` before a private initializer's name
        // Nominal types (contexts and types both): children [context, name].
        case structure, classType, enumeration, protocolType, typeAlias
        // Contexts: children [context, name] (name only for the named ones).
        case extensionContext  // children [extended type]
        case function, variable, subscriptEntity, constructor, allocator, destructor, deallocator
        case ivarDestroyer, ivarInitializer
        case accessor  // children [storage]; `value` is 1 for the init accessor
        case staticEntity  // children [entity]
        case explicitClosure, implicitClosure  // children [context]
        case defaultArgument, variableInitializer, wrapperInitializer  // children [entity]
        // Types.
        case boundGeneric  // children [nominal, arguments of its innermost level...]
        case tuple  // children [element types]
        case functionType  // children [parameters, result]
        case dependentGeneric  // children [type]
        case otherType  // children: the one type it wraps, if any (a metatype's instance type, ...)
        case existential  // children: its protocols
        // Markers and pieces.
        case emptyList, firstElement, variadic, annotation, signature, requirement, conformance
        // Globals. `value` says which.
        case attribute, witness, typeGlobal, conformanceGlobal, lazyWitnessGlobal, entityGlobal
        case reabstractionThunk
        case initializationGlobal  // children [the variable's name]: `one-time initialization function for x`
    }

    struct Node {
        var kind: Kind
        var value: Int32 = 0
        var textStart: Int32 = 0
        var textCount: Int32 = 0
        /// Whether the text is a run of the name being read (an identifier without word
        /// substitutions, not copied) rather than of `text`.
        var textInName = false
        var firstChild: Int32 = 0
        var childCount: Int32 = 0
    }

    /// How an attribute of the whole symbol (`TA`, `Tg`, ...) reads.
    enum AttributeKind: Int32 {
        case plain = 0  // `merged `, `partial apply forwarder for `, a specialization, a thunk of
        case asyncPiece = 1  // `(1) await resume partial function for `
        case inlined = 2  // `inlined generic function <...> of `: the text simplification reads `inlined`
    }

    /// How a type's global reads: after descriptive words (`type metadata accessor for `), whose
    /// simplification unwraps `Swift.Optional<...>`.
    static let describedType: Int32 = 0

    private let nodes = ScratchBuffer<Node>(capacity: 256)
    private let children = ScratchBuffer<Int32>(capacity: 512)
    private let text = ScratchBuffer<UInt8>(capacity: 1024)
    let stack = ScratchBuffer<Int32>(capacity: 64)
    /// The simplification's buffers (`MangledSwiftName+Simplified.swift`).
    let path = ScratchBuffer<Component>(capacity: 32)
    let inner = ScratchBuffer<Component>(capacity: 16)
    let output = ScratchBuffer<UInt8>(capacity: 256)
    private let substitutions = ScratchBuffer<Int32>(capacity: 64)
    private let words = ScratchBuffer<ByteRun>(capacity: 26)
    /// The literal runs of identifiers so far, and how many of them `words` has read.
    private let literalRuns = ScratchBuffer<ByteRun>(capacity: 64)
    private var wordRunsRead = 0
    private var bytes = UnsafeBufferPointer<UInt8>(start: nil, count: 0)
    private var swiftModule: Int32 = -1
    /// Set when a local type (`Visitor #1 in f`) is used as a type where it prints outside any
    /// bracket (a result type, a property's type, the type of a witness table): the runtime prints
    /// its context after it, and the text simplification reads those words its own way.
    private var localTypeUsedAsType = false
    /// Where reading the last name stopped at an operator it does not read (-1 if it did not):
    /// for finding what to read next.
    private(set) var failedAt = -1

    package init() {}

    /// The simplified name of `name`, or `nil` when this reader does not read it (then the
    /// runtime's demangling and the text simplification give it).
    package mutating func simplifiedName(_ name: String) -> String? {
        var name = name
        return name.withUTF8 { simplifiedName(bytes: $0) }
    }

    package mutating func simplifiedName(bytes: UnsafeBufferPointer<UInt8>) -> String? {
        guard readSimplified(bytes) else { return nil }
        return String(decoding: output[0..<output.count], as: UTF8.self)
    }

    /// `simplifiedName(bytes:)` lent to `body` as bytes, valid only during the call (no string
    /// made: a caller that copies the name into a buffer of its own saves allocating one).
    package mutating func withSimplifiedName<Result>(bytes: UnsafeBufferPointer<UInt8>, _ body: (UnsafeBufferPointer<UInt8>) -> Result) -> Result? {
        guard readSimplified(bytes) else { return nil }
        return body(output[0..<output.count])
    }

    /// Reads `bytes` and leaves their simplified name in `output`; false when this reader does not
    /// read them.
    private mutating func readSimplified(_ bytes: UnsafeBufferPointer<UInt8>) -> Bool {
        var start = 0
        if bytes.count > 2, bytes[0] == UInt8(ascii: "_") { start = 1 }
        guard bytes.count - start > 2, bytes[start] == UInt8(ascii: "$"), bytes[start + 1] == UInt8(ascii: "s")
        else { return false }
        guard bytes.count <= SwiftNames.longestMangledName else { return false }
        // `.resume.0`, `.cold.1`: an unmangled suffix, left out of the simplified name.
        var end = bytes.count
        if let base = bytes.baseAddress, let dot = memchr(base + start + 2, Int32(UInt8(ascii: ".")), bytes.count - start - 2) {
            end = UnsafeRawPointer(dot) - UnsafeRawPointer(base)
        }
        nodes.removeAll()
        children.removeAll()
        text.removeAll()
        stack.removeAll()
        substitutions.removeAll()
        words.removeAll()
        literalRuns.removeAll()
        wordRunsRead = 0
        self.bytes = bytes
        // Nodes point into the name: it is valid only during this call.
        defer { self.bytes = UnsafeBufferPointer(start: nil, count: 0) }
        swiftModule = -1
        localTypeUsedAsType = false
        var parser = Parser(bytes: bytes, position: start + 2, end: end)
        while parser.position < parser.end {
            let operatorStart = parser.position
            guard let node = demangleOperator(&parser) else {
                failedAt = operatorStart
                return false
            }
            stack.append(node)
        }
        failedAt = -1
        guard !localTypeUsedAsType else { return false }
        return simplifiedGlobal()
    }

    // MARK: - Reading

    struct Parser {
        let bytes: UnsafeBufferPointer<UInt8>
        var position: Int
        let end: Int

        var peek: UInt8 { position < end ? bytes[position] : 0 }

        mutating func next() -> UInt8 {
            guard position < end else { return 0 }
            defer { position += 1 }
            return bytes[position]
        }

        mutating func nextIf(_ byte: UInt8) -> Bool {
            guard position < end, bytes[position] == byte else { return false }
            position += 1
            return true
        }

        /// A decimal number, or `nil` when none is there (or it is absurdly large).
        mutating func natural() -> Int? {
            guard position < end, isDigit(bytes[position]) else { return nil }
            var value = 0
            while position < end, isDigit(bytes[position]) {
                value = value * 10 + Int(bytes[position] - UInt8(ascii: "0"))
                if value > 1 << 30 { return nil }
                position += 1
            }
            return value
        }

        /// `_` is 0, `N_` is N + 1.
        mutating func index() -> Int? {
            if nextIf(UInt8(ascii: "_")) { return 0 }
            guard let value = natural(), nextIf(UInt8(ascii: "_")) else { return nil }
            return value + 1
        }
    }

    @inline(__always)
    static func isDigit(_ byte: UInt8) -> Bool { byte >= UInt8(ascii: "0") && byte <= UInt8(ascii: "9") }

    @inline(__always)
    static func isLower(_ byte: UInt8) -> Bool { byte >= UInt8(ascii: "a") && byte <= UInt8(ascii: "z") }

    @inline(__always)
    static func isUpper(_ byte: UInt8) -> Bool { byte >= UInt8(ascii: "A") && byte <= UInt8(ascii: "Z") }

    private mutating func make(_ kind: Kind, value: Int32 = 0) -> Int32 {
        nodes.append(Node(kind: kind, value: value, firstChild: Int32(children.count), childCount: 0))
        return Int32(nodes.count - 1)
    }

    private mutating func make(_ kind: Kind, value: Int32 = 0, _ only: Int32) -> Int32 {
        nodes.append(Node(kind: kind, value: value, firstChild: Int32(children.count), childCount: 1))
        children.append(only)
        return Int32(nodes.count - 1)
    }

    private mutating func make(_ kind: Kind, value: Int32 = 0, _ first: Int32, _ second: Int32) -> Int32 {
        nodes.append(Node(kind: kind, value: value, firstChild: Int32(children.count), childCount: 2))
        children.append(first)
        children.append(second)
        return Int32(nodes.count - 1)
    }

    func nodeKind(_ node: Int32) -> Kind { nodes[Int(node)].kind }

    func nodeValue(_ node: Int32) -> Int32 { nodes[Int(node)].value }

    private func kind(_ node: Int32) -> Kind { nodes[Int(node)].kind }

    /// Where a node's text starts: in `text`, or in the name being read.
    private func textBase(_ item: Node) -> UnsafePointer<UInt8> {
        item.textInName ? bytes.baseAddress! + Int(item.textStart) : UnsafePointer(text.base + Int(item.textStart))
    }

    private func textBytes(_ item: Node) -> UnsafeBufferPointer<UInt8> {
        UnsafeBufferPointer(start: textBase(item), count: Int(item.textCount))
    }

    func textEquals(_ node: Int32, _ string: StaticString) -> Bool {
        let item = nodes[Int(node)]
        guard Int(item.textCount) == string.utf8CodeUnitCount else { return false }
        let bytes = textBase(item)
        var index = 0
        while index < Int(item.textCount) {
            if bytes[index] != string.utf8Start[index] { return false }
            index += 1
        }
        return true
    }

    func textEquals(_ node: Int32, _ bytes: [UInt8]) -> Bool {
        let item = nodes[Int(node)]
        guard Int(item.textCount) == bytes.count else { return false }
        let start = textBase(item)
        var index = 0
        while index < bytes.count {
            if start[index] != bytes[index] { return false }
            index += 1
        }
        return true
    }

    func startsWithDollar(_ node: Int32) -> Bool {
        let item = nodes[Int(node)]
        return item.textCount > 0 && textBase(item)[0] == UInt8(ascii: "$")
    }

    /// Appends a node's text to `output`, but its first `droppingFirst` bytes.
    mutating func appendText(of node: Int32, droppingFirst: Int) {
        let item = nodes[Int(node)]
        output.append(contentsOf: UnsafeBufferPointer(rebasing: textBytes(item)[min(droppingFirst, Int(item.textCount))...]))
    }

    func child(_ node: Int32, _ index: Int) -> Int32 {
        children[Int(nodes[Int(node)].firstChild) + index]
    }

    func childCount(_ node: Int32) -> Int { Int(nodes[Int(node)].childCount) }

    func nodeText(_ node: Int32) -> String {
        let item = nodes[Int(node)]
        return String(decoding: textBytes(item), as: UTF8.self)
    }

    private mutating func textNode(_ kind: Kind, _ bytes: some Collection<UInt8>) -> Int32 {
        let start = text.count
        text.append(contentsOf: bytes)
        nodes.append(Node(kind: kind, textStart: Int32(start), textCount: Int32(text.count - start)))
        return Int32(nodes.count - 1)
    }

    static func isNominalKind(_ kind: Kind) -> Bool {
        switch kind {
        case .structure, .classType, .enumeration, .protocolType, .typeAlias: return true
        default: return false
        }
    }

    private static func isType(_ kind: Kind) -> Bool {
        switch kind {
        case .structure, .classType, .enumeration, .protocolType, .typeAlias, .boundGeneric, .tuple, .functionType,
            .dependentGeneric, .otherType, .existential:
            return true
        default: return false
        }
    }

    static func isContext(_ kind: Kind) -> Bool {
        switch kind {
        case .module, .structure, .classType, .enumeration, .protocolType, .typeAlias, .extensionContext, .function,
            .variable, .subscriptEntity, .constructor, .allocator, .destructor, .deallocator, .ivarDestroyer,
            .ivarInitializer, .accessor, .staticEntity,
            .explicitClosure, .implicitClosure, .defaultArgument, .variableInitializer, .wrapperInitializer:
            return true
        default: return false
        }
    }

    private static func isDeclName(_ kind: Kind) -> Bool {
        kind == .identifier || kind == .privateName || kind == .localName || kind == .operatorName
    }

    private mutating func pop() -> Int32? { stack.popLast() }

    private mutating func pop(_ kind: Kind) -> Int32? {
        guard let top = stack.last, self.kind(top) == kind else { return nil }
        return stack.removeLast()
    }

    private mutating func pop(where test: (Kind) -> Bool) -> Int32? {
        guard let top = stack.last, test(kind(top)) else { return nil }
        return stack.removeLast()
    }

    private mutating func popType() -> Int32? { pop(where: Self.isType) }

    /// Notes whether `type`, printed outside brackets, prints a local type's context: the local
    /// type itself, or one it leads (`Local.Type`, a function type's result).
    private mutating func checkUnbracketed(_ type: Int32) {
        var current = type
        while true {
            switch kind(current) {
            case .structure, .classType, .enumeration, .protocolType, .typeAlias:
                if isLocalNominal(current) { localTypeUsedAsType = true }
                return
            case .boundGeneric:
                current = nodes[Int(current)].value
            case .otherType, .dependentGeneric:
                guard childCount(current) > 0 else { return }
                current = child(current, 0)
            case .functionType:
                current = child(current, 1)
            case .existential:
                for index in 0..<childCount(current) { checkUnbracketed(child(current, index)) }
                return
            default:
                return
            }
        }
    }

    private func isLocalNominal(_ node: Int32) -> Bool {
        var current = node
        while Self.isNominalKind(kind(current)) {
            if kind(child(current, 1)) == .localName { return true }
            current = child(current, 0)
        }
        return current != node && !(kind(current) == .module || kind(current) == .extensionContext)
    }

    private mutating func popModule() -> Int32? {
        if let identifier = pop(.identifier) {
            // A copy: the substitution table keeps the identifier, which may be used as a name later.
            var module = nodes[Int(identifier)]
            module.kind = .module
            nodes.append(module)
            return Int32(nodes.count - 1)
        }
        return pop(.module)
    }

    private mutating func popContext() -> Int32? {
        if let module = popModule() { return module }
        return pop(where: Self.isContext)
    }

    private mutating func popProtocol() -> Int32? {
        if let top = stack.last, Self.isType(kind(top)) {
            guard kind(top) == .protocolType else { return nil }
            return stack.removeLast()
        }
        guard let name = pop(where: Self.isDeclName), let context = popContext() else { return nil }
        return make(.protocolType, context, name)
    }

    private mutating func swift() -> Int32 {
        if swiftModule < 0 { swiftModule = textNode(.module, "Swift".utf8) }
        return swiftModule
    }

    // MARK: Operators

    private mutating func demangleOperator(_ parser: inout Parser) -> Int32? {
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
    private mutating func operatorName(_ parser: inout Parser) -> Int32? {
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

    private static let operatorCharacters: [UInt8: UInt8] = {
        var characters: [UInt8: UInt8] = [:]
        for (letter, character) in zip("acdeglmnopqrstxz".utf8, "&@/=><*!|+?%-~^.".utf8) { characters[letter] = character }
        return characters
    }()

    /// A SIL function type (`@escaping @callee_guaranteed (@guaranteed A) -> (@owned B)`), as the
    /// reabstraction thunks' types are: its attributes, then one convention letter per parameter
    /// and result, each taking one of the types before it.
    private mutating func implementationFunctionType(_ parser: inout Parser) -> Int32? {
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

    private static let valueWitnesses: [(UInt8, UInt8)] = [
        "al", "ca", "ta", "de", "xx", "XX", "Xx", "CP", "Cp", "cp", "TK", "Tk", "tk", "pr", "xs", "xg", "Cc", "Tt", "tT",
        "ug", "up", "ui", "et", "st",
    ].map { (Array($0.utf8)[0], Array($0.utf8)[1]) }

    /// `NAME`, `0` followed by literal runs and word substitutions; `00` (Punycode) is not read.
    private mutating func identifier(_ parser: inout Parser) -> Int32? {
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
    private mutating func wordsAvailable(_ index: Int) -> Bool {
        while words.count <= index, wordRunsRead < literalRuns.count, words.count < 26 {
            recordWords(bytes, literalRuns[wordRunsRead].range)
            wordRunsRead += 1
        }
        return index < words.count
    }

    /// The words of a literal run, for later word substitutions: a word starts at a letter and
    /// ends before `_`, or before an uppercase letter that follows a non-uppercase one; words of
    /// one letter do not count.
    private mutating func recordWords(_ bytes: UnsafeBufferPointer<UInt8>, _ slice: Range<Int>) {
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
    private mutating func substitution(_ parser: inout Parser) -> Int32? {
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

    private mutating func builtin(_ parser: inout Parser) -> Int32? {
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

    private mutating func nominal(_ kind: Kind) -> Int32? {
        guard let name = pop(where: Self.isDeclName), let context = popContext() else { return nil }
        let node = make(kind, context, name)
        substitutions.append(node)
        return node
    }

    private mutating func localName(_ parser: inout Parser) -> Int32? {
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
    private mutating func boundGeneric() -> Int32? {
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

    private mutating func tuple() -> Int32? {
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
    private mutating func popFunctionType() -> Int32? {
        while pop(.annotation) != nil {}
        guard let parameters = popParameters(), let result = popParameters() else { return nil }
        checkUnbracketed(result)
        return make(.functionType, parameters, result)
    }

    private mutating func popParameters() -> Int32? {
        if pop(.emptyList) != nil { return make(.tuple) }
        return popType()
    }

    /// A function's argument labels, one per parameter (`_` for none), or `y` for no labels at
    /// all. Labels follow the name, so they are popped before it.
    private mutating func popLabels(_ type: Int32) -> Bool {
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

    /// `protocol-list 'p'`: `any P`, printed as the protocol's name when there is one.
    private mutating func existential() -> Int32? {
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

    private mutating func protocolList(_ result: Int32) -> Int32? {
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
    private func genericParameterIndex(_ parser: inout Parser) -> Bool {
        if parser.nextIf(UInt8(ascii: "d")) { return parser.index() != nil && parser.index() != nil }
        if parser.nextIf(UInt8(ascii: "z")) || parser.nextIf(UInt8(ascii: "s")) { return true }
        return parser.index() != nil
    }

    /// An associated type's name: an identifier and, when the base conforms to several
    /// protocols, the protocol.
    private mutating func popAssociatedTypeName() -> Bool {
        if let top = stack.last, Self.isType(kind(top)) {
            guard kind(top) == .protocolType else { return false }
            stack.removeLast()
        }
        return pop(.identifier) != nil
    }

    private mutating func popAssociatedTypeList() -> Bool {
        var first = false
        repeat {
            first = pop(.firstElement) != nil
            guard popAssociatedTypeName() else { return false }
        } while !first
        return true
    }

    private mutating func archetype(_ parser: inout Parser) -> Int32? {
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

    private mutating func requirement(_ parser: inout Parser) -> Int32? {
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

    private mutating func genericSignature(_ parser: inout Parser, counts: Bool) -> Int32? {
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
    private static let standardTypes = table(
        structures: "aArray bBool DDictionary dDouble fFloat hSet IDefaultIndices iInt JCharacter NClosedRange nRange "
            + "OObjectIdentifier PUnsafePointer pUnsafeMutablePointer RUnsafeBufferPointer rUnsafeMutableBufferPointer "
            + "SString sSubstring uUInt VUnsafeRawPointer vUnsafeMutableRawPointer WUnsafeRawBufferPointer "
            + "wUnsafeMutableRawBufferPointer AAutoreleasingUnsafeMutablePointer qOptional",
        protocols: "BBinaryFloatingPoint EEncodable eDecodable FFloatingPoint GRandomNumberGenerator HHashable jNumeric "
            + "KBidirectionalCollection kRandomAccessCollection LComparable lCollection MMutableCollection "
            + "mRangeReplaceableCollection QEquatable TSequence tIteratorProtocol UUnsignedInteger XRangeExpression "
            + "xStrideable YRawRepresentable yStringProtocol ZSignedInteger zBinaryInteger")
    /// The second set, `Sc` followed by one letter (`ScT` Swift.Task).
    private static let concurrencyTypes = table(
        structures: "CCheckedContinuation cUnsafeContinuation ECancellationError eUnownedSerialExecutor GTaskGroup "
            + "gThrowingTaskGroup JUnownedJob PTaskPriority SAsyncStream sAsyncThrowingStream TTask tUnsafeCurrentTask "
            + "MMainActor",
        protocols: "AActor FExecutor fSerialExecutor IAsyncIteratorProtocol iAsyncSequence hTaskExecutor")
    private static let optionalType = standardTypes[Int(UInt8(ascii: "q"))]!

    private static func table(structures: String, protocols: String) -> [(name: [UInt8], kind: Kind)?] {
        var types = [(name: [UInt8], kind: Kind)?](repeating: nil, count: 128)
        for (words, kind) in [(structures, Kind.structure), (protocols, Kind.protocolType)] {
            for word in words.split(separator: " ") {
                // The kind only matters to the printer for classes, and none of these is one.
                types[Int(word.utf8.first!)] = (Array(word.utf8.dropFirst()), word == "qOptional" ? .enumeration : kind)
            }
        }
        return types
    }

    private mutating func standard(_ parser: inout Parser) -> Int32? {
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

    private mutating func standardType(_ type: (name: [UInt8], kind: Kind)) -> Int32 {
        let name = textNode(.identifier, type.name)
        return make(type.kind, swift(), name)
    }

    private mutating func functionEntity(_ parser: inout Parser) -> Int32? {
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

    private mutating func accessor(_ parser: inout Parser, storage: Int32) -> Int32? {
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

    private mutating func metadata(_ parser: inout Parser) -> Int32? {
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

    private mutating func typeGlobal(_ type: Int32) -> Int32 {
        checkUnbracketed(type)
        return make(.typeGlobal, value: Self.describedType, type)
    }

    private mutating func popConformance() -> Int32? {
        let signature = pop(.signature)
        _ = popModule()
        guard popProtocol() != nil, var type = popType() else { return nil }
        checkUnbracketed(type)
        if signature != nil { type = make(.dependentGeneric, type) }
        return make(.conformance, type)
    }

    private mutating func witness(_ parser: inout Parser) -> Int32? {
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

    private mutating func specialType(_ parser: inout Parser) -> Int32? {
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

    private mutating func yOperator(_ parser: inout Parser) -> Int32? {
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

    private mutating func thunkOrSpecialization(_ parser: inout Parser) -> Int32? {
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
    private func specializationInfo(_ parser: inout Parser) -> Bool {
        _ = parser.nextIf(UInt8(ascii: "m"))
        _ = parser.nextIf(UInt8(ascii: "q"))
        return Self.isDigit(parser.next())
    }

    /// What a function signature specialization's parameter takes from the stack: nothing, or a
    /// propagated closure's captured types and name.
    enum SignatureArguments { case none, typesAndName }

    /// One parameter of a function signature specialization.
    private func signatureParameter(_ parser: inout Parser) -> SignatureArguments? {
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

/// A run of bytes of the name being read.
struct ByteRun {
    var start: Int32
    var end: Int32
    var range: Range<Int> { Int(start)..<Int(end) }
}

/// A growable buffer of plain values that `MangledSwiftName` clears and refills for every name:
/// appending is a capacity check and a store. Arrays checked their uniqueness on every append,
/// and the reader appends a dozen times per operator (two thirds of its time went there).
final class ScratchBuffer<Element: BitwiseCopyable> {
    private(set) var base: UnsafeMutablePointer<Element>
    private var capacity: Int
    private(set) var count = 0

    init(capacity: Int) {
        self.capacity = capacity
        base = .allocate(capacity: capacity)
    }

    deinit { base.deallocate() }

    var isEmpty: Bool { count == 0 }
    var first: Element? { count > 0 ? base[0] : nil }
    var last: Element? { count > 0 ? base[count - 1] : nil }

    subscript(index: Int) -> Element {
        get {
            precondition(index >= 0 && index < count)
            return base[index]
        }
        set {
            precondition(index >= 0 && index < count)
            base[index] = newValue
        }
    }

    subscript(range: Range<Int>) -> UnsafeBufferPointer<Element> {
        precondition(range.lowerBound >= 0 && range.upperBound <= count)
        return UnsafeBufferPointer(start: base + range.lowerBound, count: range.count)
    }

    @inline(__always)
    func append(_ element: Element) {
        if count == capacity { grow(to: count + 1) }
        base[count] = element
        count += 1
    }

    func append(contentsOf elements: UnsafeBufferPointer<Element>) {
        guard let start = elements.baseAddress, !elements.isEmpty else { return }
        if count + elements.count > capacity { grow(to: count + elements.count) }
        (base + count).update(from: start, count: elements.count)
        count += elements.count
    }

    func append(contentsOf elements: some Sequence<Element>) {
        for element in elements { append(element) }
    }

    @discardableResult
    func removeLast() -> Element {
        precondition(count > 0)
        count -= 1
        return base[count]
    }

    func popLast() -> Element? { count > 0 ? removeLast() : nil }

    func removeAll() { count = 0 }

    /// Reverses the elements from `start` to the end in place.
    func reverse(from start: Int) {
        var elements = UnsafeMutableBufferPointer(start: base + start, count: count - start)
        elements.reverse()
    }

    private func grow(to needed: Int) {
        let newCapacity = max(needed, capacity * 2)
        let newBase = UnsafeMutablePointer<Element>.allocate(capacity: newCapacity)
        newBase.update(from: base, count: count)
        base.deallocate()
        base = newBase
        capacity = newCapacity
    }
}
