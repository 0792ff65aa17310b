-- Test and local databases only: the minimum the yui_perf migration (db/yui_perf.sql) references
-- and that Supabase already has from the app's own migrations. Do NOT run this on Supabase: its
-- yui_users, roles and yui_uid() are the real ones and must not be replaced.
--
-- Safe to run again, and from several sessions at once (the tests do): every statement is
-- idempotent, and a role created by a concurrent session counts as created.

-- The owner of rows: yui_perf.user_id references it.
create table if not exists public.yui_users (
  id uuid primary key
);

-- The phone writes as yui_user; the owner's agents read as yui_connector. Roles are per cluster,
-- so another database on the same server may have made them already.
do $$
begin
  begin
    create role yui_user nologin;
  exception when duplicate_object or unique_violation then null;
  end;
  begin
    create role yui_connector nologin;
  exception when duplicate_object or unique_violation then null;
  end;
end
$$;

-- The caller's user id. On Supabase it comes from the JWT; here from a setting a test can make
-- (`set yui.uid = '…'`), null when unset, so the policies have something to call.
create or replace function public.yui_uid() returns uuid
  language sql stable
  as $$ select nullif(current_setting('yui.uid', true), '')::uuid $$;
