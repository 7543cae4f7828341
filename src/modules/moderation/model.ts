// Schemas of the member-role and member-rights routes.
import { t } from 'elysia'
import { pageFields } from '../../lib/paging'
import { Int, Ok, Shape } from '../../lib/response'
import { SdkMember } from '../users/model'

const RightItem = t.Object({
	id: t.Integer({ minimum: 0, maximum: 1000, description: 'the right (its state)' }),
	is_selected: t.Boolean({ description: 'true: the member holds it' }),
})

/**
 * `is_cm` grants or removes CM; feed-js sends it as `is_c_m` (it snake-cases `isCM`).
 * `rights` (the SDK's MemberRights) sets which rights a member holds; `custom_title`
 * the title shown beside the name. At least one of them is required.
 */
export const RightsBody = t.Object({
	uuid: t.String({ minLength: 1, maxLength: 100, description: 'service uuid of the member' }),
	is_cm: t.Optional(t.Boolean()),
	is_c_m: t.Optional(t.Boolean({ description: 'feed-js spelling of is_cm' })),
	rights: t.Optional(t.Array(RightItem, { maxItems: 50 })),
	custom_title: t.Optional(t.String({ maxLength: 100 })),
})

export type RightsChange = typeof RightsBody.static

/** feed-js sends `is_cm=undefined` when it was not set: every value is taken as text. */
export const RightsQuery = t.Object({
	uuid: t.Optional(t.String({ maxLength: 100, description: 'service uuid (default: the caller)' })),
	is_cm: t.Optional(t.String({ maxLength: 10, description: 'accepted and ignored (feed-js)' })),
})

export const MembersQuery = t.Object({
	search: t.Optional(t.String({ maxLength: 100, description: 'part of a name or user_unique_id' })),
	...pageFields,
})

export type MembersSearch = typeof MembersQuery.static

/** One right in the SDKs' MemberRight shape (auth/rights.ts presentRights). */
export const Right = Shape({
	id: Int(),
	state: Int(),
	title: t.String(),
	sub_title: t.String(),
	is_selected: t.Boolean(),
	is_locked: t.Boolean(),
})

export const RightsReply = Ok(
	Shape({
		member: SdkMember,
		rights: t.Array(Right),
		role: t.String(),
		is_cm: t.Boolean(),
		is_owner: t.Boolean(),
	}),
)
