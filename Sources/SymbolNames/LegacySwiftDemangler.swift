import Foundation

/// Swift 1–3 mangled names (`_TFC10Foundation15NSSimpleCStringD`): Swift 3-era dSYMs still carry
/// them, and the runtime's `swift_demangle` no longer reads them. This parses the old grammar
/// (`_T` + global) into a small tree and prints it the way the toolchain's demangler prints names
/// without sugar, so the simplification reads both the same way. A name only counts when the whole
/// of it parses: a C symbol that happens to start with `_T` stays as it was.
struct LegacySwiftDemangler {
    typealias Node = LegacyNode

    let text: [UInt8]
    var position: Int
    var substitutions: [Node] = []
    var nesting = 0
    /// Set when a name would print too long: substitutions can repeat a subtree at every level,
    /// so a short hostile name could otherwise print exponentially long.
    var tooLong = false

    init(_ text: [UInt8], position: Int) {
        self.text = text
        self.position = position
    }

    /// `_T` or `__T` (Mach-O symbol tables) followed by something other than `0` (Swift 4's `_T0`
    /// is the runtime's). Reads four bytes at most: it runs for every symbol.
    static func hasLegacyPrefix<Bytes: Sequence<UInt8>>(_ bytes: Bytes) -> Bool {
        var iterator = bytes.makeIterator()
        let (underscore, T, zero) = (UInt8(ascii: "_"), UInt8(ascii: "T"), UInt8(ascii: "0"))
        guard iterator.next() == underscore else { return false }
        var second = iterator.next()
        if second == underscore { second = iterator.next() }  // `__T`
        guard second == T, let third = iterator.next() else { return false }
        return third != zero
    }

    /// The demangled name, or `nil` when `name` is not a whole legacy Swift name.
    static func demangle(_ name: String) -> String? {
        demangle(Array(name.utf8))
    }

    static func demangle(_ bytes: [UInt8]) -> String? {
        guard hasLegacyPrefix(bytes) else { return nil }
        let start = bytes[1] == UInt8(ascii: "_") ? 3 : 2
        var parser = LegacySwiftDemangler(bytes, position: start)
        guard var result = parser.global(), !parser.tooLong else { return nil }
        if parser.position < bytes.count {
            // `.cold.1`, `.llvm.1234`: a suffix the compiler or linker appended.
            guard bytes[parser.position] == UInt8(ascii: ".") else { return nil }
            result += " with unmangled suffix \"" + String(decoding: bytes[parser.position...], as: UTF8.self) + "\""
        }
        return result
    }

    // MARK: Reading

    var atEnd: Bool { position >= text.count }
    var peek: UInt8 { position < text.count ? text[position] : 0 }

    /// Consumes `expected` when the text continues with it.
    mutating func next(_ expected: String) -> Bool {
        var index = position
        for byte in expected.utf8 {
            guard index < text.count, text[index] == byte else { return false }
            index += 1
        }
        position = index
        return true
    }

    static func isDigit(_ byte: UInt8) -> Bool { byte >= UInt8(ascii: "0") && byte <= UInt8(ascii: "9") }

    /// `[0-9]+`, bounded so hostile input cannot overflow.
    mutating func natural() -> Int? {
        guard Self.isDigit(peek) else { return nil }
        var value = 0
        while Self.isDigit(peek) {
            value = value * 10 + Int(peek - UInt8(ascii: "0"))
            guard value < 1 << 24 else { return nil }
            position += 1
        }
        return value
    }

    /// `_` is 0, `N_` is N + 1.
    mutating func index() -> Int? {
        if next("_") { return 0 }
        guard let value = natural(), next("_") else { return nil }
        return value + 1
    }

    // MARK: Globals

    mutating func global() -> String? {
        nesting += 1
        defer { nesting -= 1 }
        guard nesting < 64 else { return nil }
        if next("PA") {
            let objc = next("o")
            guard next("__T"), let inner = global() else { return nil }
            return (objc ? "partial apply ObjC forwarder for " : "partial apply forwarder for ") + inner
        }
        if next("M") { return metadata() }
        if next("w") {
            guard let kind = valueWitnessKind(), let type = type() else { return nil }
            return kind + " value witness for " + print(type)
        }
        if next("W") { return witnessTable() }
        if next("T") {
            if next("S") { return specialization() }
            if next("o") { return global().map { "@objc " + $0 } }
            if next("O") { return global().map { "@nonobjc " + $0 } }
            if next("D") { return global().map { "dynamic " + $0 } }
            if next("R") { return reabstractionThunk(helper: true) }
            if next("r") { return reabstractionThunk(helper: false) }
            if next("W") {
                guard let conformance = conformance(), let entity = entity() else { return nil }
                return "protocol witness for " + print(entity) + " in conformance " + conformance
            }
            return nil
        }
        if next("t") { return type().map { print($0) } }
        guard let entity = entity() else { return nil }
        return print(entity)
    }

