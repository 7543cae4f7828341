// Schemas of the member routes. The SDKs build some queries by string concatenation
// (`member_state=undefined` when unset): those fields are taken as text and read by
// the service, which treats 'undefined', 'null' and '' as absent.
import { t } from 'elysia'
import { pageFields } from '../../lib/paging'
import { Int, Ok, Shape } from '../../lib/response'
import { Right } from '../moderation/model'
import { SdkMember } from '../users/model'

const loose = (description: string) => t.Optional(t.String({ maxLength: 64, description }))

export const DirectoryQuery = t.Object({
	...pageFields,
	member_state: loose('1: community managers, 4: members'),
	chatroom_id: loose('only members seated in this chatroom'),
	community_id: loose("the caller's community (another one is 404)"),
	search: t.Optional(t.String({ maxLength: 100, description: 'part of a name' })),
})
export type DirectoryFilters = typeof DirectoryQuery.static

export const MemberQuery = t.Object({
	user_id: loose("the member's id or uuid (default: the caller)"),
	uuid: loose("the member's uuid"),
})
export type MemberRef = typeof MemberQuery.static

export const MemberChatroomQuery = t.Object({
	...pageFields,
	user_id: loose("the member's id or uuid (default: the caller)"),
	uuid: loose("the member's uuid"),
	state: loose('accepted and ignored (chat-js)'),
})
export type MemberChatroomFilters = typeof MemberChatroomQuery.static

const FieldValue = t.Union([t.String({ maxLength: 1000 }), t.Number(), t.Boolean(), t.Null()])

export const ProfileBody = t.Object({
	user_name: t.Optional(t.String({ maxLength: 100 })),
	name: t.Optional(t.Union([t.String({ maxLength: 100 }), t.Null()])),
	image_url: t.Optional(t.Union([t.String({ maxLength: 2048 }), t.Null()])),
	user_unique_id: t.Optional(t.String({ maxLength: 200, description: "the caller's own id" })),
	custom_fields: t.Optional(
		t.Record(t.String({ minLength: 1, maxLength: 64 }), FieldValue, {
			maxProperties: 30,
			description: 'fields to set; null removes one',
		}),
	),
})
export type ProfileEdit = typeof ProfileBody.static

export const RemoveBody = t.Optional(
	t.Object({
		uuids: t.Optional(
			t.Array(t.String({ minLength: 1, maxLength: 100 }), {
				maxItems: 100,
				description: 'members to remove (CM); the caller alone or none: leave',
			}),
		),
	}),
)

export const BanBody = t.Object({
	uuid: t.String({ minLength: 1, maxLength: 100, description: 'service uuid of the member' }),
})

// Answers (the SDKs' declared shapes; extra fields allowed).
export const DirectoryReply = Ok(
	Shape({
		members: t.Array(SdkMember),
		community: t.Union([Shape({ id: Int(), name: t.String() }), t.Null()]),
		admins_count: Int(),
		members_count: Int(),
		total_members: Int(),
		total_only_members: Int(),
		total_filtered_members: Int(),
		pending_members_count: Int(),
	}),
)

const ProfileMember = Shape({
	...SdkMember.properties,
	custom_fields: t.Record(t.String(), t.Unknown()),
	member_since: Int(),
})
export const ProfileReply = Ok(Shape({ member: ProfileMember, user: ProfileMember }))

export const StateReply = Ok(
	Shape({
		member: SdkMember,
		member_rights: t.Array(Right),
		state: Int(),
		tool_state: Int(),
		edit_required: t.Boolean(),
		created_at: t.String(),
	}),
)

export const MemberChatroomsReply = Ok(
	Shape({ chatrooms: t.Array(Shape({})), total_chatroom_count: Int(), page: Int() }),
)

export const QuestionsReply = Ok(Shape({ questions: t.Array(Shape({})) }))

export const RemovedReply = Ok(Shape({ removed: t.Array(t.String()) }))

export const BanReply = Ok(
	Shape({ uuid: t.String(), status: t.Union([t.Literal('banned'), t.Literal('removed')]) }),
)
