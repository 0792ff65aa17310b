// swift-tools-version: 6.0
import PackageDescription

// Layout (SPEC section 2): a payload becomes rows in PayloadDecode, a frame becomes a function name in
// StackSymbolize, stacks become signatures in StackSignature, rows become the build-against-build
// report in SpeedReport, rows reach PostgreSQL through RowStore.
// PayloadTool holds the command line's logic; payload-tool is the thin executable around it.
let package = Package(
    name: "yui-perf",
    platforms: [.macOS(.v13)],
    products: [
        .executable(name: "payload-tool", targets: ["payload-tool"]),
        .library(name: "PayloadDecode", targets: ["PayloadDecode"]),
        .library(name: "StackSymbolize", targets: ["StackSymbolize"]),
    ],
    targets: [
        .systemLibrary(
            name: "CElfutils",
            pkgConfig: "libdw",
            providers: [.apt(["libdw-dev", "libelf-dev"])]
        ),
        // Headers only, no pkg-config: its `-lpq` / `-larchive` would load the libraries at start-up.
        // CLazyLibraries loads them on first use (libarchive-dev and libpq-dev give the headers,
        // scripts/install-system-packages installs them).
        .systemLibrary(name: "CArchive", providers: [.apt(["libarchive-dev"])]),
        .systemLibrary(name: "CLibpq", providers: [.apt(["libpq-dev"])]),
        .systemLibrary(name: "CCurl", providers: [.apt(["libcurl4-openssl-dev"])]),
        // Inner loops of `rows` in C, for `rows` at the speed of the best JSON parsers: SHA-1 on the x86 SHA instructions for row keys
        // (PayloadDecode falls back to its Swift SHA-1 where the CPU has none) and 16-byte scans of
        // JSON strings and indentation for the parser.
        .target(name: "CPayloadKernels"),
        .target(name: "SystemIO"),
        // The version `--version` prints: the release constant and the checkout's `git describe`,
        // which the GitDescribe plugin writes into the build folder before every build (a
        // build-time value reaches Swift code no other way without unsafe flags).
        .plugin(name: "GitDescribe", capability: .buildTool()),
        .target(name: "BuildInfo", plugins: ["GitDescribe"]),
        // libpq, libarchive and libcurl, loaded when first used rather than at start-up (docs/speed.md).
        .target(name: "CLazyLibraries", dependencies: ["CLibpq", "CArchive", "CCurl"], linkerSettings: [.linkedLibrary("dl")]),
        .target(name: "PayloadDecode", dependencies: ["CPayloadKernels", "SystemIO"]),
        // Names of functions (Swift, Swift 1-3, C++): demangled and simplified, with no DWARF
        // (SystemIO looks up `__cxa_demangle` at run time).
        .target(name: "SymbolNames", dependencies: ["SystemIO"]),
        // No unsafeFlags anywhere, so other packages can depend on this one: the release build's
        // speed settings (exclusivity checks off, a non-PIE executable) are given by
        // scripts/build-release, which every script and the README use.
        // CLazyLibraries: libcurl, for debug files fetched from symbol servers (`Remote/`).
        .target(name: "StackSymbolize", dependencies: ["CElfutils", "SystemIO", "SymbolNames", "CLazyLibraries"]),
        .target(name: "StackSignature", dependencies: ["PayloadDecode", "StackSymbolize", "SymbolNames", "SystemIO"]),
        .target(name: "RowStore", dependencies: ["PayloadDecode", "SystemIO", "CLibpq", "CLazyLibraries"]),
        .target(name: "SpeedReport", dependencies: ["PayloadDecode", "StackSignature", "SystemIO"]),
        .target(
            name: "PayloadTool",
            dependencies: [
                "PayloadDecode", "StackSymbolize", "StackSignature", "RowStore", "SpeedReport", "SystemIO", "CArchive", "CLazyLibraries",
                "BuildInfo",
            ]
        ),
        .executableTarget(name: "payload-tool", dependencies: ["PayloadTool", "SystemIO"]),
        // Runners and fixture finders shared by the test targets (a regular target only tests use,
        // like swift-collections' _CollectionsTestSupport).
        .target(name: "TestSupport", dependencies: ["PayloadTool"], path: "Tests/TestSupport"),
        .testTarget(name: "PayloadDecodeTests", dependencies: ["PayloadDecode", "TestSupport"]),
        .testTarget(name: "SystemIOTests", dependencies: ["SystemIO"]),
        .testTarget(name: "SymbolNamesTests", dependencies: ["SymbolNames", "TestSupport"]),
        .testTarget(name: "StackSymbolizeTests", dependencies: ["StackSymbolize", "SymbolNames", "TestSupport"]),
        .testTarget(
            name: "PayloadToolTests",
            dependencies: ["PayloadTool", "PayloadDecode", "StackSymbolize", "RowStore", "SpeedReport", "TestSupport", "BuildInfo"]),
        .testTarget(name: "StackSignatureTests", dependencies: ["StackSignature", "PayloadDecode", "StackSymbolize"]),
        .testTarget(name: "SpeedReportTests", dependencies: ["SpeedReport", "PayloadDecode", "StackSignature", "TestSupport"]),
        .testTarget(name: "RowStoreTests", dependencies: ["RowStore", "PayloadDecode", "PayloadTool", "TestSupport"]),
        .testTarget(
            name: "BadInputTests", dependencies: ["PayloadTool", "PayloadDecode", "StackSymbolize", "TestSupport"],
            exclude: ["Corpus"]),
    ]
)
