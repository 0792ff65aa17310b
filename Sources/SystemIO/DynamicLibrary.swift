import Foundation

/// A shared library whose functions are looked up by name at run time (`dlopen`, `dlsym`): for a
/// function that may be missing, so that its absence costs a feature rather than the start-up.
public struct DynamicLibrary {
    /// The `dlopen` handle; nil stands for every library already loaded (`RTLD_DEFAULT`).
    private let handle: UnsafeMutableRawPointer?

    /// The libraries the process has loaded, searched in the order they were loaded.
    public static var alreadyLoaded: DynamicLibrary { DynamicLibrary(handle: nil) }

    private init(handle: UnsafeMutableRawPointer?) { self.handle = handle }

    /// Loads the library `name` (`libstdc++.so.6`), or nil when it cannot be loaded. Its symbols are
    /// bound now and stay out of the global scope (`RTLD_NOW | RTLD_LOCAL`); it is never unloaded.
    public init?(loading name: String) {
        guard let handle = dlopen(name, RTLD_NOW | RTLD_LOCAL) else { return nil }
        self.handle = handle
    }

    /// The address of the symbol `name`, or nil when the library has none.
    public func address(of name: String) -> UnsafeMutableRawPointer? {
        dlsym(handle, name)
    }
}
