// Schemas of the member-role routes.
import { t } from 'elysia'
import { pageFields } from '../../lib/paging'

export const RightsBody = t.Object({
	uuid: t.String({ minLength: 1, maxLength: 100, description: 'service uuid of the member' }),
	is_cm: t.Boolean(),
})

export type Rights = typeof RightsBody.static

export const MembersQuery = t.Object({
	search: t.Optional(t.String({ maxLength: 100, description: 'part of a name or user_unique_id' })),
	...pageFields,
})

export type MembersSearch = typeof MembersQuery.static
