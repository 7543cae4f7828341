// Request schemas of the chatroom routes (DESIGN section 8). Ids arrive as decimal
// strings or numbers (clients differ); both are accepted and read by chatroomIdOf.
import { t } from 'elysia'
import { MAX_ID } from '../../lib/input-limits'
import { pageFields } from '../../lib/paging'

/** A chatroom or conversation id as clients send it: "8421" or 8421. */
export const NumericId = t.Union([t.String({ maxLength: 24 }), t.Integer({ minimum: 0 })])
export type NumericId = typeof NumericId.static

const Uuids = t.Array(t.String({ maxLength: 64 }), { maxItems: 1000 })

export const CreateChatroomBody = t.Object({
	title: t.String({ minLength: 1, maxLength: 200 }),
	header: t.Optional(t.String({ maxLength: 2000 })),
	chatroom_image_url: t.Optional(t.String({ maxLength: 2000 })),
	is_secret: t.Optional(t.Boolean()),
	type: t.Optional(t.Union([t.Literal(0), t.Literal(7)], { error: 'type must be 0 or 7' })),
	uuids: t.Optional(Uuids),
	cohort_ids: t.Optional(t.Array(t.Integer({ minimum: 1, maximum: MAX_ID }), { maxItems: 100 })),
})
export type CreateChatroomInput = typeof CreateChatroomBody.static

export const EditChatroomBody = t.Object({
	chatroom_id: NumericId,
	title: t.Optional(t.String({ minLength: 1, maxLength: 200 })),
	header: t.Optional(t.String({ maxLength: 2000 })),
	chatroom_image_url: t.Optional(t.String({ maxLength: 2000 })),
})
export type EditChatroomInput = typeof EditChatroomBody.static

export const ChatroomBody = t.Object({ chatroom_id: NumericId })

export const ChatroomQuery = t.Object({
	chatroom_id: t.Optional(t.String({ maxLength: 24 })),
	...pageFields,
})

export const ParticipantsQuery = t.Object({
	chatroom_id: t.String({ maxLength: 24 }),
	...pageFields,
})

/** Follow or leave; a CM names the member with `uuid` or `member_id`. */
export const FollowBody = t.Object({
	chatroom_id: t.Optional(NumericId),
	collabcard_id: t.Optional(NumericId),
	value: t.Optional(t.Boolean()),
	uuid: t.Optional(t.String({ maxLength: 64 })),
	member_id: t.Optional(NumericId),
})
export type FollowInput = typeof FollowBody.static

export const RemoveParticipantBody = t.Object({
	chatroom_id: NumericId,
	uuid: t.Optional(t.String({ maxLength: 64 })),
	member_id: t.Optional(NumericId),
})
export type RemoveParticipantInput = typeof RemoveParticipantBody.static

export const MuteBody = t.Object({ chatroom_id: NumericId, value: t.Boolean() })

export const NotiStateBody = t.Object({
	chatroom_id: NumericId,
	noti_state: t.Integer({ minimum: 1, maximum: 3, error: 'noti_state must be 1, 2 or 3' }),
})

export const ChatroomParams = t.Object({ chatroom_id: t.String({ maxLength: 24 }) })

/** PUT /chatroom/seen: chat-js sends these in the body (crSeenFn) or the query. */
const seenFields = {
	collabcard_id: t.Optional(NumericId),
	chatroom_id: t.Optional(NumericId),
	member_id: t.Optional(NumericId),
	uuid: t.Optional(t.String({ maxLength: 100 })),
	collabcard_type: t.Optional(t.Union([t.String({ maxLength: 50 }), t.Integer(), t.Null()])),
}
export const SeenBody = t.Object(seenFields)
export const SeenQuery = t.Object(seenFields)
export type SeenInput = typeof SeenBody.static

export type JoinMethod = 'self_joined' | 'cm_added' | 'cohort_chatroom_added'
export type LeftMethod = 'self_left' | 'cm_removed' | 'cohort_chatroom_removed'

/** POST /chatroom/participants (chat-js sendInvites): members by id or uuid. */
export const InviteBody = t.Object({
	chatroom_id: NumericId,
	is_secret: t.Optional(t.Boolean()),
	chatroom_participants: t.Array(
		t.Union([t.String({ maxLength: 100 }), t.Integer({ minimum: 0 })]),
		{
			minItems: 1,
			maxItems: 100,
		},
	),
})

export const InvitesQuery = t.Object({
	channel_type: t.Optional(t.String({ maxLength: 20 })),
	...pageFields,
})

export const InviteAnswerBody = t.Object({
	channel_id: NumericId,
	invite_status: t.Union([t.Literal(1), t.Literal(2)], {
		error: 'invite_status must be 1 (accept) or 2 (reject)',
	}),
})

export const ChatbotQuery = t.Object(pageFields)
