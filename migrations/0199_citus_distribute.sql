-- DESIGN §21: on a Citus coordinator (the `citus` extension is present), the global
-- tables become reference tables (a copy on every node) and every tenant table is
-- distributed by community_id, all co-located with users, so a statement that names
-- one community runs on one shard. On plain Postgres this migration does nothing.
-- It runs once, on the tables as the migrations before it left them: a table added later
-- is distributed by its own migration.
do $$
declare
	remaining text[];
	fks text[];
	fk text;
	ready text[];
	tbl text;
	remaining_triggers text;
begin
	if not exists (select 1 from pg_extension where extname = 'citus') then
		return;
	end if;
	-- Citus refuses to distribute a table with triggers; those that wrote other tables
	-- are statements since 0195, the fill triggers of 0190 go below.
	select string_agg(tgname, ', ') into remaining_triggers from pg_trigger t join pg_class c on c.oid = t.tgrelid
	where c.relnamespace = 'public'::regnamespace and not t.tgisinternal
		and t.tgname not like '%\_fill\_community\_id';
	if remaining_triggers is not null then
		raise exception 'triggers left on tenant tables: %', remaining_triggers;
	end if;
	-- Foreign keys from and to a distributed table are created in one go with the
	-- table; one connection per worker keeps that legal inside this transaction.
	set local citus.multi_shard_modify_mode to 'sequential';

	-- Citus refuses a foreign key from a local table to a distributed one: the keys
	-- between tenant tables are set aside, the tables distributed, the keys put back.
	select array_agg(format('alter table %s add constraint %I %s', conrelid::regclass, conname,
		pg_get_constraintdef(oid))) into fks
	from pg_constraint where contype = 'f' and connamespace = 'public'::regnamespace
;
	for fk in select format('alter table %s drop constraint %I', conrelid::regclass, conname)
		from pg_constraint where contype = 'f' and connamespace = 'public'::regnamespace
	loop
		execute fk;
	end loop;
	perform create_reference_table('projects');
	perform create_reference_table('communities');
	perform create_reference_table('push_credentials');
	-- Global but written on every idempotent POST: spread by its own key instead.
	perform create_distributed_table('idempotency_keys', 'scope', colocate_with => 'none');

	-- The transitional triggers of 0190 read a parent table: not on a shard.
	for tbl in
		select tgrelid::regclass::text from pg_trigger where tgname like '%\_fill\_community\_id'
	loop
		execute format('drop trigger %I on %I', tbl || '_fill_community_id', tbl);
	end loop;

	-- Known gap (test/architecture/tenancy.test.ts): a shard cannot hold a unique index
	-- across communities; until the owner's phone moves to a reference table, it is
	-- unique per community on Citus (projects/service.ts still answers the duplicate).
	drop index users_owner_mobile;
	create unique index users_owner_mobile on users (community_id, country_code, mobile_no)
		where role = 'owner';
	perform create_distributed_table('users', 'community_id', colocate_with => 'none');

	-- Every other tenant table, parents before children (a foreign key must point at a
	-- table that is already distributed or a reference table).
	select array_agg(c.relname::text order by c.relname) into remaining
	from pg_class c
	where c.relnamespace = 'public'::regnamespace and c.relkind = 'r' and c.relname <> 'users'
		and exists (select 1 from pg_attribute where attrelid = c.oid and attname = 'community_id');
	while cardinality(remaining) > 0 loop
		select array_agg(t) into ready from unnest(remaining) t
		where not exists (
			select 1 from pg_constraint k
			where k.contype = 'f' and k.conrelid = t::regclass and k.confrelid <> k.conrelid
				and k.confrelid::regclass::text = any(remaining));
		if ready is null then
			raise exception 'tenant tables with circular foreign keys: %', remaining;
		end if;
		foreach tbl in array ready loop
			perform create_distributed_table(tbl, 'community_id', colocate_with => 'users');
		end loop;
		remaining := array(select t from unnest(remaining) t where t <> all(ready));
	end loop;
	-- Citus refuses ON DELETE SET NULL / SET DEFAULT in a key that holds the distribution
	-- column (widgets, chatrooms and import_jobs created_by, conversations deleted_by and
	-- replied_conversation_id): those keys come back without the action. Nothing in src/
	-- hard-deletes users or conversations (a community's deletion removes both sides in
	-- one statement), so only a statement that someday does must clear the column first.
	foreach fk in array coalesce(fks, '{}') loop
		execute regexp_replace(fk, ' ON DELETE SET (NULL|DEFAULT)( \([^)]*\))?', '');
	end loop;
end $$;
