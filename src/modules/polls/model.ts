// Polls (conversations of state 10, DESIGN §8): the creation fields POST /conversation
// takes, the rows a poll is stored as, and the schemas of the poll routes.
import { t } from 'elysia'
import { pageFields } from '../../lib/paging'

/** Numeric forms on the wire; the configuration uses the names. */
export const PollType = { instant: 0, deferred: 1, open: 2 } as const
export const SelectState = { exactly: 0, at_max: 1, at_least: 2 } as const
export type PollTypeCode = (typeof PollType)[keyof typeof PollType]
export type SelectStateCode = (typeof SelectState)[keyof typeof SelectState]

export const POLL_STATE = 10
export const MAX_OPTION_TEXT = 300

const Id = t.Union([t.String({ maxLength: 24 }), t.Integer({ minimum: 0 })])
const Flag = t.Optional(t.Boolean())
const OptionInput = t.Object({ text: t.String({ maxLength: MAX_OPTION_TEXT }) })

/**
 * The poll fields of a POST /conversation body, to spread into its schema. poll_type
 * and multiple_select_state take the number or the configuration's name; the service
 * checks them (and every other rule) so each 400 names its rule.
 */
export const PollCreateFields = {
	poll_type: t.Optional(t.Union([t.Integer(), t.String({ maxLength: 20 })])),
	multiple_select_state: t.Optional(t.Union([t.Integer(), t.String({ maxLength: 20 })])),
	multiple_select_no: t.Optional(t.Integer()),
	is_anonymous: Flag,
	allow_add_option: Flag,
	allow_vote_change: Flag,
	no_poll_expiry: Flag,
	expiry_time: t.Optional(t.Nullable(t.Number())),
	polls: t.Optional(t.Array(OptionInput, { maxItems: 50 })),
}

export const PollCreateBody = t.Object({ text: t.Optional(t.String()), ...PollCreateFields })
export type PollCreateInput = typeof PollCreateBody.static

/** A poll's rules after the configuration and the request were merged and checked. */
export interface PollDraft {
	poll_type: PollTypeCode
	multiple_select_state: SelectStateCode
	multiple_select_no: number
	is_anonymous: boolean
	allow_add_option: boolean
	allow_vote_change: boolean
	expiry_time: number | null
	options: string[]
}

export interface PollRow extends Omit<PollDraft, 'options'> {
	conversation_id: string
	community_id: number
	chatroom_id: string
	creator_id: number
	created_at: number
}

export interface OptionRow {
	id: string
	conversation_id: string
	text: string
	member_id: number
	created_at: number
}

export const AddOptionBody = t.Object({ conversation_id: Id, poll: OptionInput })

export const SubmitBody = t.Object({
	conversation_id: Id,
	polls: t.Array(t.Object({ id: Id }), { maxItems: 50 }),
})

export const VotersQuery = t.Object({
	conversation_id: t.String({ maxLength: 24 }),
	poll_id: t.String({ maxLength: 24 }),
	...pageFields,
})
