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

    let nodes = ScratchBuffer<Node>(capacity: 256)
    let children = ScratchBuffer<Int32>(capacity: 512)
    let text = ScratchBuffer<UInt8>(capacity: 1024)
    let stack = ScratchBuffer<Int32>(capacity: 64)
    /// The simplification's buffers (`MangledSwiftName+Simplified.swift`).
    let path = ScratchBuffer<Component>(capacity: 32)
    let inner = ScratchBuffer<Component>(capacity: 16)
    let output = ScratchBuffer<UInt8>(capacity: 256)
    let substitutions = ScratchBuffer<Int32>(capacity: 64)
    let words = ScratchBuffer<ByteRun>(capacity: 26)
    /// The literal runs of identifiers so far, and how many of them `words` has read.
    let literalRuns = ScratchBuffer<ByteRun>(capacity: 64)
    var wordRunsRead = 0
    var bytes = UnsafeBufferPointer<UInt8>(start: nil, count: 0)
    var swiftModule: Int32 = -1
    /// Set when a local type (`Visitor #1 in f`) is used as a type where it prints outside any
    /// bracket (a result type, a property's type, the type of a witness table): the runtime prints
    /// its context after it, and the text simplification reads those words its own way.
    var localTypeUsedAsType = false
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
    mutating func readSimplified(_ bytes: UnsafeBufferPointer<UInt8>) -> Bool {
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

    @inline(__always)
    static func isDigit(_ byte: UInt8) -> Bool { byte >= UInt8(ascii: "0") && byte <= UInt8(ascii: "9") }

    @inline(__always)
    static func isLower(_ byte: UInt8) -> Bool { byte >= UInt8(ascii: "a") && byte <= UInt8(ascii: "z") }

    @inline(__always)
    static func isUpper(_ byte: UInt8) -> Bool { byte >= UInt8(ascii: "A") && byte <= UInt8(ascii: "Z") }

    mutating func make(_ kind: Kind, value: Int32 = 0) -> Int32 {
        nodes.append(Node(kind: kind, value: value, firstChild: Int32(children.count), childCount: 0))
        return Int32(nodes.count - 1)
    }

    mutating func make(_ kind: Kind, value: Int32 = 0, _ only: Int32) -> Int32 {
        nodes.append(Node(kind: kind, value: value, firstChild: Int32(children.count), childCount: 1))
        children.append(only)
        return Int32(nodes.count - 1)
    }

    mutating func make(_ kind: Kind, value: Int32 = 0, _ first: Int32, _ second: Int32) -> Int32 {
        nodes.append(Node(kind: kind, value: value, firstChild: Int32(children.count), childCount: 2))
        children.append(first)
        children.append(second)
        return Int32(nodes.count - 1)
    }

    func nodeKind(_ node: Int32) -> Kind { nodes[Int(node)].kind }

    func nodeValue(_ node: Int32) -> Int32 { nodes[Int(node)].value }

    func kind(_ node: Int32) -> Kind { nodes[Int(node)].kind }

    /// Where a node's text starts: in `text`, or in the name being read.
    func textBase(_ item: Node) -> UnsafePointer<UInt8> {
        item.textInName ? bytes.baseAddress! + Int(item.textStart) : UnsafePointer(text.base + Int(item.textStart))
    }

    func textBytes(_ item: Node) -> UnsafeBufferPointer<UInt8> {
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

    mutating func textNode(_ kind: Kind, _ bytes: some Collection<UInt8>) -> Int32 {
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

    static func isType(_ kind: Kind) -> Bool {
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

    static func isDeclName(_ kind: Kind) -> Bool {
        kind == .identifier || kind == .privateName || kind == .localName || kind == .operatorName
    }

    mutating func pop() -> Int32? { stack.popLast() }

    mutating func pop(_ kind: Kind) -> Int32? {
        guard let top = stack.last, self.kind(top) == kind else { return nil }
        return stack.removeLast()
    }

    mutating func pop(where test: (Kind) -> Bool) -> Int32? {
        guard let top = stack.last, test(kind(top)) else { return nil }
        return stack.removeLast()
    }

    mutating func popType() -> Int32? { pop(where: Self.isType) }

    /// Notes whether `type`, printed outside brackets, prints a local type's context: the local
    /// type itself, or one it leads (`Local.Type`, a function type's result).
    mutating func checkUnbracketed(_ type: Int32) {
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

    func isLocalNominal(_ node: Int32) -> Bool {
        var current = node
        while Self.isNominalKind(kind(current)) {
            if kind(child(current, 1)) == .localName { return true }
            current = child(current, 0)
        }
        return current != node && !(kind(current) == .module || kind(current) == .extensionContext)
    }

    mutating func popModule() -> Int32? {
        if let identifier = pop(.identifier) {
            // A copy: the substitution table keeps the identifier, which may be used as a name later.
            var module = nodes[Int(identifier)]
            module.kind = .module
            nodes.append(module)
            return Int32(nodes.count - 1)
        }
        return pop(.module)
    }

    mutating func popContext() -> Int32? {
        if let module = popModule() { return module }
        return pop(where: Self.isContext)
    }

    mutating func popProtocol() -> Int32? {
        if let top = stack.last, Self.isType(kind(top)) {
            guard kind(top) == .protocolType else { return nil }
            return stack.removeLast()
        }
        guard let name = pop(where: Self.isDeclName), let context = popContext() else { return nil }
        return make(.protocolType, context, name)
    }

    mutating func swift() -> Int32 {
        if swiftModule < 0 { swiftModule = textNode(.module, "Swift".utf8) }
        return swiftModule
    }
}
