// Schemas of the member routes. The SDKs build some queries by string concatenation
// (`member_state=undefined` when unset): those fields are taken as text and read by
// the service, which treats 'undefined', 'null' and '' as absent.
import { t } from 'elysia'
import { pageFields } from '../../lib/paging'

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
