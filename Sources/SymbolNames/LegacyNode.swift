/// The tree a legacy (`_T`) name parses into; `LegacyPrinter` prints it.
struct LegacyEntity {
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

enum LegacyName {
    case plain(String)
    case local(String, Int)
    case `private`(String, discriminator: String)
}

indirect enum LegacyNode {
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
