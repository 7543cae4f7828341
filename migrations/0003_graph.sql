-- The social graph: blocks (more of the graph is added by the connections work).

create table blocks (
	community_id integer not null references communities(id) on delete cascade,
	blocker_id integer not null references users(id) on delete cascade,
	blocked_id integer not null references users(id) on delete cascade,
	created_at timestamptz not null default now(),
	primary key (blocker_id, blocked_id)
);
create index blocks_blocked on blocks (blocked_id);

-- Feature toggles per community, upserted by setting_type (user_connection is off
-- until a CM enables it: no row means disabled).
create table community_settings (
	community_id integer not null references communities(id) on delete cascade,
	setting_type text not null,
	enabled boolean not null default false,
	setting_title text not null default '',
	setting_sub_title text not null default '',
	updated_at bigint not null,
	primary key (community_id, setting_type)
);

-- Default notification state of conversations (1 all, 2 mentions and replies,
-- 3 direct messages, mentions and polls). No row means 1.
create table community_notification_settings (
	community_id integer primary key references communities(id) on delete cascade,
	noti_state smallint not null check (noti_state between 1 and 3),
	updated_at bigint not null
);

-- A request from request_by to request_to, waiting for request_to's answer.
create table connection_requests (
	community_id integer not null references communities(id) on delete cascade,
	request_by integer not null references users(id) on delete cascade,
	request_to integer not null references users(id) on delete cascade,
	connection_type text not null check (connection_type in ('two_way', 'one_way')),
	created_at bigint not null,
	updated_at bigint not null,
	primary key (request_by, request_to),
	check (request_by <> request_to)
);
create index connection_requests_to on connection_requests (request_to, created_at desc);

-- One row per direction: user_id sees connection_id's posts in the connection feed.
-- A two_way connection is two rows, a one_way connection one (requester → target).
create table connections (
	community_id integer not null references communities(id) on delete cascade,
	user_id integer not null references users(id) on delete cascade,
	connection_id integer not null references users(id) on delete cascade,
	connection_type text not null check (connection_type in ('two_way', 'one_way')),
	created_at bigint not null,
	primary key (user_id, connection_id),
	check (user_id <> connection_id)
);
-- Fan-out reads the followers of an author in user_id order (keyset batches).
create index connections_followers on connections (connection_id, user_id);

-- Durable fan-out jobs: written in the transaction that creates or deletes a post,
-- claimed by a worker with a lease, resumed from `cursor` (the last follower id done)
-- after a crash. Redis ZADD/ZREM are idempotent, so a replayed batch adds nothing twice.
create table fanout_jobs (
	id bigserial primary key,
	community_id integer not null references communities(id) on delete cascade,
	kind text not null check (kind in ('add', 'remove')),
	post_id text not null,
	author_id integer not null,
	score bigint not null,
	cursor integer not null default 0,
	attempts integer not null default 0,
	lease_until timestamptz,
	last_error text,
	done_at timestamptz,
	created_at timestamptz not null default now()
);
create index fanout_jobs_pending on fanout_jobs (id) where done_at is null;

-- Feed activity of a user: when the feeds were last read (for the 24-hour recompute
-- job and the 7-day fan-out cut-off) and when the personalised feed was last ranked.
create table feed_activity (
	user_id integer primary key references users(id) on delete cascade,
	community_id integer not null references communities(id) on delete cascade,
	last_read_at bigint not null,
	recomputed_at bigint
);
create index feed_activity_recent on feed_activity (last_read_at);
