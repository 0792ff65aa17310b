import Foundation
import SystemIO

/// Demangling (Swift through the runtime's `swift_demangle`, C++ through `__cxa_demangle`) and the
/// simplified `Type.member` form signatures are built from (docs/design.md, "Symbolication").
public enum SwiftNames {
    private typealias SwiftDemangle =
        @convention(c) (
            UnsafePointer<CChar>?, Int, UnsafeMutablePointer<CChar>?, UnsafeMutablePointer<Int>?, UInt32
        ) -> UnsafeMutablePointer<CChar>?
    private typealias CxaDemangle =
        @convention(c) (
            UnsafePointer<CChar>?, UnsafeMutablePointer<CChar>?, UnsafeMutablePointer<Int>?, UnsafeMutablePointer<Int32>?
        ) -> UnsafeMutablePointer<CChar>?

    // The Swift runtime's demangler, linked directly: looking it up with `dlsym` finds nothing when
    // the runtime is linked in statically (`--static-swift-stdlib`, the README's build), and names
    // then stayed raw. libstdc++ is looked up at run time: it is usually loaded (Foundation uses
    // it), and a missing one just means C++ names stay raw.
    private static let swiftDemangle: SwiftDemangle? = { mangled, length, buffer, size, flags in
        runtimeSwiftDemangle(mangled, length, buffer, size, flags)
    }
    private static let cxaDemangle: CxaDemangle? = {
        var symbol = DynamicLibrary.alreadyLoaded.address(of: "__cxa_demangle")
        if symbol == nil, let library = DynamicLibrary(loading: "libstdc++.so.6") {
            symbol = library.address(of: "__cxa_demangle")
        }
        guard let symbol else { return nil }
        return unsafeBitCast(symbol, to: CxaDemangle.self)
    }()

    /// Mangled names longer than this are left raw: nothing real is that long, and it bounds the
    /// demanglers' recursion on hostile input.
    static let longestMangledName = 16_384

    /// Whether `name` is a Swift symbol (`SymbolName.isMangled`'s Swift half).
    package static func isSwiftMangled(_ name: String) -> Bool { SymbolName.isSwift(name, Mangling(of: name)) }

    package static func isCxxMangled(_ name: String) -> Bool { Mangling(of: name) == .cxx }

    /// The full demangled name, or `nil` when the name is not mangled or does not demangle.
    public static func demangle(_ mangled: String) -> String? {
        guard mangled.utf8.count <= longestMangledName else { return nil }
        switch Mangling(of: mangled) {
        case .swiftLegacy:
            // The runtime no longer reads Swift 3's mangling.
            return LegacySwiftDemangler.demangle(mangled)
        case .swift:
            guard let swiftDemangle else { return nil }
            let runtimeName = mangled.hasPrefix("__T0") ? String(mangled.dropFirst()) : mangled
            return runtimeName.withCString { pointer -> String? in
                guard let result = swiftDemangle(pointer, strlen(pointer), nil, nil, 0) else { return nil }
                defer { free(result) }
                let text = String(cString: result)
                return text.isEmpty || text == runtimeName ? nil : text
            }
        case .cxx:
            guard let cxaDemangle else { return nil }
            let name = mangled.hasPrefix("__Z") ? String(mangled.dropFirst()) : mangled
            return name.withCString { pointer -> String? in
                var status: Int32 = 0
                guard let result = cxaDemangle(pointer, nil, nil, &status), status == 0 else { return nil }
                defer { free(result) }
                return String(cString: result)
            }
        case .none:
            return nil
        }
    }

    /// The `Type.member` form: `YuiLines.parse`, `closure in ThreadView.body`, `ChatStore.apply`.
    /// A name that cannot be demangled comes back as it was.
    public static func simplified(_ mangledOrPlain: String) -> String {
        switch Mangling(of: mangledOrPlain) {
        case .swift, .swiftLegacy:
            guard let full = demangle(mangledOrPlain) else { return mangledOrPlain }
            return simplifiedSwift(full)
        case .cxx:
            guard let full = demangle(mangledOrPlain) else { return mangledOrPlain }
            return simplifiedCxx(full)
        case .none:
            return mangledOrPlain.contains("::") ? simplifiedCxx(mangledOrPlain) : mangledOrPlain
        }
    }
}

/// The Swift runtime's `swift_demangle` (exported by libswiftCore, shared or static).
@_silgen_name("swift_demangle")
private func runtimeSwiftDemangle(
    _ mangledName: UnsafePointer<CChar>?, _ mangledNameLength: Int, _ outputBuffer: UnsafeMutablePointer<CChar>?,
    _ outputBufferSize: UnsafeMutablePointer<Int>?, _ flags: UInt32
) -> UnsafeMutablePointer<CChar>?
