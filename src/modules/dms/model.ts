// Request schemas of the DM routes (chat-js DirectMessage's request builders). Members
// are named by `member_id` (the member object's id) or `uuid`; chat-js sends the text
// "undefined" for a member id it does not have, read as absent (dms/service.ts).
import { t } from 'elysia'
import { pageFields } from '../../lib/paging'
import { NumericId } from '../chatrooms/model'

const MemberId = t.String({ maxLength: 24 })
const Uuid = t.String({ maxLength: 100 })

export const CreateDmBody = t.Object({
	member_id: t.Optional(t.Union([MemberId, t.Integer({ minimum: 0 })])),
	uuid: t.Optional(t.Union([Uuid, t.Integer({ minimum: 0 })])),
})

export const MemberQuery = t.Object({
	member_id: t.Optional(MemberId),
	uuid: t.Optional(Uuid),
})

export const DmStatusQuery = t.Object({
	req_from: t.Optional(t.String({ maxLength: 50 })),
	member_id: t.Optional(MemberId),
	uuid: t.Optional(Uuid),
	chatroom_id: t.Optional(t.String({ maxLength: 24 })),
})

export const DmRequestBody = t.Object({
	chatroom_id: NumericId,
	chat_request_state: t.Union([t.Literal(0), t.Literal(1), t.Literal(2)], {
		error: 'chat_request_state must be 0 (request), 1 (accept) or 2 (reject)',
	}),
	text: t.Optional(t.String({ maxLength: 20_000 })),
})

export const DmBlockBody = t.Object({
	chatroom_id: NumericId,
	status: t.Union([t.Literal(0), t.Literal(1)], {
		error: 'status must be 0 (block) or 1 (unblock)',
	}),
})

export const DmFeedQuery = t.Object({
	community_id: t.Optional(t.String({ maxLength: 24 })),
	min_timestamp: t.Optional(t.Integer({ minimum: 0 })),
	max_timestamp: t.Optional(t.Integer({ minimum: 0 })),
	...pageFields,
})

export const DmSettingsBody = t.Object({
	enabled: t.Optional(t.Boolean()),
	requests_required: t.Optional(t.Boolean()),
	daily_limit: t.Optional(
		t.Nullable(
			t.Integer({ minimum: 0, maximum: 10_000, error: 'daily_limit must be 0 to 10000 (0: none)' }),
		),
	),
})

/** A query or body value chat-js may send as the text "undefined" or "null". */
export const given = <T>(value: T | undefined): T | undefined =>
	value === 'undefined' || value === 'null' || value === '' ? undefined : value
