// The legacy (`_T`) grammar: identifiers (Punycode included) and generic signatures.

extension LegacySwiftDemangler {
    // MARK: Names

    mutating func declName() -> LegacyName? {
        if next("L") {
            guard let number = index(), let name = identifier() else { return nil }
            return .local(name, number + 1)
        }
        if next("P") {
            guard let discriminator = identifier(), let name = identifier() else { return nil }
            return .private(name, discriminator: discriminator)
        }
        return identifier().map { .plain($0) }
    }

    /// `3foo`, an operator `oi1p` (`+ infix`), or a punycode `X...` name.
    mutating func identifier() -> String? {
        if next("o") {
            let fixity: String
            if next("p") {
                fixity = " prefix"
            } else if next("P") {
                fixity = " postfix"
            } else if next("i") {
                fixity = " infix"
            } else {
                return nil
            }
            guard let length = natural(), length > 0, position + length <= text.count else { return nil }
            var name = ""
            for byte in text[position..<(position + length)] {
                guard let character = Self.operatorCharacters[byte] else { return nil }
                name.append(character)
            }
            position += length
            return name + fixity
        }
        if next("X") {
            guard !next("o") else { return nil }  // punycode operators: not met in practice
            guard let length = natural(), length > 0, position + length <= text.count else { return nil }
            let encoded = Array(text[position..<(position + length)])
            position += length
            return Self.punycodeDecode(encoded)
        }
        guard let length = natural(), length > 0, position + length <= text.count else { return nil }
        let name = String(decoding: text[position..<(position + length)], as: UTF8.self)
        position += length
        return name
    }

    static let operatorCharacters: [UInt8: Character] = [
        UInt8(ascii: "a"): "&", UInt8(ascii: "c"): "@", UInt8(ascii: "d"): "/", UInt8(ascii: "e"): "=",
        UInt8(ascii: "g"): ">", UInt8(ascii: "l"): "<", UInt8(ascii: "m"): "*", UInt8(ascii: "n"): "!",
        UInt8(ascii: "o"): "|", UInt8(ascii: "p"): "+", UInt8(ascii: "q"): "?", UInt8(ascii: "r"): "%",
        UInt8(ascii: "s"): "-", UInt8(ascii: "t"): "~", UInt8(ascii: "x"): "^", UInt8(ascii: "z"): ".",
    ]

    /// Swift's punycode (RFC 3492 with `_` as the delimiter and digits `a`–`z`, `A`–`J`).
    static func punycodeDecode(_ input: [UInt8]) -> String? {
        var output: [Unicode.Scalar] = []
        var rest = input[...]
        if let delimiter = input.lastIndex(of: UInt8(ascii: "_")) {
            for byte in input[..<delimiter] { output.append(Unicode.Scalar(byte)) }
            rest = input[(delimiter + 1)...]
        }
        var codePoint = 128
        var bias = 72
        var index = 0
        var iterator = rest.makeIterator()
        var pending = iterator.next()
        while pending != nil {
            let oldIndex = index
            var weight = 1
            var k = 36
            while true {
                guard let byte = pending else { return nil }
                pending = iterator.next()
                let digit: Int
                switch byte {
                case UInt8(ascii: "a")...UInt8(ascii: "z"): digit = Int(byte - UInt8(ascii: "a"))
                case UInt8(ascii: "A")...UInt8(ascii: "J"): digit = Int(byte - UInt8(ascii: "A")) + 26
                default: return nil
                }
                index += digit * weight
                guard index < 1 << 28 else { return nil }
                let threshold = k <= bias ? 1 : (k >= bias + 26 ? 26 : k - bias)
                if digit < threshold { break }
                weight *= 36 - threshold
                k += 36
            }
            var delta = oldIndex == 0 ? (index - oldIndex) / 700 : (index - oldIndex) / 2
            delta += delta / (output.count + 1)
            var adaptK = 0
            while delta > 455 {
                delta /= 35
                adaptK += 36
            }
            bias = adaptK + 36 * delta / (delta + 38)
            codePoint += index / (output.count + 1)
            index %= output.count + 1
            guard let scalar = Unicode.Scalar(UInt32(codePoint)) else { return nil }
            output.insert(scalar, at: index)
            index += 1
        }
        var result = ""
        result.unicodeScalars.append(contentsOf: output)
        return result
    }

