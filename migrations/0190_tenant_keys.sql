-- DESIGN §21: every tenant table carries community_id, and it leads every primary key,
-- unique index and foreign key between tenant tables, so Citus can distribute them all
-- by community_id (co-located) and check every key on one shard. Written for a live
-- database: add the column, backfill it from the parent, then swap the constraints.
-- Runs after every other migration (0190+), and rekeys whatever they left unkeyed.

-- 1. community_id on the 16 tables that lacked it, backfilled from their parent.
alter table post_topics add column community_id integer;
alter table post_widgets add column community_id integer;
alter table post_tags add column community_id integer;
alter table post_likes add column community_id integer;
alter table post_saves add column community_id integer;
alter table post_views add column community_id integer;
alter table comment_likes add column community_id integer;
alter table comment_tags add column community_id integer;
alter table conversation_tags add column community_id integer;
alter table poll_options add column community_id integer;
alter table poll_ballots add column community_id integer;
alter table cohort_members add column community_id integer;
alter table chatroom_cohorts add column community_id integer;
alter table refresh_tokens add column community_id integer;
alter table webhook_attempts add column community_id integer;
alter table import_job_chunks add column community_id integer;

update post_topics c set community_id = p.community_id from posts p where p.id = c.post_id;
update post_widgets c set community_id = p.community_id from posts p where p.id = c.post_id;
update post_tags c set community_id = p.community_id from posts p where p.id = c.post_id;
update post_likes c set community_id = p.community_id from posts p where p.id = c.post_id;
update post_saves c set community_id = p.community_id from posts p where p.id = c.post_id;
update post_views c set community_id = p.community_id from posts p where p.id = c.post_id;
update comment_likes c set community_id = p.community_id from comments p where p.id = c.comment_id;
update comment_tags c set community_id = p.community_id from comments p where p.id = c.comment_id;
update conversation_tags c set community_id = p.community_id
	from conversations p where p.id = c.conversation_id;
update poll_options c set community_id = p.community_id from polls p where p.conversation_id = c.conversation_id;
update poll_ballots c set community_id = p.community_id from polls p where p.conversation_id = c.conversation_id;
update cohort_members c set community_id = p.community_id from cohorts p where p.id = c.cohort_id;
update chatroom_cohorts c set community_id = p.community_id from chatrooms p where p.id = c.chatroom_id;
update refresh_tokens c set community_id = p.community_id from users p where p.id = c.user_id;
update webhook_attempts c set community_id = p.community_id
	from webhook_deliveries p where p.id = c.delivery_id;
update import_job_chunks c set community_id = p.community_id from import_jobs p where p.id = c.job_id;

