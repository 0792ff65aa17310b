// From the nodes of a mangled Swift name to its simplified `Type.member` form: the same answer
// the text simplification (`SwiftNameSimplifier.swift`) gives on the runtime's demangled text,
// reached without printing that text. Each rule below names the printed form it stands for.
// Paths are gathered as components (a node whose text is the component, or a fixed word) in
// buffers kept between names, and the answer's bytes are made once.

extension MangledSwiftName {
    /// A path component: a node whose text it is (with `dropsDollar` set, without its leading
    /// `$`), or one of the fixed words below.
    typealias Component = Int32

    static let dropsDollar: Component = 1 << 30
    static let subscriptWord: Component = -1
    static let initWord: Component = -2
    static let deinitWord: Component = -3
    /// An accessor's name: accessors fold into their property, so which one it was never shows
    /// (the init accessor's `init` does not fold, and is `initWord`).
    static let accessorWord: Component = -4
    static let ivarDestroyerWord: Component = -5
    static let ivarInitializerWord: Component = -6

    private static let fixedWords: [[UInt8]] = [
        [], Array("subscript".utf8), Array("init".utf8), Array("deinit".utf8), Array("getter".utf8),
        Array("__ivar_destroyer".utf8), Array("__ivar_initializer".utf8),
    ]
    private static let accessorNames: [[UInt8]] = SwiftNames.accessors.filter { $0 != "init" }.map { Array($0.utf8) }

    /// Writes the simplified name of the global on the stack to `output`; false when this reader
    /// does not read it.
    mutating func simplifiedGlobal() -> Bool {
        // The symbol's attributes print first, the last one in the mangling leading:
        // `partial apply forwarder for merged generic specialization <...> of X`.
        var position = 0
        var inlined = false
        while let top = stack.last, nodeKind(top) == .attribute {
            switch AttributeKind(rawValue: nodeValue(top)) {
            case .plain:
                break
            case .asyncPiece:
                // `(1) await resume partial function for` is recognised at the start only; after
                // other words it reads as a bracketed type.
                if position > 0 { return false }
            case .inlined:
                inlined = true
            case nil:
                return false
            }
            if inlined { break }
            position += 1
            stack.removeLast()
        }
        if inlined {
            while let top = stack.last, nodeKind(top) == .attribute { stack.removeLast() }
        }
        guard stack.count == 1, let root = stack.first else { return false }
        output.removeAll()
        if inlined {
            // `inlined generic function <...> of X` has no word the simplification peels: it
            // reads the first word, unless X brings ` in ` contexts of its own.
            var entity = root
            while nodeKind(entity) == .staticEntity { entity = child(entity, 0) }
            path.removeAll()
            guard Self.isContext(nodeKind(entity)), appendPrefixPath(of: entity) else { return false }
            output.removeAll()
            output.append(contentsOf: "inlined".utf8)
            return true
        }
        let found: Bool
        switch nodeKind(root) {
        case .witness:
            found = appendWitnessName(root)
        case .typeGlobal:
            found = appendTypeName(child(root, 0), unwrappingOptionals: true)
        case .lazyWitnessGlobal:
            found = appendTypeName(child(root, 0), unwrappingOptionals: false)
        case .conformanceGlobal:
            found = appendConformingTypeName(child(root, 0))
        case .entityGlobal:
            found = appendChainName(child(root, 0))
        case .reabstractionThunk:
            output.append(contentsOf: SwiftNames.reabstractionThunkName.utf8)
            found = true
        case .initializationGlobal:
            // `one-time initialization function for x`: the variable's name alone.
            let name = child(root, 0)
            guard let component = declarationName(name) else { return false }
            appendComponent(component)
            found = true
        default:
            found = Self.isContext(nodeKind(root)) && appendChainName(root)
        }
        return found && !output.isEmpty
    }

    /// `protocol witness for P.member in conformance T : P in M` → `T.member`.
    private mutating func appendWitnessName(_ witness: Int32) -> Bool {
        var requirement = child(witness, 1)
        while nodeKind(requirement) == .staticEntity { requirement = child(requirement, 0) }
        path.removeAll()
        guard appendPrefixPath(of: requirement) else { return false }
        let range = finishedRange(hasModule: true)
        guard range.count >= 2 else { return false }
        let member = path[range.upperBound - 1]
        guard appendConformingTypeName(child(witness, 0)) else { return false }
        output.append(UInt8(ascii: "."))
        appendComponent(member)
        return true
    }

    /// The type of a conformance `T : P in M` (its generic signature, `<A where ...>`, skipped).
    private mutating func appendConformingTypeName(_ conformance: Int32) -> Bool {
        var type = child(conformance, 0)
        if nodeKind(type) == .dependentGeneric { type = child(type, 0) }
        return appendTypeName(type, unwrappingOptionals: false)
    }

