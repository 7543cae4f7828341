-- Feed polls (DESIGN §19): a post whose attachment is a poll. The poll is a widget of
-- the post (so post answers carry it under `widgets`, where feed-js looks for it); its
-- rules, options and ballots live here, with the meaning of the chat poll's (0011's
-- polls, poll_options, poll_ballots) and checked by the same rules (modules/polls).
-- Community-keyed (DESIGN §21): community_id leads every key and every foreign key
-- between these tables; users are referenced by id without a foreign key, as users(id)
-- is not keyed by community (a key that Citus could not keep across shards).

create table feed_polls (
	community_id integer not null references communities(id) on delete cascade,
	-- the widget's id (24 hex), the poll id clients send to /poll/:id
	id text not null,
	post_id text not null,
	creator_id integer not null,
	question text not null,
	poll_type smallint not null check (poll_type in (0, 1, 2)),
	multiple_select_state smallint not null check (multiple_select_state in (0, 1, 2)),
	multiple_select_no integer not null check (multiple_select_no >= 1),
	is_anonymous boolean not null,
	allow_add_option boolean not null,
	allow_vote_change boolean not null,
	expiry_time bigint,
	created_at bigint not null,
	primary key (community_id, id)
);
create index feed_polls_post on feed_polls (community_id, post_id);

create table feed_poll_options (
	community_id integer not null,
	id bigint generated always as identity,
	poll_id text not null,
	text text not null,
	member_id integer not null,
	created_at bigint not null,
	primary key (community_id, id),
	foreign key (community_id, poll_id) references feed_polls (community_id, id) on delete cascade
);
-- Options are distinct within a poll whoever adds them, also under concurrent adds.
create unique index feed_poll_options_distinct
	on feed_poll_options (community_id, poll_id, lower(btrim(text)));

-- One ballot per voter and poll: the key makes a vote race-free (one upsert of this row).
create table feed_poll_ballots (
	community_id integer not null,
	poll_id text not null,
	user_id integer not null,
	option_ids bigint[] not null check (cardinality(option_ids) >= 1),
	submitted_at bigint not null,
	primary key (community_id, poll_id, user_id),
	foreign key (community_id, poll_id) references feed_polls (community_id, id) on delete cascade
);
create index feed_poll_ballots_options on feed_poll_ballots using gin (option_ids);