-- Transitional, plain Postgres only: until every insert names community_id (the
-- statements' half of DESIGN §21), a row without it takes its parent's. Dropped on Citus
-- (scripts/citus), where a trigger reading another table cannot run on a shard. One
-- function per table with static SQL: its plan is cached on each connection and finds
-- the parent through the index kept on its old key (below), so a like or a topic link
-- pays one index lookup (a generic function with EXECUTE planned every row), and an
-- insert that names the community does not call it (the trigger's WHEN).
do $$
declare
	-- child table, parent table, child column, parent column
	link text[];
begin
	foreach link slice 1 in array array[
		['post_topics', 'posts', 'post_id', 'id'],
		['post_widgets', 'posts', 'post_id', 'id'],
		['post_tags', 'posts', 'post_id', 'id'],
		['post_likes', 'posts', 'post_id', 'id'],
		['post_saves', 'posts', 'post_id', 'id'],
		['post_views', 'posts', 'post_id', 'id'],
		['comment_likes', 'comments', 'comment_id', 'id'],
		['comment_tags', 'comments', 'comment_id', 'id'],
		['conversation_tags', 'conversations', 'conversation_id', 'id'],
		['poll_options', 'polls', 'conversation_id', 'conversation_id'],
		['poll_ballots', 'polls', 'conversation_id', 'conversation_id'],
		['cohort_members', 'cohorts', 'cohort_id', 'id'],
		['chatroom_cohorts', 'chatrooms', 'chatroom_id', 'id'],
		['refresh_tokens', 'users', 'user_id', 'id'],
		['webhook_attempts', 'webhook_deliveries', 'delivery_id', 'id'],
		['import_job_chunks', 'import_jobs', 'job_id', 'id']
	] loop
		execute format(
			$f$create function %1$I() returns trigger language plpgsql as $b$
			begin
				if new.community_id is null then
					select p.community_id into new.community_id from %2$I p where p.%3$I = new.%4$I;
				end if;
				return new;
			end $b$ $f$,
			link[1] || '_fill_community_id', link[2], link[4], link[3]);
		execute format(
			'create trigger %1$I before insert on %2$I for each row when (new.community_id is null) execute function %1$I()',
			link[1] || '_fill_community_id', link[1]);
		-- Also under the import's session_replication_role = replica.
		execute format('alter table %I enable always trigger %I', link[1], link[1] || '_fill_community_id');
		-- No foreign key of its own to communities: the parent's, rebuilt below as
		-- (community_id, parent) with its cascade, already proves and removes it, and one
		-- more key check would lock the community's row on every like and link.
		execute format('alter table %I alter column community_id set not null', link[1]);
	end loop;
end $$;

-- 2. community_id first in every primary key, unique index and foreign key between
-- tenant tables (a tenant table: one with a community_id column). Foreign keys go
-- first (they hang on the parents' keys), then keys are rebuilt, then foreign keys.
create temporary table tenant_fks on commit drop as
select k.conname, k.conrelid::regclass as child, k.confrelid::regclass as parent,
	array(select a.attname::text from unnest(k.conkey) with ordinality u(n, i)
		join pg_attribute a on a.attrelid = k.conrelid and a.attnum = u.n order by u.i) as cols,
	array(select a.attname::text from unnest(k.confkey) with ordinality u(n, i)
		join pg_attribute a on a.attrelid = k.confrelid and a.attnum = u.n order by u.i) as refcols,
	k.confdeltype, k.confupdtype, k.condeferrable, k.condeferred
from pg_constraint k
where k.contype = 'f'
	and k.connamespace = 'public'::regnamespace
	and exists (select 1 from pg_attribute where attrelid = k.conrelid and attname = 'community_id')
	and exists (select 1 from pg_attribute where attrelid = k.confrelid and attname = 'community_id')
	and (select attname from pg_attribute where attrelid = k.conrelid and attnum = k.conkey[1]) <> 'community_id';

do $$
declare
	fk record;
	key record;
	idx record;
	cols text[];
	refcols text[];
	action text;
begin
	for fk in select * from tenant_fks loop
		execute format('alter table %s drop constraint %I', fk.child, fk.conname);
	end loop;

	-- Primary keys and unique constraints.
	for key in
		select k.conname, k.conrelid::regclass as tbl, k.contype,
			array(select a.attname::text from unnest(k.conkey) with ordinality u(n, i)
				join pg_attribute a on a.attrelid = k.conrelid and a.attnum = u.n order by u.i) as cols,
			k.conkey as attnums
		from pg_constraint k
		where k.contype in ('p', 'u') and k.connamespace = 'public'::regnamespace
			and exists (select 1 from pg_attribute where attrelid = k.conrelid and attname = 'community_id')
			and (select attname from pg_attribute where attrelid = k.conrelid and attnum = k.conkey[1]) <> 'community_id'
	loop
		cols := array['community_id'] || array_remove(key.cols, 'community_id');
		execute format('alter table %s drop constraint %I', key.tbl, key.conname);
		execute format('alter table %s add constraint %I %s (%s)', key.tbl, key.conname,
			case key.contype when 'p' then 'primary key' else 'unique' end,
			(select string_agg(quote_ident(c), ', ') from unnest(cols) c));
		-- The old key stays as a plain index (<table>_<columns>_idx): most statements still
		-- find a row by id, or by (post_id, user_id), without community_id, and foreign
		-- keys' checks from tables not yet keyed use it too. Not unique: Citus allows a
		-- unique index only with the distribution column; the new key and the id
		-- sequences keep the rows unique. Skipped where another index already starts
		-- with these columns.
		if not exists (
			select 1 from pg_index x
			where x.indrelid = key.tbl and x.indpred is null and x.indexprs is null
				and (x.indkey::int2[])[0:cardinality(key.attnums) - 1] = key.attnums
		) then
			execute format('create index on %s (%s)', key.tbl,
				(select string_agg(quote_ident(c), ', ') from unnest(key.cols) c));
		end if;
	end loop;

	-- Unique indexes that are not constraints (partial, on expressions), but the
	-- owner's phone number (global on purpose: test/architecture/tenancy.test.ts).
	for idx in
		select i.relname as name, pg_get_indexdef(x.indexrelid) as def
		from pg_index x
		join pg_class i on i.oid = x.indexrelid
		join pg_class c on c.oid = x.indrelid
		where x.indisunique and c.relnamespace = 'public'::regnamespace
			and not exists (select 1 from pg_constraint where conindid = x.indexrelid)
			and exists (select 1 from pg_attribute where attrelid = c.oid and attname = 'community_id')
			and (x.indkey[0] = 0 or (select attname from pg_attribute
				where attrelid = c.oid and attnum = x.indkey[0]) <> 'community_id')
			and i.relname <> 'users_owner_mobile'
	loop
		execute format('drop index %I', idx.name);
		execute regexp_replace(idx.def, 'USING (\w+) \(', 'USING \1 (community_id, ');
	end loop;

	for fk in select * from tenant_fks loop
		cols := array['community_id'];
		refcols := array['community_id'];
		for i in 1 .. cardinality(fk.cols) loop
			if fk.cols[i] <> 'community_id' then
				cols := cols || fk.cols[i];
				refcols := refcols || fk.refcols[i];
			end if;
		end loop;
		-- SET NULL / SET DEFAULT touch the referencing columns only, never community_id.
		action := case fk.confdeltype
			when 'c' then 'cascade'
			when 'r' then 'restrict'
			when 'n' then format('set null (%s)', (select string_agg(quote_ident(c), ', ') from unnest(cols[2:]) c))
			when 'd' then format('set default (%s)', (select string_agg(quote_ident(c), ', ') from unnest(cols[2:]) c))
			else 'no action' end;
		execute format('alter table %s add constraint %I foreign key (%s) references %s (%s) on delete %s on update %s %s',
			fk.child, fk.conname,
			(select string_agg(quote_ident(c), ', ') from unnest(cols) c),
			fk.parent,
			(select string_agg(quote_ident(c), ', ') from unnest(refcols) c),
			action,
			case fk.confupdtype when 'c' then 'cascade' when 'r' then 'restrict' else 'no action' end,
			case when fk.condeferrable then
				case when fk.condeferred then 'deferrable initially deferred' else 'deferrable' end
			else '' end);
	end loop;
end $$;