    // MARK: Generics

    /// `x`, `N_` (index N + 1 at depth 0), `dM_N_` (depth M + 1).
    mutating func genericParameterIndex() -> (Int, Int)? {
        if next("x") { return (0, 0) }
        if next("d") {
            guard let depth = index(), let index = index() else { return nil }
            return (depth + 1, index)
        }
        return index().map { (0, $0 + 1) }
    }

    /// `A`, `B`, ... `Z`, `AB`, `BB`...; a deeper parameter adds its depth: `A1`.
    static func genericParameterName(depth: Int, index: Int) -> String {
        var name = ""
        var rest = index
        repeat {
            name.append(Character(Unicode.Scalar(UInt8(ascii: "A") + UInt8(rest % 26))))
            rest /= 26
        } while rest > 0
        return depth > 0 ? name + String(depth) : name
    }

    /// `5Mince`, `P` + protocol + name (`A.Swift.Runcible.Mince`), or a substitution of one.
    mutating func associatedTypeName() -> String? {
        if peek == UInt8(ascii: "S") { return substitution().map { print($0) } }
        let name: String
        if next("P") {
            guard let proto = protocolName(), let member = identifier() else { return nil }
            name = print(proto) + "." + member
        } else {
            guard let member = identifier() else { return nil }
            name = member
        }
        substitutions.append(.text(name))
        return name
    }

    /// `(count)* ('R' requirement*)? 'r'` → `<A, B where A: P>`, one bracket per depth.
    mutating func genericSignature() -> String? {
        var counts: [Int] = []
        while peek != UInt8(ascii: "R") && peek != UInt8(ascii: "r") {
            guard !atEnd else { return nil }
            if next("z") {
                counts.append(0)
            } else {
                guard let count = index(), count < 1000 else { return nil }
                counts.append(count + 1)
            }
        }
        if counts.isEmpty { counts = [1] }
        var requirements: [String] = []
        if next("R") {
            while !next("r") {
                guard !atEnd, let requirement = requirement() else { return nil }
                requirements.append(requirement)
            }
        } else {
            guard next("r") else { return nil }
        }
        var text = ""
        for (depth, count) in counts.enumerated() {
            text += "<" + (0..<count).map { Self.genericParameterName(depth: depth, index: $0) }.joined(separator: ", ")
            if depth == counts.count - 1, !requirements.isEmpty {
                text += (count > 0 ? " where " : "where ") + requirements.joined(separator: ", ")
            }
            text += ">"
        }
        return text
    }

    mutating func requirement() -> String? {
        let subject: String
        if next("w") {
            guard let (depth, index) = genericParameterIndex(), let member = associatedTypeName() else { return nil }
            subject = Self.genericParameterName(depth: depth, index: index) + "." + member
        } else if next("W") {
            guard let (depth, index) = genericParameterIndex() else { return nil }
            var path = Self.genericParameterName(depth: depth, index: index)
            while !next("_") {
                guard !atEnd, let member = associatedTypeName() else { return nil }
                path += "." + member
            }
            subject = path
        } else {
            guard let (depth, index) = genericParameterIndex() else { return nil }
            subject = Self.genericParameterName(depth: depth, index: index)
        }
        if next("z") {
            guard let type = type() else { return nil }
            return subject + " == " + print(type)
        }
        if peek == UInt8(ascii: "C") {
            guard let type = type() else { return nil }
            return subject + ": " + print(type)
        }
        guard let proto = protocolName() else { return nil }
        return subject + ": " + print(proto)
    }
}
