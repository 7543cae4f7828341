// Schemas of the search routes (the SDKs' request builders are the contract: feed-js
// searchPosts and getTaggingList, chat-js searchMembers, getTaggingList, searchChatroom
// and searchConversation). Every field is bounded; unknown extra fields are ignored.
import { t } from 'elysia'
import { pageFields } from '../../lib/paging'

/** What was typed: the SDKs send it unencoded and may send nothing at all. */
const typed = (what: string) => t.Optional(t.String({ maxLength: 200, description: what }))

export const PostSearchQuery = t.Object({
	search: t.String({ minLength: 1, maxLength: 200, description: 'words, "a phrase", -not, or' }),
	search_type: t.Optional(
		t.String({
			maxLength: 40,
			description: 'accepted; every kind searches heading, text and topic names',
		}),
	),
	...pageFields,
})

export const MemberSearchQuery = t.Object({
	search: typed('a name, its start, or close to it'),
	search_type: t.Optional(t.String({ maxLength: 40 })),
	member_states: t.Optional(t.String({ maxLength: 100 })),
	...pageFields,
})

export const TagQuery = t.Object({
	search_name: typed('a name, its start, or close to it (empty: everyone)'),
	chatroom_id: t.Optional(t.String({ maxLength: 40 })),
	feedroom_id: t.Optional(t.String({ maxLength: 40 })),
	is_secret: t.Optional(t.String({ maxLength: 10 })),
	...pageFields,
})

export const ChatroomSearchQuery = t.Object({
	search: typed('words of a room title or header; the last one may be unfinished'),
	search_type: t.Optional(t.String({ maxLength: 40 })),
	follow_status: t.Optional(
		t.String({ maxLength: 10, description: 'true: only rooms the member follows' }),
	),
	...pageFields,
})

export const ConversationSearchQuery = t.Object({
	search: typed('words of a message; the last one may be unfinished'),
	chatroom_id: t.Optional(
		t.String({ maxLength: 40, description: 'one room (else every room the member may read)' }),
	),
	follow_status: t.Optional(
		t.String({ maxLength: 10, description: 'true: only rooms the member follows' }),
	),
	...pageFields,
})

/** The SDKs send booleans and absent values as text ("true", "undefined"). */
export const isTrue = (value: string | undefined) => value === 'true' || value === '1'
