-- Chat notices (docs/chat.md "Who hears of a message"): one row per new conversation,
-- written in the conversation's own statement, naming the room and the message. The
-- worker expands it after commit into push deliveries and `notifications.chat` pages
-- (1,000 recipients each) and deletes it in the same transaction, so a message's write
-- costs the same in a room of 10 or of 10,000, and no notice is lost to a crash.
-- Community-keyed (DESIGN §21): community_id leads the primary key; rooms, messages and
-- users are referenced by id without foreign keys (a deleted room's notice finds no
-- participants and is dropped).

create table chat_notices (
	community_id integer not null references communities(id) on delete cascade,
	conversation_id bigint not null,
	chatroom_id bigint not null,
	author_id integer not null,
	-- who hears of it: { state, tagged: [user ids], replied_to: user id | null, ... }
	-- (conversations/recipients.ts NewConversationFacts)
	facts jsonb not null,
	-- what the push says: { room_title, author_name, text }
	message jsonb not null,
	created_at bigint not null,
	attempts integer not null default 0,
	-- a failed expansion waits until then (null: due now)
	retry_at bigint,
	last_error text,
	primary key (community_id, conversation_id)
);
create index chat_notices_due on chat_notices (created_at);
