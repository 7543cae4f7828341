-- Reactions on conversations (DESIGN section 19): one emoji per member and
-- conversation, changed in place. Keyed by community first (DESIGN section 21).
create table conversation_reactions (
	community_id integer not null references communities(id) on delete cascade,
	conversation_id bigint not null,
	user_id integer not null,
	reaction text not null check (char_length(reaction) between 1 and 32),
	chatroom_id bigint not null,
	updated_at bigint not null,
	primary key (community_id, conversation_id, user_id)
);
