// Request schemas of the post routes. Extra fields are ignored (clients send
// temp_id, is_anonymous, camelCase twins), limits give 400 rather than a giant row.
import { t } from 'elysia'

export const MAX_TEXT = 10_000
export const MAX_HEADING = 300
/** DESIGN §5: at most 10 attachments, each `attachment_meta` at most 16 KB serialized. */
export const MAX_ATTACHMENTS = 10
export const MAX_ATTACHMENT_META_BYTES = 16 * 1024

export const Attachment = t.Object({
	attachment_type: t.Integer({ minimum: 1, maximum: 100 }),
	// An object of at most 16 KB: checked in attachments.ts (the schema let strings through).
	attachment_meta: t.Optional(t.Unknown()),
})

export type AttachmentInput = typeof Attachment.static

/**
 * A post's attachment in either form (DESIGN §16): the spec's `{attachment_type,
 * attachment_meta}` or feed-js's `{type: "image"|"video"|…|"poll", meta_data}`;
 * posts/attachments.ts `attachmentInputs` turns both into the spec's.
 */
export const PostAttachment = t.Object({
	attachment_type: t.Optional(t.Integer({ minimum: 1, maximum: 100 })),
	attachment_meta: t.Optional(t.Unknown()),
	type: t.Optional(t.String({ maxLength: 32 })),
	meta_data: t.Optional(t.Unknown()),
})

export type PostAttachmentInput = typeof PostAttachment.static

const Visibility = t.Union([t.Literal('public'), t.Literal('connections'), t.Literal('private')])

export const CreatePostBody = t.Object({
	text: t.Optional(t.String({ maxLength: MAX_TEXT })),
	heading: t.Optional(t.String({ maxLength: MAX_HEADING })),
	created_at: t.Optional(t.Integer({ minimum: 0 })),
	topic_ids: t.Optional(t.Array(t.String({ maxLength: 64 }), { maxItems: 50 })),
	attachments: t.Optional(t.Array(PostAttachment, { maxItems: MAX_ATTACHMENTS })),
	visibility: t.Optional(Visibility),
})

export type CreatePostInput = typeof CreatePostBody.static

export const EditPostBody = t.Object({
	text: t.Optional(t.String({ maxLength: MAX_TEXT })),
	heading: t.Optional(t.String({ maxLength: MAX_HEADING })),
	topic_ids: t.Optional(t.Array(t.String({ maxLength: 64 }), { maxItems: 50 })),
	attachments: t.Optional(t.Array(PostAttachment, { maxItems: MAX_ATTACHMENTS })),
	visibility: t.Optional(Visibility),
})

export type EditPostInput = typeof EditPostBody.static

export const DeletePostBody = t.Optional(
	t.Object({
		delete_reason: t.Optional(t.String({ maxLength: 1000 })),
		reason: t.Optional(t.String({ maxLength: 1000 })),
	}),
)

export const PostParams = t.Object({ post_id: t.String({ maxLength: 64 }) })
