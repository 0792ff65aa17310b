/// How a stored name is mangled, told by its prefix: the one language detection every demangling
/// and simplification route asks.
public enum Mangling: Sendable, Equatable {
    /// Swift 4 and later (`$s`, `_$s`, `$S`, `$e`, `_T0`, each with or without Mach-O's underscore).
    case swift
    /// Swift 1 to 3 (`_T` not followed by `0`): a C symbol may start so too, so such a name only
    /// counts as Swift when it parses (`SymbolName.isMangled`).
    case swiftLegacy
    /// The Itanium C++ ABI (`_Z`, `__Z`).
    case cxx
    /// A plain name (a C function, a `DW_AT_name`).
    case none

    /// Prefixes the runtime's `swift_demangle` reads (`__T0` once its Mach-O underscore is gone).
    static let swiftPrefixes = ["$s", "_$s", "$S", "_$S", "$e", "_$e", "_T0", "__T0"]

    public init(of name: String) {
        if LegacySwiftDemangler.hasLegacyPrefix(name.utf8) {
            self = .swiftLegacy
        } else if Self.swiftPrefixes.contains(where: { name.hasPrefix($0) }) {
            self = .swift
        } else if name.hasPrefix("_Z") || name.hasPrefix("__Z") {
            self = .cxx
        } else {
            self = .none
        }
    }
}

/// The two questions asked of a function's stored name, one entry point each: its full demangled
/// name, and its simplified `Type.member` form (what signatures are made of).
public enum SymbolName {
    /// The full demangled name (Swift through the runtime's demangler, Swift 1 to 3 through ours,
    /// C++ through `__cxa_demangle`), or the stored name when it is not mangled or does not demangle.
    public static func fullName(_ stored: String) -> String { SwiftNames.demangle(stored) ?? stored }

    /// The simplified form of `stored`: `YuiLines.parse`, `closure in ThreadView.body`.
    public static func simplifiedName(_ stored: String) -> String {
        var reader = MangledSwiftName()
        return simplifiedName(stored, using: &reader)
    }

    /// `simplifiedName(_:)` with a reader kept by the caller (its buffers are reused). Each
    /// language has one route: the mangling read straight to the simplified form where our readers
    /// read it (`MangledSwiftName`, `CxxMangledName`), else the full name's text simplified. The
    /// same in every path (a symbol index stores this form, direct lookups compute it), so output
    /// with and without an index stays the same.
    package static func simplifiedName(_ stored: String, using reader: inout MangledSwiftName) -> String {
        switch Mangling(of: stored) {
        case .swift, .swiftLegacy: reader.simplifiedName(stored) ?? textSimplifiedName(stored)
        case .cxx: CxxMangledName.simplifiedName(stored) ?? textSimplifiedName(stored)
        case .none: textSimplifiedName(stored)
        }
    }

    /// `simplifiedName(_:using:)` of a name's bytes (a symbol table's, or a string's), lent to
    /// `body`: no string is made when the Swift reader reads the name (most names of a small
    /// binary's batch are symbols, and a string of each, then one of its simplified form, were a
    /// sixth of their cost). Only ASCII goes to the reader as bytes (every Swift mangling is
    /// ASCII); other bytes take the string's path, as their repaired string is what every other
    /// path reads.
    package static func withSimplifiedName<Result>(
        bytes: UnsafeBufferPointer<UInt8>, using reader: inout MangledSwiftName, _ body: (UnsafeRawBufferPointer) -> Result
    ) -> Result {
        var high: UInt8 = 0
        for byte in bytes { high |= byte }
        var simplified: String
        if high < 0x80 {
            if let read = reader.withSimplifiedName(bytes: bytes, { body(UnsafeRawBufferPointer($0)) }) { return read }
            let stored = String(decoding: bytes, as: UTF8.self)
            simplified = simplifiedName(stored, using: &reader)
        } else {
            simplified = simplifiedName(String(decoding: bytes, as: UTF8.self), using: &reader)
        }
        return simplified.withUTF8 { body(UnsafeRawBufferPointer($0)) }
    }

    /// The simplified form through the full demangling and the text simplification only: the
    /// route for what our readers do not read, and what they are checked against.
    package static func textSimplifiedName(_ stored: String) -> String {
        let full = SwiftNames.demangle(stored) ?? stored
        let mangling = Mangling(of: stored)
        if full == stored { return isMangled(stored, mangling) ? stored : SwiftNames.simplified(stored) }
        return isSwift(stored, mangling) ? SwiftNames.simplifiedSwift(full) : SwiftNames.simplifiedCxx(full)
    }

    /// The simplified form of a name a crash report gives, which is demangled already
    /// (`closure #1 in ContentView.body.getter`, `mlx::core::gpu::eval(mlx::core::array&)`,
    /// `-[UIApplication _run]`, `__pthread_kill`): so a frame the report names and one our debug
    /// file names give one signature.
    public static func simplifiedReportName(_ full: String) -> String {
        if isMangled(full) { return simplifiedName(full) }  // some tools leave names mangled
        if full.hasPrefix("-[") || full.hasPrefix("+[") { return full }
        if full.contains("::") { return SwiftNames.simplifiedCxx(full) }
        // A C name with a compiler's suffix (`__TCCAccessRequest_block_invoke.231`, `foo.cold.1`)
        // is not a Swift path: its dots number copies of one function.
        let parts = full.split(separator: ".")
        let suffixes: Set<Substring> = ["cold", "part", "isra", "constprop", "llvm", "lto_priv"]
        if !full.contains(" "), !full.contains("("),
            parts.dropFirst().allSatisfy({ part in part.allSatisfy(\.isNumber) || suffixes.contains(part) })
        {
            return full
        }
        if full.contains(".") || full.contains(" in ") {
            // Apple writes Swift names without their module (`DataSettingsView.factoryReset()`).
            let simplified = SwiftNames.simplifiedSwift(full, modules: false)
            return simplified.isEmpty || simplified.allSatisfy(\.isNumber) ? full : simplified
        }
        return full
    }

    /// Whether `name` is a mangled Swift or C++ name (a Swift 1 to 3 name only when it parses).
    public static func isMangled(_ name: String) -> Bool { isMangled(name, Mangling(of: name)) }

    static func isMangled(_ name: String, _ mangling: Mangling) -> Bool { mangling == .cxx || isSwift(name, mangling) }

    static func isSwift(_ name: String, _ mangling: Mangling) -> Bool {
        switch mangling {
        case .swift: true
        case .swiftLegacy: name.utf8.count <= SwiftNames.longestMangledName && LegacySwiftDemangler.demangle(name) != nil
        case .cxx, .none: false
        }
    }
}
