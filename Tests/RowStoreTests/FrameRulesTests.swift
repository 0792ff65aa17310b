import Foundation
import PayloadDecode
import RowStore
import TestSupport
import Testing

/// The frame rules of `yui_perf_stack_frame_shape` (a frame holds only image, uuid and offset) on the live server: the app's
/// role cannot store a frame that breaks them, and the migration brings an older, looser check up
/// to them, stopping on a table that holds rows they refuse.
@Suite(.enabled(if: !TestServer.isSkipped, "YUI_PERF_SKIP_DB=1"))
struct FrameRulesTests {
    /// An insert of one hang row whose stack is `stack` (JSON, written into the SQL as it is).
    static func insert(stack: String, key: String = UUID().uuidString.lowercased()) -> String {
        """
        insert into public.yui_perf (user_id, row_key, kind, name, app_build, app_version, os, device,
                                     period_start, period_end, n, value, stack)
        values ('\(SampleRows.user)', '\(key)', 'diagnostic', 'hang', 130, '1.4', '26.0', 'arm64',
                '2024-03-01T10:15:30Z', '2024-03-01T10:15:30Z', 1, 1.25, '\(stack)'::jsonb)
        """
    }

    static let goodStack =
        #"[{"image":"Yui","uuid":"0C2E4F1A-8B3D-4E5F-9A1B-2C3D4E5F6A7B","offset":74565},{"image":null,"uuid":null,"offset":0},{"offset":18446744073709551615}]"#

    /// Frames that break one rule each (the JSON escapes are the server's to decode).
    static let badStacks: [(String, String)] = [
        ("an image with ESC and BEL", #"[{"image":"Yui\u001b]0;PWNED\u0007\r\nbuild 999","offset":1}]"#),
        ("a lower-case uuid", #"[{"image":"Yui","uuid":"0c2e4f1a-8b3d-4e5f-9a1b-2c3d4e5f6a7b","offset":1}]"#),
        ("a uuid without dashes", #"[{"image":"Yui","uuid":"0C2E4F1A8B3D4E5F9A1B2C3D4E5F6A7B","offset":1}]"#),
        ("a negative offset", #"[{"image":"Yui","offset":-1}]"#),
        ("a fractional offset", #"[{"image":"Yui","offset":1.5}]"#),
        ("an offset past 2^64 - 1", #"[{"image":"Yui","offset":18446744073709551616}]"#),
        ("an image with a space", #"[{"image":"Yui App","offset":1}]"#),
        ("an empty image", #"[{"image":"","offset":1}]"#),
        ("an image of 1025 bytes", #"[{"image":""# + String(repeating: "a", count: 1025) + #"","offset":1}]"#),
        ("a frame in an array", #"[[{"image":"Yui","offset":1}]]"#),
    ]

    /// As the phone stores rows: a login in role `yui_user`, under row level security, with the
    /// column grants of the migration.
    @Test func theAppsRoleCannotStoreAFrameThatBreaksTheRules() throws {
        let test = try TestDatabase()
        try test.database.createUsers([SampleRows.user])
        let role = try test.rowLevelSecurityRole(user: SampleRows.user)
        let phone = try RowDatabase(url: try test.url(role: role, password: nil))
        try phone.runScript(Self.insert(stack: Self.goodStack))
        try phone.runScript(Self.insert(stack: #"[{"image":"a"# + String(repeating: "b", count: 1023) + #"","offset":1}]"#))
        for (what, stack) in Self.badStacks {
            let error = #expect(throws: RowStoreError.self, "\(what) was stored") { try phone.runScript(Self.insert(stack: stack)) }
            #expect(error?.sqlState == "23514", "\(what): \(error.map { "\($0)" } ?? "")")
            #expect(error?.message.contains("yui_perf_stack_frame_shape") == true, "\(what): \(error.map { "\($0)" } ?? "")")
        }
        #expect(try test.database.rows().count == 2)
    }

    /// A table whose frame check is the older one (same name, looser rule): the migration
    /// replaces it, and a table holding a row the new rule refuses stops the migration with the
    /// server's message, the old check left in place; once the row is gone it goes through, and
    /// running it again changes nothing.
    @Test func theMigrationReplacesAnOlderFrameCheckAndStopsOnRowsItRefuses() throws {
        let test = try TestDatabase()
        try test.database.createUsers([SampleRows.user])
        try test.database.runScript(OlderMigrations.restoreFrameShapeCheck)
        let plantedKey = "00000000-0000-4000-8000-00000000001b"
        let escapeImage = Self.badStacks[0].1
        // The older check lets the terminal controls in.
        try test.database.runScript(Self.insert(stack: escapeImage, key: plantedKey))
        let migration = try TestServer.migrationSQL("yui_perf.sql")
        let stopped = #expect(throws: RowStoreError.self) { try test.database.runScript(migration) }
        #expect(stopped?.message.contains("yui_perf_stack_frame_shape") == true, "\(stopped.map { "\($0)" } ?? "")")
        #expect(stopped?.message.contains("violated by some row") == true, "\(stopped.map { "\($0)" } ?? "")")
        // Rolled back: the older check is still the one in place.
        try test.database.runScript(Self.insert(stack: Self.badStacks[1].1))

        try test.database.runScript("delete from public.yui_perf where stack::text like '%0c2e4f1a%' or row_key = '\(plantedKey)'")
        try test.database.runScript(migration)
        try test.database.runScript(migration)
        for (what, stack) in Self.badStacks {
            #expect(throws: RowStoreError.self, "\(what) was stored after the upgrade") { try test.database.runScript(Self.insert(stack: stack)) }
        }
        try test.database.runScript(Self.insert(stack: Self.goodStack))
        #expect(try test.database.rows().count == 1)
    }
}
