-- Chat: chatrooms, their participants and their conversations (messages, system
-- joined/left lines and polls). Ids are bigint identities because clients read
-- chatroom and conversation ids as decimal strings. Times are epoch milliseconds.
-- Polls (state 10) keep their settings and options in the polls tables (0011); the
-- cohort links of a chatroom live in the cohorts tables.

create table chatrooms (
	id bigint generated always as identity primary key,
	community_id integer not null references communities(id) on delete cascade,
	title text not null,
	header text not null default '',
	chatroom_image_url text not null default '',
	-- 0 normal, 7 announcement (only CMs post)
	type smallint not null default 0 check (type in (0, 7)),
	is_secret boolean not null default false,
	created_by integer references users(id) on delete set null,
	participants_count integer not null default 0,
	-- counted conversations (messages and polls, not joined/left lines); a member's
	-- unread count is this minus what they had read, minus their own since then
	messages_count bigint not null default 0,
	last_conversation_id bigint,
	-- bumped by every write to the room's conversations: the newest page cached in
	-- Redis is keyed by it, so a read that sees a newer version never gets an old page
	version bigint not null default 0,
	is_deleted boolean not null default false,
	created_at bigint not null,
	updated_at bigint not null
);
create index chatrooms_community on chatrooms (community_id, id desc) where not is_deleted;

-- One row per member seated in a room. `join_method` says how (self_joined, cm_added,
-- cohort_chatroom_added): detaching a cohort removes only the participants it seated
-- that no other attached cohort covers. The read mark is the newest conversation the
-- member has read and `read_count` the room's messages_count at that conversation;
-- `own_unread` counts the member's own messages after the mark (never unread to them).
create table chatroom_participants (
	chatroom_id bigint not null references chatrooms(id) on delete cascade,
	user_id integer not null references users(id) on delete cascade,
	community_id integer not null references communities(id) on delete cascade,
	join_method text not null check (join_method in ('self_joined', 'cm_added', 'cohort_chatroom_added')),
	noti_state smallint not null check (noti_state between 1 and 3),
	is_muted boolean not null default false,
	read_conversation_id bigint not null default 0,
	read_count bigint not null default 0,
	own_unread bigint not null default 0,
	joined_at bigint not null,
	primary key (chatroom_id, user_id)
);
create index chatroom_participants_user on chatroom_participants (user_id, chatroom_id);

-- state: 0 message, 2 joined, 3 left, 10 poll. `seq` is the room's messages_count
-- once this conversation was written (a counted one increments it), so a read mark
-- at this conversation knows how many counted conversations it covers.
create table conversations (
	id bigint generated always as identity primary key,
	chatroom_id bigint not null references chatrooms(id) on delete cascade,
	community_id integer not null references communities(id) on delete cascade,
	user_id integer not null references users(id) on delete cascade,
	state smallint not null default 0 check (state in (0, 2, 3, 10)),
	text text not null default '',
	attachments jsonb not null default '[]',
	replied_conversation_id bigint references conversations(id) on delete set null,
	temporary_id text,
	seq bigint not null,
	is_edited boolean not null default false,
	deleted_by integer references users(id) on delete set null,
	created_at bigint not null,
	updated_at bigint not null
);
-- newest page and keyset scrolling; own messages after a read mark; sync by updated_at
create index conversations_room on conversations (chatroom_id, id);
create index conversations_room_author on conversations (chatroom_id, user_id, id);
create index conversations_room_updated on conversations (chatroom_id, updated_at, id);

-- Users tagged in a conversation text (<<Name|route://member/<uuid>>>).
create table conversation_tags (
	conversation_id bigint not null references conversations(id) on delete cascade,
	user_id integer not null references users(id) on delete cascade,
	primary key (conversation_id, user_id)
);
