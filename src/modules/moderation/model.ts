// Schemas of the member-role routes.
import { t } from 'elysia'

export const RightsBody = t.Object({
	uuid: t.String({ minLength: 1, maxLength: 100, description: 'service uuid of the member' }),
	is_cm: t.Boolean(),
})

export type Rights = typeof RightsBody.static
