-- Moderation (DESIGN §17): report tags, reports and the review queue, posts a viewer
-- hid for themself, posts held back (auto-hidden past the community's report
-- threshold, or pending approval), and the community's moderation settings.
-- Community-keyed (DESIGN §21): community_id leads every key and every foreign key
-- between these tables; users are referenced by id without a foreign key, as users(id)
-- is not keyed by community.

-- A post held back by moderation: 'auto_hidden' (reported by enough distinct members;
-- seen by CMs only until one decides) or 'pending' (written under post_moderation: seen
-- by its author and CMs only, never placed, until a CM approves it). The visibility
-- rule reads it (lib/visibility.ts).
alter table posts add column held text check (held in ('auto_hidden', 'pending'));

create table report_tags (
	community_id integer not null references communities(id) on delete cascade,
	id bigint generated always as identity,
	-- post, comment, reply, conversation, member, chatroom
	entity_type text not null,
	name text not null,
	-- a report with this tag needs a reason ("other")
	needs_reason boolean not null default false,
	is_deleted boolean not null default false,
	created_at bigint not null,
	primary key (community_id, id)
);
create unique index report_tags_name on report_tags (community_id, entity_type, lower(name))
	where not is_deleted;

create table reports (
	community_id integer not null references communities(id) on delete cascade,
	id bigint generated always as identity,
	-- 'pending_post': the queue's handle of a post awaiting approval (filed by its author, no tag)
	entity_type text not null check (entity_type in ('post', 'comment', 'reply', 'conversation', 'member', 'chatroom', 'pending_post')),
	entity_id text not null,
	accused_user_id integer not null,
	reporter_user_id integer not null,
	tag_id bigint,
	reason text,
	created_at bigint not null,
	is_closed boolean not null default false,
	action_taken text,
	closed_by integer,
	closed_at bigint,
	primary key (community_id, id),
	foreign key (community_id, tag_id) references report_tags (community_id, id)
);
-- One open report per (reporter, entity).
create unique index reports_one_open on reports (community_id, entity_type, entity_id, reporter_user_id)
	where not is_closed;
-- The queue: newest first per community and state, and an entity's reports by id.
create index reports_queue on reports (community_id, is_closed, id desc);
create index reports_entity on reports (community_id, entity_type, entity_id, is_closed, id);

-- Posts a member does not want to see: hidden by their own hand (PUT /feed/post/:id/hide)
-- or by their own report. Read by the visibility rule and the viewer's exclusions set.
create table hidden_posts (
	community_id integer not null references communities(id) on delete cascade,
	user_id integer not null,
	post_id text not null,
	created_at bigint not null,
	primary key (community_id, user_id, post_id)
);

create table moderation_settings (
	community_id integer primary key references communities(id) on delete cascade,
	auto_hide_after_reports integer not null default 3 check (auto_hide_after_reports >= 1),
	-- which new posts wait for a CM: off, new_members (a member's first N), all
	post_moderation text not null default 'off' check (post_moderation in ('off', 'new_members', 'all')),
	post_moderation_first_n integer not null default 1 check (post_moderation_first_n >= 1),
	updated_at bigint not null
);
