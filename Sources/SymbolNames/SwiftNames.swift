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

    /// Prefixes the runtime's `swift_demangle` reads (`__T0` once its Mach-O underscore is gone).
    private static let modernPrefixes = ["$s", "_$s", "$S", "_$S", "$e", "_$e", "_T0", "__T0"]

    /// Whether `name` is a Swift symbol. Swift 3's `_T` names only count when they parse: plenty of
    /// C symbols start with `_T` too.
    package static func isSwiftMangled(_ name: String) -> Bool {
        for prefix in modernPrefixes where name.hasPrefix(prefix) { return true }
        return isLegacySwiftMangled(name)
    }

    private static func isLegacySwiftMangled(_ name: String) -> Bool {
        LegacySwiftDemangler.hasLegacyPrefix(name.utf8) && name.utf8.count <= longestMangledName
            && LegacySwiftDemangler.demangle(name) != nil
    }

    package static func isCxxMangled(_ name: String) -> Bool { name.hasPrefix("_Z") || name.hasPrefix("__Z") }

    /// The full demangled name, or `nil` when the name is not mangled or does not demangle.
    public static func demangle(_ mangled: String) -> String? {
        guard mangled.utf8.count <= longestMangledName else { return nil }
        // The runtime no longer reads Swift 3's mangling.
        if LegacySwiftDemangler.hasLegacyPrefix(mangled.utf8) { return LegacySwiftDemangler.demangle(mangled) }
        if modernPrefixes.contains(where: { mangled.hasPrefix($0) }), let swiftDemangle {
            let runtimeName = mangled.hasPrefix("__T0") ? String(mangled.dropFirst()) : mangled
            return runtimeName.withCString { pointer -> String? in
                guard let result = swiftDemangle(pointer, strlen(pointer), nil, nil, 0) else { return nil }
                defer { free(result) }
                let text = String(cString: result)
                return text.isEmpty || text == runtimeName ? nil : text
            }
        }
        if isCxxMangled(mangled), let cxaDemangle {
            let name = mangled.hasPrefix("__Z") ? String(mangled.dropFirst()) : mangled
            return name.withCString { pointer -> String? in
                var status: Int32 = 0
                guard let result = cxaDemangle(pointer, nil, nil, &status), status == 0 else { return nil }
                defer { free(result) }
                return String(cString: result)
            }
        }
        return nil
    }

    /// The `Type.member` form: `YuiLines.parse`, `closure in ThreadView.body`, `ChatStore.apply`.
    /// A name that cannot be demangled comes back as it was.
    public static func simplified(_ mangledOrPlain: String) -> String {
        if modernPrefixes.contains(where: { mangledOrPlain.hasPrefix($0) })
            || LegacySwiftDemangler.hasLegacyPrefix(mangledOrPlain.utf8)
        {
            guard let full = demangle(mangledOrPlain) else { return mangledOrPlain }
            return simplifiedSwift(full)
        }
        if isCxxMangled(mangledOrPlain) {
            guard let full = demangle(mangledOrPlain) else { return mangledOrPlain }
            return simplifiedCxx(full)
        }
        if mangledOrPlain.contains("::") { return simplifiedCxx(mangledOrPlain) }
        return mangledOrPlain
    }
}

/// The Swift runtime's `swift_demangle` (exported by libswiftCore, shared or static).
@_silgen_name("swift_demangle")
private func runtimeSwiftDemangle(
    _ mangledName: UnsafePointer<CChar>?, _ mangledNameLength: Int, _ outputBuffer: UnsafeMutablePointer<CChar>?,
    _ outputBufferSize: UnsafeMutablePointer<Int>?, _ flags: UInt32
) -> UnsafeMutablePointer<CChar>?
