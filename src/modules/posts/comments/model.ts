// Request schemas of the comment routes. Bodies are lenient: unknown fields (postId,
// is_anonymous, ...) are ignored.
import { t } from 'elysia'

export const PostParams = t.Object({ post_id: t.String({ maxLength: 100 }) })
export const CommentParams = t.Object({
	post_id: t.String({ maxLength: 100 }),
	comment_id: t.String({ maxLength: 100 }),
})

export const CommentBody = t.Object({
	text: t.String({ maxLength: 20_000 }),
	temp_id: t.Optional(t.Union([t.String({ maxLength: 100 }), t.Null()])),
})

/** Create and reply also take a back-dating `created_at` (ms; a migration's history). */
export const NewCommentBody = t.Object({
	text: t.String({ maxLength: 20_000 }),
	temp_id: t.Optional(t.Union([t.String({ maxLength: 100 }), t.Null()])),
	created_at: t.Optional(t.Integer({ minimum: 0 })),
})

export const DeleteCommentBody = t.Optional(
	t.Object({
		reason: t.Optional(t.String({ maxLength: 1000 })),
		delete_reason: t.Optional(t.String({ maxLength: 1000 })),
	}),
)
