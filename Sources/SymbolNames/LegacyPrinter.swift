/// Prints legacy trees the way the toolchain's demangler prints names without sugar.
final class LegacyPrinter {
    /// Characters left to print; below zero, printing stops and the name counts as malformed.
    var budget = 100_000

    func print(_ node: LegacyNode) -> String {
        guard budget > 0 else { return "" }
        let text = printUncounted(node)
        budget -= text.utf8.count
        return text
    }

    func printUncounted(_ node: LegacyNode) -> String {
        switch node {
        case .module(let name): return name
        case .nominal(_, let context, let name): return qualified(context, name: text(of: name), type: nil)
        case .extensionContext(let module, let base, let signature):
            return "(extension in " + print(module) + "):" + print(base) + (signature ?? "")
        case .entity(let entity): return print(entity)
        case .text(let text): return text
        case .boundGeneric(let base, let arguments):
            return print(base) + "<" + arguments.map(print).joined(separator: ", ") + ">"
        case .function(let attributes, let throwing, let input, let result):
            return attributes + parameters(input) + (throwing ? " throws" : "") + " -> " + print(result)
        case .tuple(let elements, let variadic):
            return "(" + tupleElements(elements, variadic: variadic) + ")"
        case .composition(let protocols):
            return protocols.isEmpty ? "Any" : protocols.map(print).joined(separator: " & ")
        case .prefixed(let prefix, let inner): return prefix + print(inner)
        case .suffixed(let inner, let suffix): return print(inner) + suffix
        case .generic(let signature, let inner):
            if case .function = inner { return signature + print(inner) }
            return signature + " " + print(inner)
        }
    }

    func text(of name: LegacyName) -> String {
        switch name {
        case .plain(let name): return name
        case .local(let name, let number): return name + " #\(number)"
        case .private(let name, let discriminator): return "(" + name + " in " + discriminator + ")"
        }
    }

    func tupleElements(_ elements: [(label: String?, type: LegacyNode)], variadic: Bool) -> String {
        elements.enumerated().map { offset, element in
            (element.label.map { $0 + ": " } ?? "") + print(element.type)
                + (variadic && offset == elements.count - 1 ? "..." : "")
        }.joined(separator: ", ")
    }

    /// A function type's parameter list: a tuple prints as its elements, anything else in parentheses.
    func parameters(_ input: LegacyNode) -> String {
        if case .tuple(let elements, let variadic) = input {
            return "(" + tupleElements(elements, variadic: variadic) + ")"
        }
        return "(" + print(input) + ")"
    }

    /// Whether a context reads as a dotted prefix (`Module.Type.`): not when a function or a
    /// local type is in it, which print as `name in context`.
    func isSimple(_ context: LegacyNode) -> Bool {
        switch context {
        case .module: return true
        case .nominal(_, let inner, let name):
            if case .local = name { return false }
            return isSimple(inner)
        case .extensionContext(_, let base, _), .boundGeneric(let base, _): return isSimple(base)
        default: return false
        }
    }

    /// `Context.name` + type, or `name` + type + ` in ` + context.
    func qualified(_ context: LegacyNode, name: String, type: String?) -> String {
        if isSimple(context) { return print(context) + "." + name + (type ?? "") }
        return name + (type ?? "") + " in " + print(context)
    }

    /// A function type's signature after the name (`<A>(x: A) -> ()`), or ` : Type` for others.
    func signature(_ type: LegacyNode?, space: Bool) -> String {
        guard let type else { return "" }
        switch type {
        case .function(let attributes, let throwing, let input, let result) where attributes.isEmpty:
            return (space ? " " : "") + parameters(input) + (throwing ? " throws" : "") + " -> " + print(result)
        case .generic(let generics, let inner):
            if case .function(let attributes, let throwing, let input, let result) = inner, attributes.isEmpty {
                return generics + parameters(input) + (throwing ? " throws" : "") + " -> " + print(result)
            }
            return " : " + print(type)
        default:
            return " : " + print(type)
        }
    }

    func print(_ entity: LegacyEntity) -> String {
        let prefix = entity.isStatic ? "static " : ""
        let name = entity.name.map(text(of:)) ?? ""
        switch entity.kind {
        case .function, .subscript:
            var isLocal = false
            if case .local = entity.name { isLocal = true }
            return prefix + qualified(entity.context, name: name, type: signature(entity.type, space: isLocal))
        case .variable:
            return prefix + qualified(entity.context, name: name, type: entity.type.map { " : " + print($0) })
        case .accessor(let accessor):
            let type = entity.type.map { " : " + print($0) }
            return prefix + qualified(entity.context, name: name + "." + accessor, type: type)
        case .special(let special):
            return prefix + qualified(entity.context, name: special, type: signature(entity.type, space: false))
        case .closure(let number, let implicit):
            let words = (implicit ? "implicit closure #" : "closure #") + String(number + 1)
            return prefix + words + signature(entity.type, space: true) + " in " + print(entity.context)
        case .defaultArgument(let number):
            return "default argument \(number) of " + print(entity.context)
        case .initializer:
            return "variable initialization expression of " + print(entity.context)
        }
    }
}
