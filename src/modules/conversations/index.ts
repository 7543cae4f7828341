// Conversation routes (DESIGN section 8): post (messages, replies, polls), keyset
// pages, sync by updated_at, edit and delete, reactions, the room's topic.
import { Elysia } from 'elysia'
import { ok } from '../../lib/envelope'
import { okJson } from '../../lib/raw-json'
import { authPlugin } from '../auth/plugin'
import {
	DeleteConversationBody,
	EditConversationBody,
	ListQuery,
	PostConversationBody,
	ReactionBody,
	SyncQuery,
	TopicBody,
	UnreactBody,
} from './model'
import { react, unreact } from './reactions'
import { listConversations, syncConversations } from './read'
import { setTopic } from './topic'
import { deleteConversations, editText, postConversation } from './write'

const tags = ['conversations']
const done = { success: true as const, error_message: null }

export const conversationsModule = new Elysia({ name: 'conversations' })
	.use(authPlugin)
	.post('/conversation', async ({ session, body }) => ok(await postConversation(session, body)), {
		auth: 'member',
		body: PostConversationBody,
		detail: { summary: 'Post a message, a reply or (state 10) a poll', tags },
	})
	.get(
		'/conversation',
		async ({ session, query }) => {
			const page = await listConversations(session, query)
			return 'bytes' in page ? okJson(page.bytes) : ok(page.data)
		},
		{
			auth: 'member',
			query: ListQuery,
			detail: {
				summary: 'A page of a room, oldest first: newest, or older (0) / newer (1) than an anchor',
				tags,
			},
		},
	)
	.get(
		'/conversation/sync',
		async ({ session, query }) => ok(await syncConversations(session, query)),
		{
			auth: 'member',
			query: SyncQuery,
			detail: { summary: 'Conversations changed between two updated_at bounds (ms)', tags },
		},
	)
	.put(
		'/conversation',
		async ({ session, body }) => ok(await editText(session, body.conversation_id, body.text)),
		{ auth: 'member', body: EditConversationBody, detail: { summary: 'Edit (author)', tags } },
	)
	.delete(
		'/conversation',
		async ({ session, body }) => ok(await deleteConversations(session, body.conversation_ids)),
		{
			auth: 'member',
			body: DeleteConversationBody,
			detail: { summary: 'Delete (author or CM); stays listed with deleted_by', tags },
		},
	)
	.put(
		'/conversation/reaction',
		async ({ session, body }) => {
			await react(session, { ...body, reaction: body.reaction })
			return done
		},
		{
			auth: 'member',
			body: ReactionBody,
			detail: { summary: 'React (one emoji per member; reacting again changes it)', tags },
		},
	)
	.delete(
		'/conversation/reaction',
		async ({ session, body }) => {
			await unreact(session, { ...body, reaction: body.reaction ?? undefined })
			return done
		},
		{ auth: 'member', body: UnreactBody, detail: { summary: 'Remove own reaction', tags } },
	)
	.put('/conversation/topic', async ({ session, body }) => ok(await setTopic(session, body)), {
		auth: 'member',
		body: TopicBody,
		detail: { summary: "Pin a conversation as the room's topic (CM); null clears it", tags },
	})
