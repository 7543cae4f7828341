// Member roles: PATCH /moderation/rights (owner or CM) and GET /community/member/role.
import { Elysia } from 'elysia'
import { authPlugin } from '../auth/plugin'
import { RightsBody } from './model'
import { changeRights, currentRole } from './service'

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
			auth: 'member',
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
			data: await currentRole(session),
		}),
		{
			auth: 'member',
			detail: { summary: "The caller's role: member, cm or owner", tags: ['members'] },
		},
	)