    /// A nominal type's path without its module; generic arguments are not part of it. After
    /// descriptive words (`outlined copy of Swift.Optional<Foo.Bar>`) an optional is unwrapped.
    private mutating func appendTypeName(_ type: Int32, unwrappingOptionals: Bool) -> Bool {
        var type = type
        while unwrappingOptionals, nodeKind(type) == .boundGeneric, childCount(type) == 1,
            isSwiftOptional(nodeValue(type))
        {
            type = child(type, 0)
        }
        if nodeKind(type) == .boundGeneric { type = nodeValue(type) }
        // `any P` prints as `Module.P`.
        if nodeKind(type) == .existential, childCount(type) == 1 { type = child(type, 0) }
        path.removeAll()
        guard Self.isNominalKind(nodeKind(type)), appendPrefixPath(of: type) else { return false }
        return appendPath(finishedRange(hasModule: true))
    }

    private func isSwiftOptional(_ nominal: Int32) -> Bool {
        guard nodeKind(nominal) == .enumeration, nodeKind(child(nominal, 1)) == .identifier,
            nodeKind(child(nominal, 0)) == .module
        else { return false }
        return textEquals(child(nominal, 1), "Optional") && textEquals(child(nominal, 0), "Swift")
    }

    /// `closure #1 in lookup #2 in Foo.bar` → `closure in Foo.bar.lookup`: closures collapse into a
    /// leading `closure in`, local declarations join the outermost path as its members.
    private mutating func appendChainName(_ entity: Int32) -> Bool {
        var closure = false
        inner.removeAll()  // innermost first
        var current = entity
        while true {
            let kind = nodeKind(current)
            if kind == .staticEntity {
                current = child(current, 0)
                continue
            }
            if kind == .explicitClosure || kind == .implicitClosure {
                if inner.isEmpty { closure = true }
                current = child(current, 0)
                continue
            }
            if let (name, context) = localDeclaration(current) {
                inner.append(name)
                current = context
                continue
            }
            path.removeAll()
            if kind == .defaultArgument || kind == .variableInitializer || kind == .wrapperInitializer {
                // `default argument 0 of Foo.bar`: the words are peeled and the path read, which
                // holds only when nothing below prints ` in ` contexts of its own.
                var described = child(current, 0)
                while nodeKind(described) == .staticEntity { described = child(described, 0) }
                guard appendPrefixPath(of: described) else { return false }
                return appendChain(closure: closure)
            }
            if appendPrefixPath(of: current) { return appendChain(closure: closure) }
            // A member of a local type, printed `member(...) in Visitor #1 in f`.
            path.removeAll()
            guard let context = contextOf(current), isPrintedAfter(context), appendOwnComponents(current) else {
                return false
            }
            let own = finishedRange(hasModule: false)
            for index in own.reversed() { inner.append(path[index]) }
            current = context
        }
    }

    /// `closure in ` if `closure`, the outermost path (in `path`), then the inner names.
    private mutating func appendChain(closure: Bool) -> Bool {
        if closure { output.append(contentsOf: "closure in ".utf8) }
        guard appendPath(finishedRange(hasModule: true)) else { return false }
        for index in stride(from: inner.count - 1, through: 0, by: -1) {
            output.append(UInt8(ascii: "."))
            appendComponent(inner[index])
        }
        return true
    }

    /// A local declaration (`lookup #1`, `Visitor #1`): its name (without a leading `$`, as in
    /// `$defer`) and its context. A local variable's accessor is not read: the text
    /// simplification reads its printed form as a member named `getter`.
    private func localDeclaration(_ declaration: Int32) -> (Component, Int32)? {
        switch nodeKind(declaration) {
        case .function, .variable, .structure, .classType, .enumeration, .protocolType, .typeAlias:
            let name = child(declaration, 1)
            guard nodeKind(name) == .localName else { return nil }
            let identifier = child(name, 0)
            guard nodeKind(identifier) == .identifier else { return nil }
            return (startsWithDollar(identifier) ? identifier | Self.dropsDollar : identifier, child(declaration, 0))
        default:
            return nil
        }
    }

    private func contextOf(_ node: Int32) -> Int32? {
        switch nodeKind(node) {
        case .accessor: return contextOf(child(node, 0))
        case .staticEntity: return contextOf(child(node, 0))
        case .function, .variable, .subscriptEntity, .constructor, .allocator, .destructor, .deallocator, .ivarDestroyer,
            .ivarInitializer, .structure, .classType, .enumeration, .protocolType, .typeAlias:
            return child(node, 0)
        default: return nil
        }
    }

