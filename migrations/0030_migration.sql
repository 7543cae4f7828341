-- Migration support: the customer's own ids stored on imported rows (so a re-run of an
-- import matches instead of duplicating), Idempotency-Key answers, and import jobs.

alter table topics add column external_id text;
alter table posts add column external_id text;
alter table comments add column external_id text;
create unique index topics_external_id on topics (community_id, external_id) where external_id is not null;
create unique index posts_external_id on posts (community_id, external_id) where external_id is not null;
create unique index comments_external_id on comments (community_id, external_id) where external_id is not null;

-- One row per (caller scope, method and path, key): claimed before the handler runs
-- (status null), then holding the first answer (body sealed with SECRET_KEY: answers
-- may carry tokens) for 24 hours. The body's hash refuses a different request reusing a key.
create table idempotency_keys (
	scope text not null,
	route text not null,
	key text not null,
	fingerprint text not null,
	status integer,
	sealed_body text,
	claimed_until timestamptz not null,
	expires_at timestamptz not null,
	primary key (scope, route, key)
);
create index idempotency_keys_expiry on idempotency_keys (expires_at);

-- Bulk import jobs started over HTTP. The uploaded NDJSON is kept in chunks in Postgres
-- (a durable hand-off any worker can read), so a job interrupted by a restart is
-- claimed again once its lease expires and re-run (the import is idempotent).
create table import_jobs (
	id text primary key,
	community_id integer not null references communities(id) on delete cascade,
	created_by integer references users(id) on delete set null,
	status text not null check (status in ('receiving', 'queued', 'running', 'succeeded', 'failed')),
	bytes bigint not null default 0,
	counts jsonb not null default '{}',
	rejects jsonb not null default '[]',
	reject_count integer not null default 0,
	error text,
	attempts integer not null default 0,
	lease_until timestamptz,
	created_at bigint not null,
	updated_at bigint not null
);
-- One unfinished job per community: a second upload is a 409.
create unique index import_jobs_one_active on import_jobs (community_id)
	where status in ('receiving', 'queued', 'running');
create index import_jobs_claimable on import_jobs (lease_until) where status in ('queued', 'running');

create table import_job_chunks (
	job_id text not null references import_jobs(id) on delete cascade,
	seq integer not null,
	data bytea not null,
	primary key (job_id, seq)
);

-- topics.post_count: the per-row triggers of 0005 become per-statement ones reading the
-- transition tables, so a bulk insert of post_topics updates each topic once instead of
-- once per row. Same rule: only links of live posts count.
drop trigger post_topics_count on post_topics;
drop function topic_links_count();

create function topic_links_added() returns trigger language plpgsql as $$
begin
	update topics t set post_count = t.post_count + x.n
	from (select a.topic_id, count(*) as n from added a join posts p on p.id = a.post_id
		where not p.is_deleted group by a.topic_id) x
	where t.id = x.topic_id;
	return null;
end $$;

create function topic_links_removed() returns trigger language plpgsql as $$
begin
	update topics t set post_count = greatest(t.post_count - x.n, 0)
	from (select r.topic_id, count(*) as n from removed r
		where not coalesce((select is_deleted from posts where id = r.post_id), false)
		group by r.topic_id) x
	where t.id = x.topic_id;
	return null;
end $$;

create trigger post_topics_added after insert on post_topics
referencing new table as added for each statement execute function topic_links_added();
create trigger post_topics_removed after delete on post_topics
referencing old table as removed for each statement execute function topic_links_removed();
