// Response schemas of the post routes (posts, comments, reactions): what /openapi
// documents and what Elysia checks the presenters against. The post is SPEC "Post in
// feed responses" with the fields DESIGN §3 adds; extra fields are allowed, never stripped.
import { t } from 'elysia'
import { Int, Ok, Shape } from '../../lib/response'
import { Topic } from '../topics/model'
import { UsersMap } from '../users/model'

// Typed unknown in the feed engine's cached post; documented here in its response form.
const Attachment = t.Unknown({
	description: 'response form: file_type integer, file_url, file_format, file_size strings',
})

const MenuItem = Shape({ id: Int(), title: t.String() })

export const PostShape = Shape(
	{
		_id: t.String(),
		id: t.String(),
		heading: t.String(),
		text: t.String(),
		attachments: t.Array(Attachment),
		community_id: Int(),
		user_id: t.String({ description: "the author's uuid" }),
		uuid: t.String(),
		topics: t.Array(t.String()),
		is_pinned: t.Boolean(),
		is_edited: t.Boolean(),
		is_liked: t.Boolean(),
		is_saved: t.Boolean(),
		likes_count: Int(),
		comments_count: Int(),
		post_shared_count: Int(),
		impressions_count: Int(),
		reach_count: Int(),
		menu_items: t.Array(MenuItem),
		created_at: Int({ description: 'epoch ms' }),
		updated_at: Int({ description: 'epoch ms' }),
	},
	'a post (feed form)',
)

const Widget = Shape({ _id: t.String() }, 'a widget')

/** `{post, users, topics, widgets}`: a post as created, edited or read. */
export const PostReply = Ok(
	Shape({
		post: PostShape,
		users: UsersMap,
		topics: t.Record(t.String(), Topic),
		widgets: t.Record(t.String(), Widget),
	}),
)

export const DeletedPostReply = Ok(Shape({ _id: t.String(), is_deleted: t.Boolean() }))

export const PostListReply = Ok(
	Shape({ posts: t.Array(PostShape), users: UsersMap, total_count: Int() }),
)

const commentFields = {
	_id: t.String(),
	id: t.String(),
	temp_id: t.Union([t.String(), t.Null()]),
	text: t.String(),
	level: Int({ minimum: 1 }),
	uuid: t.String(),
	user_id: t.String(),
	community_id: Int(),
	post_id: t.String(),
	is_liked: t.Boolean(),
	likes_count: Int(),
	comments_count: Int(),
	is_edited: t.Boolean(),
	is_deleted: t.Boolean(),
	deleted_by: t.Union([t.String(), t.Null()]),
	deleted_by_uuid: t.Union([t.String(), t.Null()]),
	delete_reason: t.Union([t.String(), t.Null()]),
	menu_items: t.Array(MenuItem),
	created_at: Int(),
	updated_at: Int(),
}

/**
 * SPEC "Comment (webhook form)", with the viewer's is_liked and menu_items. Its parent
 * and replies have the same shape (checked one level down: answers never nest deeper).
 */
export const CommentShape = Shape(
	{
		...commentFields,
		parent_comment: t.Union([Shape(commentFields), t.Null()]),
		replies: t.Array(Shape(commentFields)),
	},
	'a comment',
)

/** GET /feed/post/:post_id: the post with a page of its root comments as `replies`. */
export const PostPageReply = Ok(
	Shape({
		post: t.Intersect([PostShape, Shape({ replies: t.Array(CommentShape) })]),
		users: UsersMap,
		topics: t.Record(t.String(), Topic),
		widgets: t.Record(t.String(), Widget),
		replies_count: Int(),
	}),
)

export const CommentReply = Ok(Shape({ comment: CommentShape, users: UsersMap }))

/** A comment with a page of its replies (`total_count` counts the replies). */
export const CommentPageReply = Ok(
	Shape({ comment: CommentShape, users: UsersMap, total_count: Int() }),
)

export const CommentListReply = Ok(
	Shape({ comments: t.Array(CommentShape), users: UsersMap, total_count: Int() }),
)

export const LikeReply = Ok(Shape({ is_liked: t.Boolean(), likes_count: Int() }))

export const LikeListReply = Ok(
	Shape({
		likes: t.Array(
			Shape({
				_id: t.String(),
				user_id: t.String(),
				uuid: t.String(),
				created_at: Int(),
				updated_at: Int(),
			}),
		),
		users: UsersMap,
		total_count: Int(),
	}),
)

export const SaveReply = Ok(Shape({ is_saved: t.Boolean() }))
export const PinReply = Ok(Shape({ is_pinned: t.Boolean() }))

export const SeenReply = Ok(
	Shape({
		posts: t.Array(Shape({ _id: t.String(), impressions_count: Int(), reach_count: Int() })),
	}),
)