    /// Whether `context`, as the context of a declaration, prints after it (`x in f`) rather than
    /// before it (`Foo.x`): it has a type to print, or a name of several words.
    private func isPrintedAfter(_ context: Int32) -> Bool {
        switch nodeKind(context) {
        case .function, .variable, .subscriptEntity, .constructor, .allocator, .accessor, .explicitClosure,
            .implicitClosure, .defaultArgument, .variableInitializer, .wrapperInitializer:
            return true
        case .staticEntity:
            return isPrintedAfter(child(context, 0))
        case .structure, .classType, .enumeration, .protocolType, .typeAlias:
            return nodeKind(child(context, 1)) == .localName
        default:
            return false
        }
    }

    /// Appends to `path` the path of a declaration printed with its contexts before it, module
    /// first (`Module.Type.member`); `false` when some context prints after it instead.
    mutating func appendPrefixPath(of node: Int32) -> Bool {
        switch nodeKind(node) {
        case .module:
            path.append(node)
            return true
        case .extensionContext:
            // `(extension in M):Swift.Array.member`: the extended type's path.
            return appendPrefixPath(of: child(node, 0))
        case .structure, .classType, .enumeration, .protocolType, .typeAlias, .function, .variable:
            guard let name = declarationName(child(node, 1)), appendContextPath(child(node, 0)) else { return false }
            path.append(name)
            return true
        case .subscriptEntity, .constructor, .allocator, .destructor, .deallocator, .ivarDestroyer, .ivarInitializer:
            return appendContextPath(child(node, 0)) && appendOwnComponents(node)
        case .accessor:
            let storage = child(node, 0)
            guard nodeKind(storage) == .variable || nodeKind(storage) == .subscriptEntity, appendPrefixPath(of: storage)
            else { return false }
            path.append(nodeValue(node) == 1 ? Self.initWord : Self.accessorWord)
            return true
        default:
            return false
        }
    }

    /// The path of a context that prints before its member.
    private mutating func appendContextPath(_ context: Int32) -> Bool {
        switch nodeKind(context) {
        case .module, .extensionContext, .structure, .classType, .enumeration, .protocolType, .typeAlias:
            return appendPrefixPath(of: context)
        default:
            return false
        }
    }

    /// A declaration's own components printed without its context (`member`, `x.getter`).
    private mutating func appendOwnComponents(_ node: Int32) -> Bool {
        switch nodeKind(node) {
        case .staticEntity:
            return appendOwnComponents(child(node, 0))
        case .structure, .classType, .enumeration, .protocolType, .typeAlias, .function, .variable:
            guard let name = declarationName(child(node, 1)) else { return false }
            path.append(name)
        case .subscriptEntity: path.append(Self.subscriptWord)
        case .constructor, .allocator: path.append(Self.initWord)
        case .destructor, .deallocator: path.append(Self.deinitWord)
        case .ivarDestroyer: path.append(Self.ivarDestroyerWord)
        case .ivarInitializer: path.append(Self.ivarInitializerWord)
        case .accessor:
            guard appendOwnComponents(child(node, 0)) else { return false }
            path.append(nodeValue(node) == 1 ? Self.initWord : Self.accessorWord)
        default:
            return false
        }
        return true
    }

    /// An identifier, or the name of a private declaration (`(name in _0123ABCD)` prints the name).
    private func declarationName(_ name: Int32) -> Component? {
        switch nodeKind(name) {
        case .identifier, .operatorName: return name
        case .privateName:
            let inner = child(name, 0)
            return nodeKind(inner) == .identifier ? inner : nil
        default: return nil
        }
    }

    /// The text simplification's last steps on the path in `path`: accessors fold into their
    /// property, `__allocating_init` and `__deallocating_deinit` read as `init` and `deinit`
    /// (produced as such already), and the module goes when something follows it.
    private func finishedRange(hasModule: Bool) -> Range<Int> {
        var range = 0..<path.count
        if range.count >= (hasModule ? 3 : 2), isFoldedAccessor(path[range.upperBound - 1]) {
            range = range.lowerBound..<(range.upperBound - 1)
        }
        if hasModule, range.count >= 2 { range = (range.lowerBound + 1)..<range.upperBound }
        return range
    }

    private func isFoldedAccessor(_ component: Component) -> Bool {
        if component == Self.accessorWord { return true }
        guard component >= 0 else { return false }
        return Self.accessorNames.contains { textEquals(component & ~Self.dropsDollar, $0) }
    }

    private mutating func appendPath(_ range: Range<Int>) -> Bool {
        guard !range.isEmpty else { return false }
        for index in range {
            if index > range.lowerBound { output.append(UInt8(ascii: ".")) }
            appendComponent(path[index])
        }
        return true
    }

    private mutating func appendComponent(_ component: Component) {
        if component < 0 {
            Self.fixedWords[Int(-component)].withUnsafeBufferPointer { output.append(contentsOf: $0) }
        } else if component & Self.dropsDollar != 0 {
            appendText(of: component & ~Self.dropsDollar, droppingFirst: 1)
        } else {
            appendText(of: component, droppingFirst: 0)
        }
    }
}
