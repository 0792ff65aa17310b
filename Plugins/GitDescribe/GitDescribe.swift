import Foundation
import PackagePlugin

/// Writes `GitDescribe.swift` into the build folder before every build: the `git describe` of the
/// checkout being built (`BuildInfo.gitDescription`), or nil outside one (a source archive, a
/// copy without `.git`, git missing). SwiftPM has no other way to pass a build-time value to Swift
/// code without unsafe flags; the source tree is never written.
///
/// The file is replaced only when its text changes, so a build at the same commit and state
/// compiles nothing again.
@main struct GitDescribe: BuildToolPlugin {
    func createBuildCommands(context: PluginContext, target: Target) throws -> [Command] {
        let folder = context.pluginWorkDirectoryURL.appending(path: "generated")
        let output = folder.appending(path: "GitDescribe.swift")
        return [
            .prebuildCommand(
                displayName: "git describe for BuildInfo", executable: URL(fileURLWithPath: "/bin/sh"),
                arguments: ["-c", Self.script, "git-describe", context.package.directoryURL.path, folder.path, output.path],
                outputFilesDirectory: folder)
        ]
    }

    /// `$1` the package's folder, `$2` the output folder, `$3` the file. Only what `git describe`
    /// can print (letters, digits, `.`, `_`, `-`, `+`) goes into the Swift literal.
    static let script = #"""
        set -u
        mkdir -p "$2"
        described=$(git -C "$1" describe --tags --always --dirty 2>/dev/null) || described=""
        case "$described" in *[!A-Za-z0-9._+-]*) described="" ;; esac
        if [ -n "$described" ]; then value="\"$described\""; else value="nil"; fi
        {
            echo "// Written by the GitDescribe plugin before every build; not checked in."
            echo "let gitDescribe: String? = $value"
        } > "$3.new"
        if cmp -s "$3.new" "$3"; then rm -f "$3.new"; else mv "$3.new" "$3"; fi
        """#
}
