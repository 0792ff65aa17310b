import Foundation
import TestSupport

/// The debug-file fixtures (`dsyms-fixtures/`, built by its own script from sources in the repo).
/// `YUI_DSYMS_FIXTURES` points elsewhere, e.g. at a fixture checkout being rebuilt.
enum Fixtures {
    static var root: URL { Repository.dsymsFixtures }

    struct FixtureMissing: Error, CustomStringConvertible {
        var description: String
    }

    /// A path inside the fixtures; throws "fixture X not found at <path>" when absent.
    static func path(_ relative: String) throws -> String {
        let url = root.appendingPathComponent(relative)
        guard FileManager.default.fileExists(atPath: url.path) else {
            throw FixtureMissing(description: "fixture \(relative) not found at \(url.path)")
        }
        return url.path
    }

    /// One function of the fixture app (from `yuiapp-functions.json`).
    struct Function: Decodable {
        struct Call: Decodable {
            var return_offset: UInt64
            var callee: String
        }
        var linkage_name: String
        var demangled: String
        var start_offset: UInt64
        var size: UInt64
        var calls: [Call]
    }

    struct AppBuild: Decodable {
        var uuid: String
        var dsym: String
        var functions: [Function]
    }

    struct AppTable: Decodable {
        var image: String
        var builds: [String: AppBuild]
    }

    static func appTable() throws -> AppTable {
        let data = try Data(contentsOf: URL(fileURLWithPath: try path("yuiapp-functions.json")))
        return try JSONDecoder().decode(AppTable.self, from: data)
    }
}
