// Member roles: PATCH /moderation/rights (owner or CM), GET /community/member/role, and
// GET /community/members to find whom to grant.
import { Elysia } from 'elysia'
import { ok } from '../../lib/envelope'
import { authPlugin } from '../auth/plugin'
import { MembersQuery, RightsBody } from './model'
import { changeRights, currentRole, findMembers } from './service'

export const moderationModule = new Elysia({ name: 'moderation' })
	.use(authPlugin)
	.patch(
		'/moderation/rights',
		async ({ session, body }) => ({
			success: true,
			error_message: null,
			data: await changeRights(session, body),
		}),
		{
			auth: 'cm-or-owner',
			body: RightsBody,
			detail: {
				summary: 'Grant (is_cm true) or remove CM rights of a member; owner or CM only',
				tags: ['members'],
			},
		},
	)
	.get(
		'/community/member/role',
		async ({ session }) => ({
			success: true,
			error_message: null,
			data: currentRole(session),
		}),
		{
			auth: 'member',
			detail: { summary: "The caller's role: member, cm or owner", tags: ['members'] },
		},
	)
	.get('/community/members', async ({ session, query }) => ok(await findMembers(session, query)), {
		auth: 'cm-or-owner',
		query: MembersQuery,
		detail: {
			summary: 'Members by part of their name or user_unique_id, with their roles (owner or CM)',
			tags: ['members'],
		},
	})
