// Request schemas of the post engagement routes.
import { t } from 'elysia'

export const PostParams = t.Object({ post_id: t.String({ maxLength: 100 }) })
export const UserParams = t.Object({ uuid: t.String({ maxLength: 100 }) })

export const SeenBody = t.Object({
	post_ids: t.Array(t.String({ maxLength: 100 }), { minItems: 1, maxItems: 100 }),
})
