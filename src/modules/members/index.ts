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
	DirectoryQuery,
	MemberChatroomQuery,
	MemberQuery,
	ProfileBody,
	RemoveBody,
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
		detail: { summary: 'Active members by name, filtered by role or chatroom (paged)', tags },
	})
	.get(
		'/community/member/profile',
		async ({ session, query }) => ok(await readProfile(session, query)),
		{
			auth: 'member',
			query: MemberQuery,
			detail: { summary: "A member's profile (default: the caller's)", tags },
		},
	)
	.put(
		'/community/member/profile',
		async ({ session, body }) => ok(await editProfile(session, body)),
		{
			auth: 'member',
			body: ProfileBody,
			detail: { summary: "Edit the caller's name, image and custom fields", tags },
		},
	)
	.get('/community/member/state', async ({ session }) => ok(await memberState(session)), {
		auth: 'member',
		detail: { summary: 'The caller as a member: role state and rights', tags },
	})
	.get(
		'/community/member/chatroom',
		async ({ session, query }) => ok(await memberChatrooms(session, query)),
		{
			auth: 'member',
			query: MemberChatroomQuery,
			detail: { summary: "A member's chatrooms that the caller may see", tags },
		},
	)
	.get('/community/questions', () => ok(communityQuestions()), {
		auth: 'member',
		detail: { summary: "The community's member questions (plaza defines none: empty)", tags },
	})
	.delete(
		'/community/member/remove',
		async ({ session, body }) => ok(await leaveOrRemove(session, body?.uuids)),
		{
			auth: 'member',
			body: RemoveBody,
			detail: {
				summary: 'Leave the community (no uuids, or your own), or remove members (CM)',
				tags,
			},
		},
	)
	.post('/community/member/ban', async ({ session, body }) => ok(await ban(session, body.uuid)), {
		auth: 'cm-or-owner',
		body: BanBody,
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
			detail: { summary: 'Lift a ban: the customer id may start a session again', tags },
		},
	)
