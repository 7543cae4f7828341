-- Posts whose Redis placement (the post cache and the community's sorted sets) is not
-- yet confirmed. A post write upserts its mark in its own transaction; the process
-- that wrote deletes the mark once Redis took the write (in batches, off the request
-- path); the reconciler re-places only posts whose mark outlived a grace period. A
-- reconcile pass therefore costs what failed, not what was written (issue 17).
-- `mark` tells a newer write from an older one: a confirmation deletes only its own.
-- The former topic and widget ids accumulate until confirmed, so a repair also takes
-- the post out of every set an unconfirmed edit left.
create sequence feed_mark_seq;

create table feed_marks (
	post_id text primary key references posts(id) on delete cascade,
	community_id integer not null,
	mark bigint not null default nextval('feed_mark_seq'),
	former_topic_ids text[] not null default '{}',
	former_widget_ids text[] not null default '{}',
	marked_at timestamptz not null default now()
);

create index feed_marks_marked_at on feed_marks (marked_at);
