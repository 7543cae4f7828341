// GET|PATCH /community/configurations: the `chat_poll` configuration that gives polls
// their defaults (any member reads it; CMs and the owner change it).
import { Elysia } from 'elysia'
import { ok } from '../../../lib/envelope'
import { Messages } from '../../../lib/errors'
import { authPlugin } from '../../auth/plugin'
import { requireRole } from '../../auth/session'
import { ConfigurationQuery, PatchConfigurationBody } from './model'
import { listConfigurations, parseConfigurationTypes, patchConfiguration } from './service'

const tags = ['polls']

export const configurationsModule = new Elysia({ name: 'configurations' })
	.use(authPlugin)
	.get(
		'/community/configurations',
		async ({ session, query }) =>
			ok({
				community_configurations: await listConfigurations(
					session.communityId,
					parseConfigurationTypes(query.configuration_types),
				),
			}),
		{
			auth: 'member',
			query: ConfigurationQuery,
			detail: { summary: 'Community configurations (chat_poll) with defaults filled in', tags },
		},
	)
	.patch(
		'/community/configurations',
		async ({ session, body }) => {
			requireRole(session, 'cm', Messages.notCmOrOwner)
			const configuration = await patchConfiguration(session.communityId, body.type, body.value)
			return ok({ community_configurations: [configuration] })
		},
		{
			auth: 'member',
			body: PatchConfigurationBody,
			detail: { summary: 'Merge fields into a configuration (CM/owner)', tags },
		},
	)
