// Member roles and rights: GET|PATCH /moderation/rights (changes: owner or CM),
// GET /community/member/role, and GET /community/members to find whom to grant.
import { Elysia } from 'elysia'
import { ok } from '../../lib/envelope'
import { authPlugin } from '../auth/plugin'
import { MembersQuery, RightsBody, RightsQuery, RightsReply } from './model'
import { changeRights, currentRole, findMembers, readRights } from './service'

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
				summary:
					"Grant (is_cm or is_c_m true) or remove CM, set a member's rights and custom title; owner or CM only",
				tags: ['members'],
			},
		},
	)
	.get(
		'/moderation/rights',
		async ({ session, query }) => ok(await readRights(session, query.uuid)),
		{
			auth: 'member',
			query: RightsQuery,
			response: { 200: RightsReply },
			detail: {
				summary: "A member's rights and role (another member's: owner or CM only)",
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
