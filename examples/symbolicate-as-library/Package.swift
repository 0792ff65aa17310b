// swift-tools-version: 6.0
import PackageDescription

// A package of someone else's that uses StackSymbolize as a library, by path: proof that
// yui-perf's manifest is one SwiftPM accepts as a dependency (no unsafeFlags), run by
// scripts/check-as-dependency in CI.
let package = Package(
    name: "symbolicate-as-library",
    dependencies: [.package(name: "yui-perf", path: "../..")],
    targets: [
        .executableTarget(
            name: "symbolicate-as-library", dependencies: [.product(name: "StackSymbolize", package: "yui-perf")])
    ]
)