    mutating func metadata() -> String? {
        let prefixes: [(String, String)] = [
            ("a", "type metadata accessor for "), ("L", "lazy cache variable for type metadata for "),
            ("f", "full type metadata for "), ("m", "metaclass for "), ("P", "generic type metadata pattern for "),
            ("n", "nominal type descriptor for "),
        ]
        if next("p") { return protocolName().map { "protocol descriptor for " + print($0) } }
        for (code, words) in prefixes where next(code) { return type().map { words + print($0) } }
        return type().map { "type metadata for " + print($0) }
    }

    mutating func valueWitnessKind() -> String? {
        let kinds: [String: String] = [
            "al": "allocateBuffer", "ca": "assignWithCopy", "ta": "assignWithTake", "de": "deallocateBuffer",
            "xx": "destroy", "XX": "destroyBuffer", "Xx": "destroyArray", "CP": "initializeBufferWithCopyOfBuffer",
            "Cp": "initializeBufferWithCopy", "cp": "initializeWithCopy", "TK": "initializeBufferWithTakeOfBuffer",
            "Tk": "initializeBufferWithTake", "tk": "initializeWithTake", "pr": "projectBuffer",
            "Cc": "initializeArrayWithCopy", "Tt": "initializeArrayWithTakeFrontToBack",
            "tT": "initializeArrayWithTakeBackToFront", "xs": "storeExtraInhabitant", "xg": "getExtraInhabitantIndex",
            "ug": "getEnumTag", "up": "destructiveProjectEnumData", "ui": "destructiveInjectEnumTag",
        ]
        guard position + 2 <= text.count else { return nil }
        let code = String(decoding: text[position..<(position + 2)], as: UTF8.self)
        guard let kind = kinds[code] else { return nil }
        position += 2
        return kind
    }

    mutating func witnessTable() -> String? {
        if next("V") { return type().map { "value witness table for " + print($0) } }
        if next("o") { return entity().map { "witness table offset for " + print($0) } }
        if next("v") {
            let words: String
            if next("d") {
                words = "direct field offset for "
            } else if next("i") {
                words = "indirect field offset for "
            } else {
                return nil
            }
            return entity().map { words + print($0) }
        }
        let conformancePrefixes: [(String, String)] = [
            ("P", "protocol witness table for "), ("a", "protocol witness table accessor for "),
            ("G", "generic protocol witness table for "),
            ("I", "instantiation function for generic protocol witness table for "),
        ]
        for (code, words) in conformancePrefixes where next(code) { return conformance().map { words + $0 } }
        if next("l") || next("L") {
            let words =
                text[position - 1] == UInt8(ascii: "l")
                ? "lazy protocol witness table accessor for type "
                : "lazy protocol witness table cache variable for type "
            guard let type = type(), let conformance = conformance() else { return nil }
            return words + print(type) + " and conformance " + conformance
        }
        if next("t") {
            guard let conformance = conformance(), let name = identifier() else { return nil }
            return "associated type metadata accessor for " + name + " in " + conformance
        }
        if next("T") {
            guard let conformance = conformance(), let name = identifier(), let proto = protocolName() else {
                return nil
            }
            return "associated type witness table accessor for " + name + " : " + print(proto) + " in " + conformance
        }
        return nil
    }

    /// `T : P in M`, optionally under a generic signature (`<A> Foo<A> : P in M`).
    mutating func conformance() -> String? {
        var signature = ""
        if next("u") {
            guard let parsed = genericSignature() else { return nil }
            signature = parsed + " "
        }
        guard let type = type(), let proto = protocolName(), let module = module() else { return nil }
        return signature + print(type) + " : " + print(proto) + " in " + print(module)
    }

    // MARK: Printing

    mutating func print(_ node: Node) -> String {
        let printer = LegacyPrinter()
        let text = printer.print(node)
        if printer.budget < 0 { tooLong = true }
        return text
    }
}
