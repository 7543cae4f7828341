// The NDJSON record format of DESIGN §14 (one JSON object a line, any order). Types come from the schemas; records are checked with compiled
// validators because a bulk import checks millions of them.
import { type Static, Type as T } from '@sinclair/typebox'
import { TypeCompiler } from '@sinclair/typebox/compiler'

const Id = T.String({ minLength: 1, maxLength: 200 })
const Millis = T.Integer({ minimum: 0 })

export const UserRecord = T.Object({
	type: T.Literal('user'),
	user_unique_id: Id,
	name: T.String({ minLength: 1, maxLength: 200 }),
	image_url: T.Optional(T.String({ maxLength: 2000 })),
	is_guest: T.Optional(T.Boolean()),
	created_at: T.Optional(Millis),
})

export const TopicRecord = T.Object({
	type: T.Literal('topic'),
	external_id: Id,
	name: T.String({ minLength: 1, maxLength: 200 }),
	parent_external_id: T.Optional(T.Union([Id, T.Null()])),
	priority: T.Optional(T.Number()),
	is_enabled: T.Optional(T.Boolean()),
})

export const PostRecord = T.Object({
	type: T.Literal('post'),
	external_id: Id,
	user_unique_id: Id,
	text: T.String({ maxLength: 10_000 }),
	heading: T.Optional(T.String({ maxLength: 300 })),
	created_at: Millis,
	topic_external_ids: T.Optional(T.Array(Id, { maxItems: 50 })),
	attachments: T.Optional(
		T.Array(
			T.Object({
				attachment_type: T.Integer({ minimum: 1, maximum: 100 }),
				attachment_meta: T.Optional(T.Record(T.String(), T.Any())),
			}),
			{ maxItems: 10 },
		),
	),
	visibility: T.Optional(
		T.Union([T.Literal('public'), T.Literal('connections'), T.Literal('private')]),
	),
})

export const LikeRecord = T.Object({
	type: T.Literal('like'),
	user_unique_id: Id,
	post_external_id: T.Optional(Id),
	comment_external_id: T.Optional(Id),
	created_at: T.Optional(Millis),
})

export const CommentRecord = T.Object({
	type: T.Literal('comment'),
	external_id: Id,
	user_unique_id: Id,
	post_external_id: Id,
	parent_external_id: T.Optional(T.Union([Id, T.Null()])),
	text: T.String({ minLength: 1, maxLength: 10_000 }),
	created_at: Millis,
})

export const ConnectionRecord = T.Object({
	type: T.Literal('connection'),
	user_unique_id: Id,
	target_user_unique_id: Id,
	connection_type: T.Optional(T.Union([T.Literal('two_way'), T.Literal('one_way')])),
})

export type UserRecord = Static<typeof UserRecord>
export type TopicRecord = Static<typeof TopicRecord>
export type PostRecord = Static<typeof PostRecord>
export type LikeRecord = Static<typeof LikeRecord>
export type CommentRecord = Static<typeof CommentRecord>
export type ConnectionRecord = Static<typeof ConnectionRecord>

export const recordTypes = ['user', 'topic', 'post', 'comment', 'like', 'connection'] as const
export type RecordType = (typeof recordTypes)[number]

export const checkers = {
	user: TypeCompiler.Compile(UserRecord),
	topic: TypeCompiler.Compile(TopicRecord),
	post: TypeCompiler.Compile(PostRecord),
	comment: TypeCompiler.Compile(CommentRecord),
	like: TypeCompiler.Compile(LikeRecord),
	connection: TypeCompiler.Compile(ConnectionRecord),
}

/** Per-type counts of the summary: `{"user": n, "post": n, ...}`. */
export type Counts = Record<RecordType, number>
export const zeroCounts = (): Counts => ({
	user: 0,
	topic: 0,
	post: 0,
	comment: 0,
	like: 0,
	connection: 0,
})
