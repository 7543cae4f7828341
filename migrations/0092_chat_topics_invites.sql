-- A room's topic (a conversation pinned as it, PUT /conversation/topic), and invites
-- to secret rooms (POST /chatroom/participants; answered by /channel/invite).
alter table chatrooms add column topic_conversation_id bigint;

create table chatroom_invites (
	community_id integer not null references communities(id) on delete cascade,
	chatroom_id bigint not null,
	user_id integer not null,
	invited_by integer not null,
	-- 0 pending, 1 accepted, 2 rejected (invite_status)
	invite_status smallint not null default 0 check (invite_status in (0, 1, 2)),
	created_at bigint not null,
	updated_at bigint not null,
	primary key (community_id, chatroom_id, user_id)
);
-- a member's pending invites, newest first
create index chatroom_invites_user on chatroom_invites (community_id, user_id, invite_status, created_at desc);
