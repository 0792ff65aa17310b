-- db/yui_perf.sql as it was before the table was partitioned by week (commit cf424e8): a plain table, no partitions. The
-- partition tests make a table with it and check that the current migration moves its rows.
-- The yui_perf table as the app defines it (docs/design.md, "Rows"; docs/postgres.md), with the checks
-- the app added later (on app_version, os, device, buckets and stack; row_key, unique with user_id).
--
-- Runs on Supabase as it is (yui_users, the roles yui_user and yui_connector and yui_uid() exist
-- there). On a bare database run db/bare_database.sql first. Safe to run again, and it brings a
-- table made by the app's earlier migrations (real columns, no row_key, unnamed checks) up to this
-- one without losing rows.
--
-- Differences from the seed, on purpose:
-- * p50, p95, max and value are double precision, not real: the rows `payload-tool rows` writes
--   carry doubles, and `load` followed by a read gives back exactly those numbers only if the
--   column keeps every bit (0.1 stored as real reads back as 0.100000001490116).
-- * every check has a name, so a refused row's error message says which rule it broke.
-- * the 500-rows-a-day trigger is not here: it belongs with yui_limits in the app's migrations,
--   and a bulk `load` of old dumps is exactly what it would wrongly drop.

create table if not exists public.yui_perf (
  id           bigint generated always as identity primary key,
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
  created_at   timestamptz not null default now()
);

-- A table from the app's earlier migrations: add what it lacks, widen the reals.
alter table public.yui_perf add column if not exists row_key uuid;
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
end
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
    ['yui_perf_user_row_key', 'unique (user_id, row_key)'],
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
    -- The frame rules (a frame holds only image, uuid and offset), as the readers check them (Row+Checks.swift): every frame
    -- an object with only image, uuid and offset; image null or 1 to 1024 of letters, digits and
    -- _.+- (no terminal control can reach `top`'s output); uuid null or canonical upper-case
    -- 8-4-4-4-12; offset an integer from 0 to 2^64 - 1. Three paths: the first in strict mode, so
    -- a nested array is not unwrapped into its objects; the second in lax mode, where a missing
    -- key is an empty item for exists() rather than an error; the third reads the keys of objects
    -- only. PostgreSQL's regular expressions take bounds up to 255, hence 1 to 8 runs of 1 to 128.
    ['yui_perf_stack_frame_shape', $c$check (stack is null or jsonb_typeof(stack) <> 'array' or not (
        jsonb_path_exists(stack, 'strict $[*] ? (@.type() != "object")')
        or jsonb_path_exists(stack,
          'lax $[*] ? (!exists(@.offset) || @.offset.type() != "number" || @.offset < 0
                       || @.offset > 18446744073709551615 || @.offset.floor() != @.offset
                       || (exists(@.image) && @.image.type() != "null"
                           && (@.image.type() != "string"
                               || !(@.image like_regex "^(?:[A-Za-z0-9_.+-]{1,128}){1,8}$")))
                       || (exists(@.uuid) && @.uuid.type() != "null"
                           && (@.uuid.type() != "string"
                               || !(@.uuid like_regex "^[0-9A-F]{8}-[0-9A-F]{4}-[0-9A-F]{4}-[0-9A-F]{4}-[0-9A-F]{12}$"))))')
        or jsonb_path_exists(stack,
          'strict $[*] ? (@.type() == "object").keyvalue() ? (@.key != "image" && @.key != "uuid" && @.key != "offset")')
      ))$c$],
    ['yui_perf_stack_size', 'check (stack is null or octet_length(stack::text) <= 16384)']
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
    -- The app's earlier migrations made the key and the owner under other names
    -- (yui_perf_user_id_fkey, yui_perf_user_id_row_key_key, ...): a second copy would only cost.
    if wanted[i][1] = 'yui_perf_user_fk' and exists (
      select 1 from pg_constraint
      where conrelid = 'public.yui_perf'::regclass and contype = 'f'
        and confrelid = 'public.yui_users'::regclass
        and conkey = array[(select attnum from pg_attribute
                            where attrelid = 'public.yui_perf'::regclass and attname = 'user_id')]
    ) then
      continue;
    end if;
    if wanted[i][1] = 'yui_perf_user_row_key' and exists (
      select 1 from pg_index x
      where x.indrelid = 'public.yui_perf'::regclass and x.indisunique and x.indpred is null
        and (select array_agg(a.attname::text order by k.ord)
             from unnest(x.indkey::int2[]) with ordinality as k(attnum, ord)
             join pg_attribute a on a.attrelid = x.indrelid and a.attnum = k.attnum)
            = array['user_id', 'row_key']
    ) then
      continue;
    end if;
    if true then
      execute format('alter table public.yui_perf add constraint %I %s', wanted[i][1], wanted[i][2]);
    end if;
  end loop;
  drop table pg_temp.yui_perf_wanted_checks;
end
$$;

create index if not exists yui_perf_user_idx on public.yui_perf(user_id, app_build, name);
-- `top --db` reads the hang and crash rows of a user (and build), or of every user: about one row in
-- a hundred. Without this index it reads every row of the user (or the whole table) to find them;
-- diagnostics are the only rows it holds, so it costs nothing on the others (docs/scale.md).
create index if not exists yui_perf_diagnostic_idx on public.yui_perf(user_id, app_build)
  where kind = 'diagnostic';

alter table public.yui_perf enable row level security;

-- The phone writes its own rows and reads nothing else.
grant insert (user_id, row_key, kind, name, app_build, app_version, os, device, promotion, low_power,
              thermal, period_start, period_end, n, buckets, p50, p95, max, value, stack)
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
