/// Definitions `db/yui_perf.sql` used to make, for tests that build a table as an earlier version
/// of the migration left it.
public enum OlderMigrations {
    /// `yui_perf_stack_frame_shape` as older migrations made it: the shape of a frame only, so any string
    /// (terminal controls, a lower-case UUID) could be an image or a uuid.
    public static let frameShapeCheck = #"""
        check (stack is null or jsonb_typeof(stack) <> 'array' or not jsonb_path_exists(stack,
            'lax $[*] ? (@.type() != "object"
                            || !exists(@.offset) || @.offset.type() != "number" || @.offset < 0
                            || @.offset.floor() != @.offset)'
          ) and not jsonb_path_exists(stack,
            'strict $[*].keyvalue() ? ((@.key != "image" && @.key != "uuid" && @.key != "offset")
                                       || (@.key != "offset" && @.value.type() != "string" && @.value.type() != "null"))'
          ))
        """#

    /// SQL that puts the older frame check in place of the current one on `public.yui_perf`.
    public static let restoreFrameShapeCheck = """
        alter table public.yui_perf drop constraint yui_perf_stack_frame_shape;
        alter table public.yui_perf add constraint yui_perf_stack_frame_shape \(frameShapeCheck);
        """
}
