-- Notification feed, devices and push deliveries (DESIGN section 9). Times are epoch ms.

-- One row per activity group: (recipient, action, group_key) while unread. Grouped
-- actions use the entity id as group_key; custom activities use their own id, so each
-- stays alone. `actor_ids` lists the actors, latest last. post_id / comment_id tie an
-- activity to the content it is about, so deleting that content takes it along.
create table activities (
	id text primary key,
	community_id integer not null references communities(id) on delete cascade,
	recipient_id integer not null references users(id) on delete cascade,
	action smallint not null,
	entity_type smallint not null,
	entity_id text not null,
	group_key text not null,
	post_id text references posts(id) on delete cascade,
	comment_id text references comments(id) on delete cascade,
	actor_ids integer[] not null,
	custom_text text,
	is_read boolean not null default false,
	created_at bigint not null,
	updated_at bigint not null
);
create unique index activities_open_group on activities (recipient_id, action, group_key) where not is_read;
create index activities_feed on activities (recipient_id, updated_at desc, id desc);
create index activities_unread on activities (recipient_id) where not is_read;
create index activities_post on activities (post_id) where post_id is not null;
create index activities_comment on activities (comment_id) where comment_id is not null;

-- One push token per device; registering a device again moves it to the new user.
create table devices (
	community_id integer not null references communities(id) on delete cascade,
	device_id text not null,
	user_id integer not null references users(id) on delete cascade,
	token text not null,
	platform text not null,
	created_at bigint not null,
	updated_at bigint not null,
	primary key (community_id, device_id)
);
create index devices_user on devices (user_id);

-- The push outbox: one row per (activity, actor, device), written in the transaction
-- of the activity, so "at most one push per new actor and device" is a unique index.
-- status: pending (waiting), sending (handed to the provider by a worker; never sent
-- again: a worker killed mid-send leaves it `unknown`, not resent), sent, failed
-- (permanent error or tries exhausted), discarded (device moved or token gone).
create table push_deliveries (
	id text primary key default plaza_new_id(),
	community_id integer not null references communities(id) on delete cascade,
	activity_id text references activities(id) on delete cascade,
	conversation_id text,
	actor_id integer not null default 0,
	device_id text not null,
	recipient_id integer not null,
	-- the message's data (title, sub_title, route, category), the same for every device
	payload jsonb not null,
	status text not null default 'pending'
		check (status in ('pending', 'sending', 'sent', 'failed', 'unknown', 'discarded')),
	attempt integer not null default 0,
	due_at bigint not null,
	queued boolean not null default false,
	error text,
	created_at bigint not null,
	updated_at bigint not null
);
create unique index push_once_per_activity on push_deliveries (activity_id, actor_id, device_id)
	where activity_id is not null;
create unique index push_once_per_conversation on push_deliveries (conversation_id, device_id)
	where conversation_id is not null;
create index push_unqueued on push_deliveries (id) where status = 'pending' and not queued;
create index push_open on push_deliveries (id) where status in ('pending', 'sending');

-- The provider refused the stored credentials (THIRD_PARTY_AUTH_ERROR); cleared when
-- a new file is stored.
alter table push_credentials add column failing_reason text, add column failing_since bigint;
