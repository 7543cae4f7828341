// Search routes (DESIGN section 18, docs/search.md): posts (feed-js searchPosts), members
// and the mention list (chat-js searchMembers, getTaggingList of both SDKs), rooms and
// messages (chat-js searchChatroom, searchConversation).
import { Elysia } from 'elysia'
import { ok } from '../../lib/envelope'
import { authPlugin } from '../auth/plugin'
import { findChatrooms, findConversationsMatching } from './chat'
import {
	ChatroomSearchQuery,
	ConversationSearchQuery,
	isTrue,
	MemberSearchQuery,
	PostSearchQuery,
	TagQuery,
} from './model'
import { findMembers, searchPosts, taggingList } from './service'

const tags = ['search']

/** The SDKs write an absent value into their query strings as "undefined" or "null". */
const given = (value: string | undefined) =>
	value === undefined || value === 'undefined' || value === 'null' ? undefined : value

export const searchModule = new Elysia({ name: 'search' })
	.use(authPlugin)
	.get(
		'/search/post',
		async ({ session, query }) => ok(await searchPosts(session, query.search, query)),
		{
			auth: 'member',
			query: PostSearchQuery,
			detail: { summary: 'Posts by heading, text and topic names, best match first', tags },
		},
	)
	.get(
		'/community/member/search',
		async ({ session, query }) => ok(await findMembers(session, given(query.search), query)),
		{
			auth: 'member',
			query: MemberSearchQuery,
			detail: { summary: 'Members by name: prefix or a typo away', tags },
		},
	)
	.get(
		'/community/tag',
		async ({ session, query }) =>
			ok(await taggingList(session, given(query.search_name), given(query.chatroom_id), query)),
		{
			auth: 'member',
			query: TagQuery,
			detail: { summary: 'The mention list: members by name, connections and CMs first', tags },
		},
	)
	.get(
		'/chatroom/search',
		async ({ session, query }) =>
			ok(
				await findChatrooms(session, given(query.search) ?? '', isTrue(query.follow_status), query),
			),
		{
			auth: 'member',
			query: ChatroomSearchQuery,
			detail: { summary: 'Rooms the member may see, by title and header', tags },
		},
	)
	.get(
		'/conversation/search',
		async ({ session, query }) =>
			ok(
				await findConversationsMatching(
					session,
					given(query.search) ?? '',
					given(query.chatroom_id),
					isTrue(query.follow_status),
					query,
				),
			),
		{
			auth: 'member',
			query: ConversationSearchQuery,
			detail: { summary: 'Messages of rooms the member may read, newest first', tags },
		},
	)
