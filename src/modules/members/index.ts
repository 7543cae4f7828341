// Member routes the SDKs call: the directory (GET /community/member), profile
// (GET|PUT /community/member/profile), state, a member's chatrooms, the community's
// questions, leaving or CM removal (DELETE /community/member/remove), and the CM's ban
// (POST|DELETE /community/member/ban). Roles and rights are modules/moderation.
import { Elysia } from 'elysia'
import { ok } from '../../lib/envelope'
import { authPlugin } from '../auth/plugin'
import { ban, leaveOrRemove, unban } from './departure'
import {
	BanBody,
	BanReply,
	DirectoryQuery,
	DirectoryReply,
	MemberChatroomQuery,
	MemberChatroomsReply,
	MemberQuery,
	ProfileBody,
	ProfileReply,
	QuestionsReply,
	RemoveBody,
	RemovedReply,
	StateReply,
} from './model'
import {
	communityQuestions,
	directory,
	editProfile,
	memberChatrooms,
	memberState,
	readProfile,
} from './service'

const tags = ['members']

export const membersModule = new Elysia({ name: 'members' })
	.use(authPlugin)
	.get('/community/member', async ({ session, query }) => ok(await directory(session, query)), {
		auth: 'member',
		query: DirectoryQuery,
		response: { 200: DirectoryReply },
		detail: { summary: 'Active members by name, filtered by role or chatroom (paged)', tags },
	})
	.get(
		'/community/member/profile',
		async ({ session, query }) => ok(await readProfile(session, query)),
		{
			auth: 'member',
			query: MemberQuery,
			response: { 200: ProfileReply },
			detail: { summary: "A member's profile (default: the caller's)", tags },
		},
	)
	.put(
		'/community/member/profile',
		async ({ session, body }) => ok(await editProfile(session, body)),
		{
			auth: 'member',
			body: ProfileBody,
			response: { 200: ProfileReply },
			detail: { summary: "Edit the caller's name, image and custom fields", tags },
		},
	)
	.get('/community/member/state', async ({ session }) => ok(await memberState(session)), {
		auth: 'member',
		response: { 200: StateReply },
		detail: { summary: 'The caller as a member: role state and rights', tags },
	})
	.get(
		'/community/member/chatroom',
		async ({ session, query }) => ok(await memberChatrooms(session, query)),
		{
			auth: 'member',
			query: MemberChatroomQuery,
			response: { 200: MemberChatroomsReply },
			detail: { summary: "A member's chatrooms that the caller may see", tags },
		},
	)
	.get('/community/questions', () => ok(communityQuestions()), {
		auth: 'member',
		response: { 200: QuestionsReply },
		detail: { summary: "The community's member questions (plaza defines none: empty)", tags },
	})
	.delete(
		'/community/member/remove',
		async ({ session, body }) => ok(await leaveOrRemove(session, body?.uuids)),
		{
			auth: 'member',
			body: RemoveBody,
			response: { 200: RemovedReply },
			detail: {
				summary: 'Leave the community (no uuids, or your own), or remove members (CM)',
				tags,
			},
		},
	)
	.post('/community/member/ban', async ({ session, body }) => ok(await ban(session, body.uuid)), {
		auth: 'cm-or-owner',
		body: BanBody,
		response: { 200: BanReply },
		detail: {
			summary: 'Ban a member: removed, and their customer id cannot start a session',
			tags,
		},
	})
	.delete(
		'/community/member/ban',
		async ({ session, body }) => ok(await unban(session, body.uuid)),
		{
			auth: 'cm-or-owner',
			body: BanBody,
			response: { 200: BanReply },
			detail: { summary: 'Lift a ban: the customer id may start a session again', tags },
		},
	)
