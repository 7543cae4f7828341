// Request schemas of the post engagement routes.
import { t } from 'elysia'

export const PostParams = t.Object({ post_id: t.String({ maxLength: 100 }) })
export const UserParams = t.Object({ uuid: t.String({ maxLength: 100 }) })

export const SeenBody = t.Object({
	post_ids: t.Array(t.String({ maxLength: 100 }), { minItems: 1, maxItems: 100 }),
})

/** A like route's optional body: `value` sets the like (true/false) instead of toggling; `created_at` back-dates it. */
export const LikeBody = t.Optional(
	t.Object({
		value: t.Optional(t.Boolean()),
		created_at: t.Optional(t.Integer({ minimum: 0 })),
	}),
)

export type LikeInput = NonNullable<typeof LikeBody.static>
