import Foundation

// Itanium C++ names read straight to the simplified `Type.member` form, for the common shapes:
// the runtime's `__cxa_demangle` and the text simplification after it (`CxxNames.swift`) cost
// some 19,000 instructions a name, a tenth of an index build of a toolchain binary that links C++.
//
// Read: `_Z` then a nested name (`N` [qualifiers] components `E`) or an unscoped one (a name,
// `St` name, `L` name), components being identifiers, constructors and destructors, each maybe
// with template arguments. The arguments are passed over (the simplification drops them) by a
// reader of a subset of the type grammar; the parameter list is not read, only checked to be
// mangling characters. Anything else (operators, substitutions in the name, local names, lambdas,
// ABI tags, special names, the anonymous namespace, a template function whose return type is not
// a builtin type, clone suffixes) is declined and takes the runtime's path, so a name is never
// simplified differently from before: `CxxMangledNameTests` compares both ways on every C++
// symbol of the toolchain binaries.

package enum CxxMangledName {
    /// The simplified name of `name`, or nil when this reader does not read it.
    package static func simplifiedName(_ name: String) -> String? {
        var name = name
        return name.withUTF8 { simplifiedName(bytes: $0) }
    }

    package static func simplifiedName(bytes: UnsafeBufferPointer<UInt8>) -> String? {
        var start = 0
        if bytes.count > 3, bytes[0] == UInt8(ascii: "_"), bytes[1] == UInt8(ascii: "_") { start = 1 }
        guard bytes.count - start > 2, bytes[start] == UInt8(ascii: "_"), bytes[start + 1] == UInt8(ascii: "Z"),
            bytes.count <= SwiftNames.longestMangledName
        else { return nil }
        // Only mangling characters, then maybe a clone suffix (`.cold.1`, `.part.0`), which prints
        // after the parameters (` [clone .cold.1]`) and so is cut with them.
        var end = bytes.count
        for index in (start + 2)..<bytes.count {
            let byte = bytes[index]
            if byte == UInt8(ascii: ".") {
                end = index
                break
            }
            guard isDigit(byte) || isLetter(byte) || byte == UInt8(ascii: "_") || byte == UInt8(ascii: "$") else { return nil }
        }
        if end < bytes.count {
            guard isCloneSuffix(UnsafeBufferPointer(rebasing: bytes[end...])) else { return nil }
        }
        var reader = Reader(bytes: UnsafeBufferPointer(rebasing: bytes[..<end]), position: start + 2)
        guard let name = reader.name() else { return nil }
        // A template function's name comes after its return type: only a builtin one (maybe behind
        // pointers and references) prints as words without brackets the simplification would cut at.
        if name.endsWithTemplateArguments, !reader.plainReturnType() { return nil }
        let printed = name.printed
        guard let last = printed.last else { return nil }
        var output: [UInt8] = []
        if printed.count >= 2 {
            for part in printed[printed.count - 2] { name.append(part, of: bytes, to: &output) }
            output.append(UInt8(ascii: "."))
        }
        for part in last { name.append(part, of: bytes, to: &output) }
        return String(decoding: output, as: UTF8.self)
    }

    @inline(__always) static func isDigit(_ byte: UInt8) -> Bool { byte >= UInt8(ascii: "0") && byte <= UInt8(ascii: "9") }

    /// `.` lowercase letters or `_`, then `.` digits any number of times; once or more (GCC's
    /// `.cold.1`, `.part.0`, `.isra.0`, `.constprop.0`, LLVM's `.llvm.123`), as the demangler reads
    /// clone suffixes.
    static func isCloneSuffix(_ suffix: UnsafeBufferPointer<UInt8>) -> Bool {
        var index = 0
        var groups = 0
        while index < suffix.count {
            guard suffix[index] == UInt8(ascii: "."), index + 1 < suffix.count else { return false }
            index += 1
            let wordStart = index
            while index < suffix.count,
                (suffix[index] >= UInt8(ascii: "a") && suffix[index] <= UInt8(ascii: "z")) || suffix[index] == UInt8(ascii: "_")
            {
                index += 1
            }
            guard index > wordStart else { return false }
            while index + 1 < suffix.count, suffix[index] == UInt8(ascii: "."), isDigit(suffix[index + 1]) {
                index += 1
                while index < suffix.count, isDigit(suffix[index]) { index += 1 }
            }
            groups += 1
        }
        return groups > 0
    }

    @inline(__always) static func isLetter(_ byte: UInt8) -> Bool {
        (byte >= UInt8(ascii: "a") && byte <= UInt8(ascii: "z")) || (byte >= UInt8(ascii: "A") && byte <= UInt8(ascii: "Z"))
    }

    /// One `::` part of a name as it prints.
    enum Part {
        case identifier(Range<Int>)
        case std
        case destructor(Range<Int>)
        /// `(anonymous namespace)`, of which the simplification keeps `namespace)`: it takes the
        /// name to start after the last space, which is inside it (`CxxNames.swift`).
        case anonymousNamespace
        /// An ABI tag on the part before it: `[abi:cxx11]`.
        case abiTag(Range<Int>)
    }

    struct Name {
        var parts: [Part] = []
        /// Whether the innermost part had template arguments (then the return type prints first).
        var endsWithTemplateArguments = false

        func append(_ part: Part, of bytes: UnsafeBufferPointer<UInt8>, to output: inout [UInt8]) {
            switch part {
            case .identifier(let range): output.append(contentsOf: bytes[range])
            case .std: output.append(contentsOf: "std".utf8)
            case .destructor(let range):
                output.append(UInt8(ascii: "~"))
                output.append(contentsOf: bytes[range])
            case .anonymousNamespace: output.append(contentsOf: "namespace)".utf8)
            case .abiTag(let range):
                output.append(contentsOf: "[abi:".utf8)
                output.append(contentsOf: bytes[range])
                output.append(UInt8(ascii: "]"))
            }
        }

        /// The printed parts: ABI tags joined to the part they follow.
        var printed: [[Part]] {
            var result: [[Part]] = []
            for part in parts {
                if case .abiTag = part, !result.isEmpty { result[result.count - 1].append(part) } else { result.append([part]) }
            }
            return result
        }
    }

    struct Reader {
        let bytes: UnsafeBufferPointer<UInt8>
        var position: Int
        /// Nesting of types read, bounded so hostile names cannot run the stack out.
        var depth = 0

        var peek: UInt8 { position < bytes.count ? bytes[position] : 0 }

        func peek(_ offset: Int) -> UInt8 { position + offset < bytes.count ? bytes[position + offset] : 0 }

        mutating func take(_ byte: UInt8) -> Bool {
            guard peek == byte else { return false }
            position += 1
            return true
        }

        /// `<length><identifier>`, as a range of the name; nil for the anonymous namespace where
        /// `allowingAnonymous` is false.
        mutating func sourceName(allowingAnonymous: Bool = true) -> Range<Int>? {
            guard CxxMangledName.isDigit(peek), peek != UInt8(ascii: "0") else { return nil }
            var length = 0
            while CxxMangledName.isDigit(peek) {
                length = length * 10 + Int(peek - UInt8(ascii: "0"))
                guard length < 4096 else { return nil }
                position += 1
            }
            guard position + length <= bytes.count else { return nil }
            let range = position..<(position + length)
            position += length
            // Other `_GLOBAL_` names print as words of the demangler's own.
            if length >= 8, bytes[range].starts(with: "_GLOBAL_".utf8), !(allowingAnonymous && isAnonymousNamespace(range)) { return nil }
            return range
        }

        /// `_GLOBAL__N_1`: the anonymous namespace.
        func isAnonymousNamespace(_ range: Range<Int>) -> Bool { bytes[range].elementsEqual("_GLOBAL__N_1".utf8) }

        /// ABI tags after a part: `B <source-name>`, each.
        mutating func abiTags(into name: inout Name) -> Bool {
            while take(UInt8(ascii: "B")) {
                guard let tag = sourceName(allowingAnonymous: false) else { return false }
                name.parts.append(.abiTag(tag))
            }
            return true
        }

        /// The encoding's name: nested or unscoped, with template arguments.
        mutating func name() -> Name? {
            var name = Name()
            if take(UInt8(ascii: "N")) {
                while take(UInt8(ascii: "r")) || take(UInt8(ascii: "V")) || take(UInt8(ascii: "K")) {}
                _ = take(UInt8(ascii: "R")) || take(UInt8(ascii: "O"))
                var lastIdentifier: Range<Int>?
                while !take(UInt8(ascii: "E")) {
                    if name.parts.isEmpty, peek == UInt8(ascii: "S"), peek(1) == UInt8(ascii: "t") {
                        position += 2
                        name.parts.append(.std)
                        name.endsWithTemplateArguments = false
                    } else if let identifier = sourceName() {
                        if isAnonymousNamespace(identifier) {
                            name.parts = [.anonymousNamespace]
                        } else {
                            name.parts.append(.identifier(identifier))
                            lastIdentifier = identifier
                            guard abiTags(into: &name) else { return nil }
                        }
                        name.endsWithTemplateArguments = false
                    } else if peek == UInt8(ascii: "C"), peek(1) >= UInt8(ascii: "1"), peek(1) <= UInt8(ascii: "3"), let type = lastIdentifier {
                        position += 2
                        name.parts.append(.identifier(type))
                        name.endsWithTemplateArguments = false
                    } else if peek == UInt8(ascii: "D"), peek(1) >= UInt8(ascii: "0"), peek(1) <= UInt8(ascii: "2"), let type = lastIdentifier {
                        position += 2
                        name.parts.append(.destructor(type))
                        name.endsWithTemplateArguments = false
                    } else if peek == UInt8(ascii: "I"), !name.parts.isEmpty, !name.endsWithTemplateArguments {
                        guard templateArguments() else { return nil }
                        name.endsWithTemplateArguments = true
                    } else {
                        return nil
                    }
                }
                return name.parts.isEmpty ? nil : name
            }
            if peek == UInt8(ascii: "S"), peek(1) == UInt8(ascii: "t") {
                position += 2
                name.parts.append(.std)
            } else {
                _ = take(UInt8(ascii: "L"))
            }
            guard let identifier = sourceName(allowingAnonymous: false) else { return nil }
            name.parts.append(.identifier(identifier))
            guard abiTags(into: &name) else { return nil }
            if peek == UInt8(ascii: "I") {
                guard templateArguments() else { return nil }
                name.endsWithTemplateArguments = true
            }
            return name
        }

        /// `I <argument>+ E`.
        mutating func templateArguments() -> Bool {
            guard take(UInt8(ascii: "I")), depth < 32 else { return false }
            depth += 1
            defer { depth -= 1 }
            var count = 0
            while !take(UInt8(ascii: "E")) {
                if take(UInt8(ascii: "L")) {
                    // A literal of a builtin type: `Li5E`, `Lin1E`, `Lb1E`.
                    guard Self.isBuiltin(peek) else { return false }
                    position += 1
                    _ = take(UInt8(ascii: "n"))
                    guard CxxMangledName.isDigit(peek) else { return false }
                    while CxxMangledName.isDigit(peek) { position += 1 }
                    guard take(UInt8(ascii: "E")) else { return false }
                } else if take(UInt8(ascii: "J")) {
                    // An argument pack: arguments until `E`.
                    while !take(UInt8(ascii: "E")) {
                        guard type() else { return false }
                    }
                } else if !type() {
                    return false
                }
                count += 1
            }
            return count > 0
        }

        static func isBuiltin(_ byte: UInt8) -> Bool {
            switch byte {
            case UInt8(ascii: "v"), UInt8(ascii: "w"), UInt8(ascii: "b"), UInt8(ascii: "c"), UInt8(ascii: "a"), UInt8(ascii: "h"),
                UInt8(ascii: "s"), UInt8(ascii: "t"), UInt8(ascii: "i"), UInt8(ascii: "j"), UInt8(ascii: "l"), UInt8(ascii: "m"),
                UInt8(ascii: "x"), UInt8(ascii: "y"), UInt8(ascii: "n"), UInt8(ascii: "o"), UInt8(ascii: "f"), UInt8(ascii: "d"),
                UInt8(ascii: "e"), UInt8(ascii: "g"), UInt8(ascii: "z"):
                true
            default: false
            }
        }

        /// A type of the subset read: builtins, qualified and pointer types, class types (names,
        /// nested names, substitutions, template parameters, each maybe with arguments).
        mutating func type() -> Bool {
            guard depth < 32 else { return false }
            depth += 1
            defer { depth -= 1 }
            while take(UInt8(ascii: "P")) || take(UInt8(ascii: "R")) || take(UInt8(ascii: "O")) || take(UInt8(ascii: "K"))
                || take(UInt8(ascii: "V")) || take(UInt8(ascii: "r"))
            {}
            let byte = peek
            if Self.isBuiltin(byte) {
                position += 1
                return true
            }
            if byte == UInt8(ascii: "D") {
                // nullptr_t, char32_t, char16_t, char8_t.
                guard [UInt8(ascii: "n"), UInt8(ascii: "i"), UInt8(ascii: "s"), UInt8(ascii: "u")].contains(peek(1)) else { return false }
                position += 2
                return true
            }
            if CxxMangledName.isDigit(byte) {
                guard sourceName() != nil else { return false }
                return peek == UInt8(ascii: "I") ? templateArguments() : true
            }
            if take(UInt8(ascii: "N")) {
                while take(UInt8(ascii: "r")) || take(UInt8(ascii: "V")) || take(UInt8(ascii: "K")) {}
                var parts = 0
                while !take(UInt8(ascii: "E")) {
                    if peek == UInt8(ascii: "I") {
                        guard parts > 0, templateArguments() else { return false }
                    } else if peek == UInt8(ascii: "S") || peek == UInt8(ascii: "T") {
                        guard parts == 0, substitutionOrParameter() else { return false }
                    } else {
                        guard sourceName() != nil else { return false }
                    }
                    parts += 1
                }
                return parts > 0
            }
            if byte == UInt8(ascii: "S") || byte == UInt8(ascii: "T") {
                guard substitutionOrParameter() else { return false }
                return peek == UInt8(ascii: "I") ? templateArguments() : true
            }
            if take(UInt8(ascii: "F")) {
                // A function type: `F [Y] <result> <parameter>+ [<ref-qualifier>] E`.
                _ = take(UInt8(ascii: "Y"))
                var types = 0
                while !take(UInt8(ascii: "E")) {
                    if types >= 2, peek == UInt8(ascii: "R") || peek == UInt8(ascii: "O"), peek(1) == UInt8(ascii: "E") {
                        position += 1
                        continue
                    }
                    guard type() else { return false }
                    types += 1
                }
                return types >= 2
            }
            if byte == UInt8(ascii: "D"), peek(1) == UInt8(ascii: "p") {
                position += 2
                return type()  // A pack expansion.
            }
            return false
        }

        /// `S_`, `S<seq-id>_`, `St <name>`, `Sa` `Sb` `Ss` `Si` `So` `Sd`; `T_`, `T<n>_`.
        mutating func substitutionOrParameter() -> Bool {
            let isParameter = peek == UInt8(ascii: "T")
            position += 1
            if !isParameter {
                if take(UInt8(ascii: "t")) { return sourceName() != nil }
                if [UInt8(ascii: "a"), UInt8(ascii: "b"), UInt8(ascii: "s"), UInt8(ascii: "i"), UInt8(ascii: "o"), UInt8(ascii: "d")].contains(peek) {
                    position += 1
                    return true
                }
            }
            while CxxMangledName.isDigit(peek) || (!isParameter && peek >= UInt8(ascii: "A") && peek <= UInt8(ascii: "Z")) { position += 1 }
            return take(UInt8(ascii: "_"))
        }

        /// Whether the next type (a template function's return type, printed before its name)
        /// prints without a `(` outside brackets: a builtin type or a class named by identifiers
        /// (with any template arguments), maybe behind pointers, references and `const`. A
        /// substitution or a template parameter may stand for a function type; those decline.
        mutating func plainReturnType() -> Bool {
            while take(UInt8(ascii: "P")) || take(UInt8(ascii: "R")) || take(UInt8(ascii: "O")) || take(UInt8(ascii: "K")) {}
            if Self.isBuiltin(peek) { return true }
            if CxxMangledName.isDigit(peek) {
                guard sourceName() != nil else { return false }
                return peek == UInt8(ascii: "I") ? templateArguments() : true
            }
            if peek == UInt8(ascii: "S"), peek(1) == UInt8(ascii: "t") {
                position += 2
                guard sourceName() != nil else { return false }
                return peek == UInt8(ascii: "I") ? templateArguments() : true
            }
            guard take(UInt8(ascii: "N")) else { return false }
            while take(UInt8(ascii: "r")) || take(UInt8(ascii: "V")) || take(UInt8(ascii: "K")) {}
            var parts = 0
            while !take(UInt8(ascii: "E")) {
                if parts == 0, peek == UInt8(ascii: "S"), peek(1) == UInt8(ascii: "t") {
                    position += 2
                } else if peek == UInt8(ascii: "I") {
                    guard parts > 0, templateArguments() else { return false }
                } else {
                    guard sourceName() != nil else { return false }
                }
                parts += 1
            }
            return parts > 0
        }
    }
}
