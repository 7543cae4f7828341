-- Polls, their community configuration, cohorts and the cohorts attached to chatrooms
-- (chat administration, DESIGN §8). Chatrooms and conversations are 0010's tables.

-- Community configurations by type (`chat_poll` today). `value` holds only the fields a
-- CM set; defaults are filled in when read, so a default that follows another field
-- (allow_vote_change follows poll_type) stays derived until it is set explicitly.
create table community_configurations (
	community_id integer not null references communities(id) on delete cascade,
	type text not null,
	value jsonb not null default '{}',
	updated_at bigint not null,
	primary key (community_id, type)
);

-- A poll is a conversation of state 10; this row holds its rules, fixed at creation.
create table polls (
	conversation_id bigint primary key references conversations(id) on delete cascade,
	community_id integer not null references communities(id) on delete cascade,
	chatroom_id bigint not null references chatrooms(id) on delete cascade,
	creator_id integer not null references users(id) on delete cascade,
	poll_type smallint not null check (poll_type in (0, 1, 2)),
	multiple_select_state smallint not null check (multiple_select_state in (0, 1, 2)),
	multiple_select_no integer not null check (multiple_select_no >= 1),
	is_anonymous boolean not null,
	allow_add_option boolean not null,
	allow_vote_change boolean not null,
	expiry_time bigint,
	created_at bigint not null
);

create table poll_options (
	id bigserial primary key,
	conversation_id bigint not null references polls(conversation_id) on delete cascade,
	text text not null,
	member_id integer not null references users(id) on delete cascade,
	created_at bigint not null
);
-- Options are distinct within a poll whoever adds them, also under concurrent adds.
create unique index poll_options_distinct on poll_options (conversation_id, lower(btrim(text)));

-- One ballot per voter and poll: the primary key is what makes a vote race-free. A
-- submission is one upsert of this row (the chosen option ids), so concurrent
-- submissions by one voter leave exactly one of them, never a mix.
create table poll_ballots (
	conversation_id bigint not null references polls(conversation_id) on delete cascade,
	user_id integer not null references users(id) on delete cascade,
	option_ids bigint[] not null check (cardinality(option_ids) >= 1),
	submitted_at bigint not null,
	primary key (conversation_id, user_id)
);
create index poll_ballots_options on poll_ballots using gin (option_ids);

create table cohorts (
	id serial primary key,
	community_id integer not null references communities(id) on delete cascade,
	name text not null,
	created_at bigint not null,
	updated_at bigint not null
);
create index cohorts_community on cohorts (community_id, id);

create table cohort_members (
	cohort_id integer not null references cohorts(id) on delete cascade,
	user_id integer not null references users(id) on delete cascade,
	added_at bigint not null,
	primary key (cohort_id, user_id)
);
create index cohort_members_user on cohort_members (user_id);

-- A cohort attached to a chatroom, with the access its members get: 2 full (join and
-- post), 1 restricted (see and read, not post), 0 none. A member's access to a room is
-- the best over the attached cohorts they belong to, read at request time, so members
-- added to an attached cohort later gain it at once.
create table chatroom_cohorts (
	chatroom_id bigint not null references chatrooms(id) on delete cascade,
	cohort_id integer not null references cohorts(id) on delete cascade,
	cohort_access smallint not null default 2 check (cohort_access in (0, 1, 2)),
	created_at bigint not null,
	primary key (chatroom_id, cohort_id)
);
create index chatroom_cohorts_cohort on chatroom_cohorts (cohort_id);
