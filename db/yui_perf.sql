-- The yui_perf table as the app defines it (docs/design.md, "Rows"; docs/postgres.md), with the checks
-- the app added later (on app_version, os, device, buckets and stack; row_key, unique with user_id),
-- partitioned by week of period_start, with the 90-day retention that drops whole weeks
-- (docs/postgres.md, "Partitions and retention").
--
-- Runs on Supabase as it is (yui_users, the roles yui_user and yui_connector and yui_uid() exist
-- there). On a bare database run db/bare_database.sql first. Safe to run again, and from several
-- sessions at once; it brings a table made by the app's earlier migrations or by this file before
-- partitions (a plain table: real columns, no row_key, unnamed checks) up to this one, keeping every
-- row and every id. It runs as one transaction: a step that fails leaves the database as it was.
--
-- Differences from the seed, on purpose:
-- * p50, p95, max and value are double precision, not real: the rows `payload-tool rows` writes
--   carry doubles, and `load` followed by a read gives back exactly those numbers only if the
--   column keeps every bit (0.1 stored as real reads back as 0.100000001490116).
-- * every check has a name, so a refused row's error message says which rule it broke.
-- * the 500-rows-a-day trigger is not here: it belongs with yui_limits in the app's migrations,
--   and a bulk `load` of old dumps is exactly what it would wrongly drop.
-- * the unique key is (user_id, row_key, period_start), not (user_id, row_key): a partitioned
--   table's unique keys must hold its partition key. A row's key is made with the row (derived
--   from the payload's bytes by `rows`, a random uuid kept with the queued row on the phone), so a
--   row sent again has the same period_start and is still stored once. The phone posts with
--   on_conflict=user_id,row_key,period_start.

begin;
-- Two sessions running this file at once (the tests do) take turns.
do $$ begin perform pg_advisory_xact_lock(hashtext('public.yui_perf migration')); end $$;

-- A plain (unpartitioned) yui_perf, from the app's earlier migrations or this file before issue 33:
-- bring its columns up to this file's, then move it aside into the schema yui_perf_unpartitioned
-- (with its indexes, constraints and sequence, so their names are free); its rows are copied into
-- the partitioned table below and it is dropped.
alter table if exists public.yui_perf add column if not exists row_key uuid;
-- A crash's reason as numbers (issue 35): on a partitioned yui_perf from this file before them as on
-- a plain one (whose rows are copied below by column name), so every table has them.
alter table if exists public.yui_perf add column if not exists exception_type int;
alter table if exists public.yui_perf add column if not exists signal int;
alter table if exists public.yui_perf add column if not exists termination_code bigint;
-- The app's bundle identifier where the input names it (issue 35): two apps' rows are never one app's builds.
alter table if exists public.yui_perf add column if not exists bundle_id text;
do $$
declare
  column_name text;
begin
  for column_name in
    select c.column_name from information_schema.columns c
    where c.table_schema = 'public' and c.table_name = 'yui_perf'
      and c.column_name in ('p50', 'p95', 'max', 'value') and c.data_type = 'real'
  loop
    execute format('alter table public.yui_perf alter column %I type double precision', column_name);
  end loop;
  if exists (select 1 from pg_class where oid = to_regclass('public.yui_perf') and relkind = 'r') then
    create schema if not exists yui_perf_unpartitioned;
    alter table public.yui_perf set schema yui_perf_unpartitioned;
  end if;
end
$$;

create table if not exists public.yui_perf (
  id           bigint generated always as identity,
  user_id      uuid not null,
  row_key      uuid,                    -- null only on rows from builds before YUI-107
  kind         text not null,
  name         text not null,
  app_build    int  not null,
  app_version  text not null,
  os           text not null,
  device       text not null,           -- model identifier, e.g. iPhone16,2
  promotion    boolean not null default false,
  low_power    boolean not null default false,
  thermal      smallint not null default 0,   -- ProcessInfo.ThermalState raw value
  period_start timestamptz not null,
  period_end   timestamptz not null,
  n            int not null default 0,  -- samples in the period
  buckets      int[],                   -- 18 counts per bucket edge (docs/design.md, "Rows"), histograms only
  p50          double precision,
  p95          double precision,
  max          double precision,
  value        double precision,        -- a single number: memory MB, hang s/h, hitch ms/s
  stack        jsonb,                   -- diagnostics only: frames as {image, uuid, offset}
  created_at   timestamptz not null default now(),
  -- Crash rows only, null when the crash does not say (docs/crash-reports.md, "Reasons"): numbers,
  -- never the reason's text, which can hold paths and bundle identifiers.
  exception_type   int,                 -- Mach exception type: 1 EXC_BAD_ACCESS, 10 EXC_CRASH
  signal           int,                 -- Darwin's numbering: 6 SIGABRT, 9 SIGKILL, 11 SIGSEGV
  termination_code bigint,              -- a reason's code other than a signal's: 2343432205 = 0x8BADF00D
  bundle_id        text,                -- app.yui.Yui where the input names it (MetricKit's bundleIdentifier)
  -- A partitioned table's keys hold its partition key; id alone is unique by its sequence.
  constraint yui_perf_pkey primary key (id, period_start)
) partition by range (period_start);

-- The partitions live in a schema of their own, which no API exposes and no role but the owner
-- may use: Supabase grants every new table in public to anon and authenticated, and a partition
-- read directly would skip yui_perf's row level security.
create schema if not exists yui_perf_partitions;
revoke all on schema yui_perf_partitions from public;

-- Rows of a week that has no partition of its own (an old dump, a phone whose clock is far off)
-- land here, so no row is ever refused for its date; yui_perf_maintain moves them into their
-- week's partition when it makes one, and deletes them with the weeks retention drops.
create table if not exists yui_perf_partitions.yui_perf_default partition of public.yui_perf default;

-- The Monday 00:00 UTC that starts the week holding `moment`: partitions are whole UTC weeks.
create or replace function public.yui_perf_week_start(moment timestamptz) returns timestamptz
  language sql immutable strict
  set search_path = pg_catalog
  as $$ select date_trunc('week', moment at time zone 'UTC') at time zone 'UTC' $$;

-- The partitions of yui_perf with their bounds (the default partition has none).
create or replace function public.yui_perf_weeks()
  returns table (partition_name text, starts timestamptz, ends timestamptz)
  language sql stable
  set search_path = pg_catalog
  as $$
    select c.relname::text,
           substring(pg_get_expr(c.relpartbound, c.oid) from $r$FROM \('([^']*)'\)$r$)::timestamptz,
           substring(pg_get_expr(c.relpartbound, c.oid) from $r$TO \('([^']*)'\)$r$)::timestamptz
    from pg_inherits i join pg_class c on c.oid = i.inhrelid
    where i.inhparent = 'public.yui_perf'::regclass and pg_get_expr(c.relpartbound, c.oid) <> 'DEFAULT'
  $$;

-- Makes the week partitions from the week of `first` to that of `last` that do not exist yet
-- (yui_perf_partitions.yui_perf_YYYYMMDD, the week's Monday), moving the rows the default partition
-- holds for a week into it. Returns one line per partition made, with the rows moved.
create or replace function public.yui_perf_add_weeks(first timestamptz, last timestamptz)
  returns table (action text, partition_name text, row_count bigint)
  language plpgsql
  set search_path = pg_catalog
  as $$
declare
  week timestamptz := public.yui_perf_week_start(first);
  name text;
  moved bigint;
begin
  while week <= last loop
    name := 'yui_perf_' || to_char(week at time zone 'UTC', 'YYYYMMDD');
    if not exists (select 1 from public.yui_perf_weeks() w where w.starts < week + interval '7 days' and w.ends > week) then
      -- Nothing may reach the default partition for this week while its rows move.
      lock table yui_perf_partitions.yui_perf_default in share row exclusive mode;
      if exists (select 1 from yui_perf_partitions.yui_perf_default d
                 where d.period_start >= week and d.period_start < week + interval '7 days') then
        -- A partition cannot be made for rows the default partition holds: make the table alone,
        -- move the rows into it, then attach it.
        execute format('create table yui_perf_partitions.%I (like public.yui_perf including defaults including constraints)', name);
        execute format(
          'with gone as (delete from yui_perf_partitions.yui_perf_default where period_start >= $1 and period_start < $2 returning *)
           insert into yui_perf_partitions.%I select * from gone', name)
          using week, week + interval '7 days';
        get diagnostics moved = row_count;
        execute format('alter table public.yui_perf attach partition yui_perf_partitions.%I for values from (%L) to (%L)',
                       name, week, week + interval '7 days');
      else
        execute format('create table yui_perf_partitions.%I partition of public.yui_perf for values from (%L) to (%L)',
                       name, week, week + interval '7 days');
        moved := 0;
      end if;
      -- Direct reads of a partition would skip yui_perf's policies: on, with no policy, nobody
      -- but the owner reads it (through yui_perf, the parent's policies decide).
      execute format('alter table yui_perf_partitions.%I enable row level security', name);
      execute format('revoke all on yui_perf_partitions.%I from public', name);
      action := 'made'; partition_name := name; row_count := moved;
      return next;
    end if;
    week := week + interval '7 days';
  end loop;
end
$$;

-- Retention, run daily (by pg_cron, below, or by `payload-tool retention`): drops every week
-- partition entirely older than `keep_days` before `today`, deletes the default partition's rows
-- of those weeks, and makes the partitions from the oldest week kept to `weeks_ahead` weeks after
-- `today`. So the table holds keep_days to keep_days + 6 days of rows. Returns one line per
-- partition dropped or made, and one for the default partition's rows deleted.
create or replace function public.yui_perf_maintain(
  keep_days int default 90, weeks_ahead int default 4, today timestamptz default now())
  returns table (action text, partition_name text, row_count bigint)
  language plpgsql
  set search_path = pg_catalog
  as $$
declare
  oldest_kept timestamptz := public.yui_perf_week_start(today - make_interval(days => keep_days));
  week record;
  gone bigint;
begin
  if keep_days is null or keep_days < 1 or weeks_ahead is null or weeks_ahead < 0 then
    raise exception 'yui_perf_maintain: keep_days must be 1 or more and weeks_ahead 0 or more (got %, %)',
      keep_days, weeks_ahead;
  end if;
  for week in select w.partition_name, w.ends from public.yui_perf_weeks() w where w.ends <= oldest_kept order by w.starts loop
    execute format('select count(*) from yui_perf_partitions.%I', week.partition_name) into gone;
    execute format('drop table yui_perf_partitions.%I', week.partition_name);
    action := 'dropped'; partition_name := week.partition_name; row_count := gone;
    return next;
  end loop;
  delete from yui_perf_partitions.yui_perf_default d where d.period_start < oldest_kept;
  get diagnostics gone = row_count;
  if gone > 0 then
    action := 'deleted'; partition_name := 'yui_perf_default'; row_count := gone;
    return next;
  end if;
  return query select * from public.yui_perf_add_weeks(oldest_kept, today + make_interval(days => 7 * weeks_ahead));
end
$$;
revoke all on function public.yui_perf_add_weeks(timestamptz, timestamptz) from public;
revoke all on function public.yui_perf_maintain(int, int, timestamptz) from public;

-- The weeks of the retention window and four ahead, as the daily job would make them.
do $$ begin perform public.yui_perf_add_weeks(now() - interval '90 days', now() + interval '28 days'); end $$;

-- The rows of a plain yui_perf moved aside above: every row, with its id, into the partitioned
-- table (rows older than the window land in the default partition, and the first retention run
-- deletes them); the identity goes on after the highest id; the old table goes.
do $$
declare
  columns text;
begin
  if to_regclass('yui_perf_unpartitioned.yui_perf') is null then
    return;
  end if;
  select string_agg(quote_ident(a.attname), ', ' order by a.attnum) into columns
  from pg_attribute a
  where a.attrelid = 'public.yui_perf'::regclass and a.attnum > 0 and not a.attisdropped;
  execute format('insert into public.yui_perf (%s) overriding system value select %s from yui_perf_unpartitioned.yui_perf',
                 columns, columns);
  perform setval(pg_get_serial_sequence('public.yui_perf', 'id'),
                 greatest((select max(id) from public.yui_perf), 1), (select max(id) from public.yui_perf) is not null);
  drop table yui_perf_unpartitioned.yui_perf;
  drop schema yui_perf_unpartitioned;
end
$$;

-- Whether every image name of a stack is at most 1024 characters (the frame check below; the
-- characters themselves are its regular expression's).
create or replace function public.yui_perf_stack_images_fit(stack jsonb) returns boolean
  language sql immutable strict parallel safe
  set search_path = pg_catalog
  as $$
    select coalesce(bool_and(length(image) <= 1024), true)
    from jsonb_array_elements_text(jsonb_path_query_array(stack, 'lax $[*].image ? (@.type() == "string")')) as image
  $$;

-- Named checks, added once, and replaced when this file's definition of a check differs from the
-- table's (a stricter rule in a later version of this file): the two are compared as the server
-- prints them (pg_get_constraintdef), the wanted one made on an empty copy of the table's columns.
-- `not valid` is not used: a table that breaks them should fail here, loudly, rather than hold rows
-- the loader would refuse; the whole block is then rolled back and the old check stays.
do $$
declare
  wanted constant text[][] := array[
    ['yui_perf_user_fk',
     'foreign key (user_id) references public.yui_users(id) on delete cascade'],
    ['yui_perf_user_row_key', 'unique (user_id, row_key, period_start)'],
    ['yui_perf_kind', $c$check (kind in ('interval', 'memory', 'metrics', 'diagnostic'))$c$],
    ['yui_perf_name', $c$check (name ~ '^[a-z][a-z0-9_]{1,40}$')$c$],
    ['yui_perf_app_version', $c$check (app_version ~ '^[0-9]+(\.[0-9]+)*$')$c$],
    ['yui_perf_os', $c$check (os ~ '^[0-9]+(\.[0-9]+)*$')$c$],
    -- Model identifiers start lower case too (iPhone17,2, iPad13,4), upper case elsewhere (AppleTV5,3).
    ['yui_perf_device', $c$check (device ~ '^([A-Za-z]+[0-9]+,[0-9]+|arm64)$')$c$],
    ['yui_perf_period', 'check (period_end >= period_start)'],
    -- array_length of an empty array is null, and a null check passes: hence the coalesce.
    ['yui_perf_buckets_18',
     'check (buckets is null or (array_ndims(buckets) = 1 and coalesce(array_length(buckets, 1), 0) = 18))'],
    -- case, not and: jsonb_array_length raises on a non-array, and and has no evaluation order.
    ['yui_perf_stack_frames', $c$check (case
        when stack is null then true
        when kind <> 'diagnostic' then false
        when jsonb_typeof(stack) <> 'array' then false
        else jsonb_array_length(stack) between 1 and 100
      end)$c$],
    -- The frame rules, as the readers check them (Row+Checks.swift): every frame
    -- an object with only image, uuid and offset; image null or 1 to 1024 of letters, digits and
    -- _.+- (no terminal control can reach `top`'s output); uuid null or canonical upper-case
    -- 8-4-4-4-12; offset an integer from 0 to 2^64 - 1. Three paths: the first in strict mode, so
    -- a nested array is not unwrapped into its objects; the second in lax mode, where a missing
    -- key is an empty item for exists() rather than an error; the third reads the keys of objects
    -- only. The image's length is yui_perf_stack_images_fit's: a bounded repetition in a regular
    -- expression ({1,128}, nested or not) cost 25 to 50 microseconds a match, and made every COPY
    -- of stacks ten times slower (20,000 hang rows: 13.6 s with it, 1.5 s without).
    ['yui_perf_stack_frame_shape', $c$check (stack is null or jsonb_typeof(stack) <> 'array' or public.yui_perf_stack_images_fit(stack) and not (
        jsonb_path_exists(stack, 'strict $[*] ? (@.type() != "object")')
        or jsonb_path_exists(stack,
          'lax $[*] ? (!exists(@.offset) || @.offset.type() != "number" || @.offset < 0
                       || @.offset > 18446744073709551615 || @.offset.floor() != @.offset
                       || (exists(@.image) && @.image.type() != "null"
                           && (@.image.type() != "string"
                               || !(@.image like_regex "^[A-Za-z0-9_.+-]+$")))
                       || (exists(@.uuid) && @.uuid.type() != "null"
                           && (@.uuid.type() != "string"
                               || !(@.uuid like_regex "^[0-9A-F]{8}-[0-9A-F]{4}-[0-9A-F]{4}-[0-9A-F]{4}-[0-9A-F]{12}$"))))')
        or jsonb_path_exists(stack,
          'strict $[*] ? (@.type() == "object").keyvalue() ? (@.key != "image" && @.key != "uuid" && @.key != "offset")')
      ))$c$],
    ['yui_perf_stack_size', 'check (stack is null or octet_length(stack::text) <= 16384)'],
    ['yui_perf_crash_reason', $c$check (exception_type is null and signal is null and termination_code is null
        or kind = 'diagnostic' and name = 'crash')$c$],
    ['yui_perf_crash_reason_range', 'check (exception_type >= 0 and signal >= 0 and termination_code >= 0)'],
    -- Apple's rule for bundle identifiers; the length apart, as for images (a bounded repetition is slow).
    ['yui_perf_bundle_id', $c$check (bundle_id ~ '^[A-Za-z0-9.-]+$' and octet_length(bundle_id) <= 255)$c$]
  ];
  i int;
  existing text;
  wanted_definition text;
begin
  -- An empty table with yui_perf's columns, where each wanted check is made to be printed.
  if to_regclass('pg_temp.yui_perf_wanted_checks') is not null then
    drop table pg_temp.yui_perf_wanted_checks;
  end if;
  create temp table yui_perf_wanted_checks (like public.yui_perf);
  for i in 1 .. array_length(wanted, 1) loop
    select pg_get_constraintdef(c.oid) into existing from pg_constraint c
    where c.conrelid = 'public.yui_perf'::regclass and c.conname = wanted[i][1];
    if found then
      if wanted[i][2] like 'check %' then
        execute format('alter table pg_temp.yui_perf_wanted_checks add constraint %I %s', wanted[i][1], wanted[i][2]);
        select pg_get_constraintdef(c.oid) into wanted_definition from pg_constraint c
        where c.conrelid = 'pg_temp.yui_perf_wanted_checks'::regclass and c.conname = wanted[i][1];
        if wanted_definition is distinct from existing then
          raise notice 'yui_perf: replacing check % with this migration''s definition', wanted[i][1];
          execute format('alter table public.yui_perf drop constraint %I', wanted[i][1]);
          execute format('alter table public.yui_perf add constraint %I %s', wanted[i][1], wanted[i][2]);
        end if;
      end if;
      continue;
    end if;
    execute format('alter table public.yui_perf add constraint %I %s', wanted[i][1], wanted[i][2]);
  end loop;
  drop table pg_temp.yui_perf_wanted_checks;
end
$$;

-- The indexes the readers use (docs/scale.md, "The indexes"); each partition has its own copy.
-- A user's rows of one build, by period end: `report --db` reads the rest of a build it compares,
-- and lists the builds; `top --db --user` lists the user's builds.
create index if not exists yui_perf_user_idx on public.yui_perf(user_id, app_build, period_end);
-- A user's rows by period end: `report --db` finds the newest and reads the window's rows.
create index if not exists yui_perf_period_idx on public.yui_perf(user_id, period_end);
-- `top --db` reads the hang and crash rows of a user (and build), or of every user: about one row in
-- a hundred. Without this index it reads every row of the user (or the whole table) to find them;
-- diagnostics are the only rows it holds, so it costs nothing on the others (docs/scale.md).
create index if not exists yui_perf_diagnostic_idx on public.yui_perf(user_id, app_build)
  where kind = 'diagnostic';

alter table public.yui_perf enable row level security;

-- The phone writes its own rows and reads nothing else.
grant insert (user_id, row_key, kind, name, app_build, app_version, os, device, promotion, low_power,
              thermal, period_start, period_end, n, buckets, p50, p95, max, value, stack,
              exception_type, signal, termination_code, bundle_id)
  on public.yui_perf to yui_user;
grant select on public.yui_perf to yui_user;
drop policy if exists yui_perf_owner on public.yui_perf;
create policy yui_perf_owner on public.yui_perf for all to yui_user
  using (user_id = public.yui_uid()) with check (user_id = public.yui_uid());

-- The owner's own agents (their connector) read the numbers; nobody else's.
grant select on public.yui_perf to yui_connector;
drop policy if exists yui_perf_connector_read on public.yui_perf;
create policy yui_perf_connector_read on public.yui_perf for select to yui_connector
  using (user_id = public.yui_uid());

-- The daily retention job, where pg_cron is installed (Supabase has it; Debian's postgresql-15-cron):
-- made once, so a schedule or a keep_days changed by hand (cron.alter_job, or cron.schedule with
-- this name) is kept when this file runs again. Without pg_cron, run `payload-tool retention --db URL`
-- daily (docs/postgres.md).
do $$
begin
  -- Dynamic SQL: without the extension there is no cron.job for a static statement to name.
  if exists (select 1 from pg_extension where extname = 'pg_cron') then
    execute $q$
      select cron.schedule('yui_perf_retention', '17 3 * * *', 'select public.yui_perf_maintain()')
      where not exists (select 1 from cron.job where jobname = 'yui_perf_retention')
    $q$;
  end if;
end
$$;

commit;
