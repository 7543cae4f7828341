-- Content: topics, widgets, posts and their engagement. Times are epoch milliseconds
-- (bigint) because that is what the API speaks and what feeds are scored by.

create table topics (
	id text primary key,
	community_id integer not null references communities(id) on delete cascade,
	name text not null,
	priority double precision not null default 0,
	is_searchable boolean not null default true,
	parent_id text references topics(id) on delete cascade,
	level integer not null default 0,
	is_enabled boolean not null default true,
	metadata jsonb not null default '{}',
	post_count integer not null default 0,
	created_at bigint not null,
	updated_at bigint not null
);
create unique index topics_name_per_parent on topics (community_id, coalesce(parent_id, ''), lower(name));
create index topics_parent on topics (parent_id);

create table widgets (
	id text primary key,
	community_id integer not null references communities(id) on delete cascade,
	parent_entity_id text,
	parent_entity_type text,
	company_id text,
	metadata jsonb not null default '{}',
	meta jsonb,
	created_at bigint not null,
	updated_at bigint not null
);
-- One widget per company per community, enforced here rather than in code.
create unique index widgets_company on widgets (community_id, company_id) where company_id is not null;

create table posts (
	id text primary key,
	community_id integer not null references communities(id) on delete cascade,
	user_id integer not null references users(id) on delete cascade,
	heading text not null default '',
	text text not null default '',
	attachments jsonb not null default '[]',
	visibility text not null default 'public' check (visibility in ('public', 'connections', 'private')),
	is_pinned boolean not null default false,
	is_edited boolean not null default false,
	is_deleted boolean not null default false,
	deleted_by integer references users(id),
	delete_reason text,
	likes_count integer not null default 0,
	comments_count integer not null default 0,
	post_shared_count integer not null default 0,
	impressions_count bigint not null default 0,
	reach_count integer not null default 0,
	created_at bigint not null,
	updated_at bigint not null
);
create index posts_feed on posts (community_id, created_at desc) where not is_deleted;
create index posts_author on posts (user_id, created_at desc) where not is_deleted;

create table post_topics (
	post_id text not null references posts(id) on delete cascade,
	topic_id text not null references topics(id) on delete cascade,
	primary key (post_id, topic_id)
);
create index post_topics_topic on post_topics (topic_id);

create table post_widgets (
	post_id text not null references posts(id) on delete cascade,
	widget_id text not null references widgets(id) on delete cascade,
	primary key (post_id, widget_id)
);
create index post_widgets_widget on post_widgets (widget_id);

-- Users tagged in a post text (<<Name|route://member/<uuid>>>).
create table post_tags (
	post_id text not null references posts(id) on delete cascade,
	user_id integer not null references users(id) on delete cascade,
	primary key (post_id, user_id)
);

create table post_likes (
	post_id text not null references posts(id) on delete cascade,
	user_id integer not null references users(id) on delete cascade,
	created_at bigint not null,
	primary key (post_id, user_id)
);
create index post_likes_user on post_likes (user_id);

create table post_saves (
	post_id text not null references posts(id) on delete cascade,
	user_id integer not null references users(id) on delete cascade,
	created_at bigint not null,
	primary key (post_id, user_id)
);
create index post_saves_user on post_saves (user_id, created_at desc);

-- One row per (post, viewer): the exact unique-viewer count behind reach_count.
create table post_views (
	post_id text not null references posts(id) on delete cascade,
	user_id integer not null references users(id) on delete cascade,
	first_seen_at bigint not null,
	primary key (post_id, user_id)
);

create table comments (
	id text primary key,
	community_id integer not null references communities(id) on delete cascade,
	post_id text not null references posts(id) on delete cascade,
	user_id integer not null references users(id) on delete cascade,
	parent_id text references comments(id) on delete cascade,
	level integer not null default 1,
	text text not null,
	temp_id text,
	likes_count integer not null default 0,
	comments_count integer not null default 0,
	is_edited boolean not null default false,
	is_deleted boolean not null default false,
	deleted_by integer references users(id),
	delete_reason text,
	created_at bigint not null,
	updated_at bigint not null
);
create index comments_post on comments (post_id, created_at) where parent_id is null;
create index comments_parent on comments (parent_id, created_at);

create table comment_likes (
	comment_id text not null references comments(id) on delete cascade,
	user_id integer not null references users(id) on delete cascade,
	created_at bigint not null,
	primary key (comment_id, user_id)
);

create table comment_tags (
	comment_id text not null references comments(id) on delete cascade,
	user_id integer not null references users(id) on delete cascade,
	primary key (comment_id, user_id)
);
