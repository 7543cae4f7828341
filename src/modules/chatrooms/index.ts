// Chatroom routes (DESIGN section 8): POST|PUT|DELETE|GET /chatroom, follow and leave,
// participants, mute, per-room notification state, the read mark and seen, invites to
// secret rooms, and the (empty) chatbot list.
import { Elysia, t } from 'elysia'
import { ok } from '../../lib/envelope'
import { authPlugin } from '../auth/plugin'
import { chatbots } from './chatbots'
import { answer, invite, listInvites } from './invites'
import {
	ChatbotQuery,
	ChatroomBody,
	ChatroomParams,
	ChatroomQuery,
	CreateChatroomBody,
	EditChatroomBody,
	FollowBody,
	InviteAnswerBody,
	InviteBody,
	InvitesQuery,
	MuteBody,
	NotiStateBody,
	ParticipantsQuery,
	RemoveParticipantBody,
	SeenBody,
	type SeenInput,
	SeenQuery,
} from './model'
import {
	changeNotiState,
	createChatroom,
	deleteChatroom,
	editChatroom,
	follow,
	getChatroom,
	listVisibleChatrooms,
	markRead,
	mute,
	participants,
	removeParticipant,
	seen,
} from './service'

const tags = ['chatrooms']
const done = { success: true as const, error_message: null }

/** chat-js puts the text "undefined" where it has no value. */
const given = (input: SeenInput): SeenInput =>
	Object.fromEntries(
		Object.entries(input).filter(
			([, v]) => v !== undefined && v !== 'undefined' && v !== 'null' && v !== '',
		),
	)

export const chatroomsModule = new Elysia({ name: 'chatrooms' })
	.use(authPlugin)
	.post('/chatroom', async ({ session, body }) => ok(await createChatroom(session, body)), {
		auth: 'cm',
		body: CreateChatroomBody,
		detail: { summary: 'Create a chatroom (CM/owner), optionally seating uuids', tags },
	})
	.put('/chatroom', async ({ session, body }) => ok(await editChatroom(session, body)), {
		auth: 'cm',
		body: EditChatroomBody,
		detail: { summary: 'Edit title, header or image (CM/owner)', tags },
	})
	.delete(
		'/chatroom',
		async ({ session, body }) => {
			await deleteChatroom(session, body.chatroom_id)
			return done
		},
		{ auth: 'cm', body: ChatroomBody, detail: { summary: 'Delete a chatroom (CM/owner)', tags } },
	)
	.get(
		'/chatroom',
		async ({ session, query }) =>
			ok(
				query.chatroom_id !== undefined
					? await getChatroom(session, query.chatroom_id)
					: await listVisibleChatrooms(session, query.page, query.page_size),
			),
		{
			auth: 'member',
			query: ChatroomQuery,
			detail: { summary: 'One chatroom with the viewer state, or the rooms they may see', tags },
		},
	)
	.put(
		'/chatroom/follow',
		async ({ session, body }) => {
			await follow(session, body)
			return done
		},
		{
			auth: 'member',
			body: FollowBody,
			detail: { summary: 'Join (value true) or leave; a CM may name a member', tags },
		},
	)
	.get(
		'/chatroom/participants',
		async ({ session, query }) =>
			ok(await participants(session, query.chatroom_id, query.page, query.page_size)),
		{ auth: 'member', query: ParticipantsQuery, detail: { summary: 'Participants', tags } },
	)
	.delete(
		'/chatroom/participants',
		async ({ session, body }) => {
			await removeParticipant(session, body)
			return done
		},
		{
			auth: 'member',
			body: RemoveParticipantBody,
			detail: { summary: 'Leave a chatroom (also secret), or a CM removes a member', tags },
		},
	)
	.put(
		'/chatroom/mute',
		async ({ session, body }) => ok(await mute(session, body.chatroom_id, body.value)),
		{ auth: 'member', body: MuteBody, detail: { summary: 'Mute or unmute a room', tags } },
	)
	.put(
		'/chatroom/settings',
		async ({ session, body }) =>
			ok(await changeNotiState(session, body.chatroom_id, body.noti_state)),
		{
			auth: 'member',
			body: NotiStateBody,
			detail: { summary: "The viewer's notification state in a room (1, 2 or 3)", tags },
		},
	)
	.post(
		'/chatroom/:chatroom_id/mark_read',
		async ({ session, params }) => ok(await markRead(session, params.chatroom_id)),
		{
			auth: 'member',
			params: ChatroomParams,
			detail: { summary: 'Everything in the room counts as read', tags },
		},
	)
	.post(
		'/chatroom/mark_read',
		async ({ session, body }) => ok(await markRead(session, body.chatroom_id)),
		{
			auth: 'member',
			body: ChatroomBody,
			detail: { summary: 'Everything in the room counts as read (chat-js body form)', tags },
		},
	)
	.put(
		'/chatroom/seen',
		async ({ session, body, query }) =>
			ok(await seen(session, { ...given(query), ...given(body ?? {}) })),
		{
			auth: 'member',
			body: t.Optional(SeenBody),
			query: SeenQuery,
			detail: { summary: 'The caller opened the room: marks it read when seated', tags },
		},
	)
	.post('/chatroom/participants', async ({ session, body }) => ok(await invite(session, body)), {
		auth: 'member',
		body: InviteBody,
		detail: { summary: 'Invite members to a room (CM); they accept or reject', tags },
	})
	.get(
		'/channel/invites',
		async ({ session, query }) => ok(await listInvites(session, query.page, query.page_size)),
		{
			auth: 'member',
			query: InvitesQuery,
			detail: { summary: "The caller's pending invites", tags },
		},
	)
	.put('/channel/invite', async ({ session, body }) => ok(await answer(session, body)), {
		auth: 'member',
		body: InviteAnswerBody,
		detail: { summary: 'Accept (1, joins the room) or reject (2) an invite', tags },
	})
	.get('/community/chatbot', ({ query }) => ok(chatbots(query.page)), {
		auth: 'member',
		query: ChatbotQuery,
		detail: { summary: "The community's bot members (none in plaza)", tags },
	})
