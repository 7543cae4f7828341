-- Direct messages (DESIGN section 19): a DM is a chatroom of type 10 between two
-- members. `dm_rooms` holds one row per pair, keyed by the ordered pair inside the
-- community, so concurrent create-or-find calls for the same two members meet on its
-- primary key: the first inserts the claim (chatroom_id still null) and creates the
-- room in the same transaction; the others wait on the key, find the row and answer
-- its room. Ids of users and chatrooms are kept without foreign keys: their tables
-- are not keyed by community (DESIGN section 21).
alter table chatrooms drop constraint chatrooms_type_check;
alter table chatrooms add constraint chatrooms_type_check check (type in (0, 7, 10));

create table dm_rooms (
	community_id integer not null references communities(id) on delete cascade,
	low_user_id integer not null,
	high_user_id integer not null,
	chatroom_id bigint,
	created_by integer not null,
	-- the community required a request when the DM was started (neither member a CM)
	request_needed boolean not null default false,
	-- null: no request needed; 0 pending; 1 accepted; 2 rejected (chat_request_state)
	chat_request_state smallint check (chat_request_state in (0, 1, 2)),
	requested_by integer,
	request_created_at bigint,
	-- a rejected requester may ask again 24 h after this
	rejected_at bigint,
	created_at bigint not null,
	primary key (community_id, low_user_id, high_user_id),
	check (low_user_id < high_user_id)
);
create unique index dm_rooms_chatroom on dm_rooms (community_id, chatroom_id);
-- the per-day limit counts the DMs a member started in the last 24 h
create index dm_rooms_created_by on dm_rooms (community_id, created_by, created_at);
-- a member's DM rooms, either side
create index dm_rooms_high on dm_rooms (community_id, high_user_id);

-- The community's DM rules (one row once a CM changes them; defaults otherwise).
create table dm_settings (
	community_id integer primary key references communities(id) on delete cascade,
	-- off: members may only message community managers (CMs can always be messaged)
	enabled boolean not null default true,
	-- on: a DM between two members starts with a request the other accepts
	requests_required boolean not null default false,
	-- new DMs a member may start per 24 h (null: no limit; CMs are never limited)
	daily_limit integer check (daily_limit between 1 and 10000),
	updated_at bigint not null
);
