// Request schemas of the cohort routes (DESIGN §8). Cohort ids are integers on the
// wire; chatroom ids decimal strings (numbers accepted).
import { t } from 'elysia'
import { MAX_ID } from '../../lib/input-limits'
import { pageFields } from '../../lib/paging'
import { NumericId } from '../chatrooms/model'

export const MAX_COHORT_MEMBERS = 10_000

const CohortId = t.Integer({ minimum: 1, maximum: MAX_ID })
/** A cohort id in a path or query: its decimal digits (cohortIdOf reads it). */
const CohortIdText = t.String({ maxLength: String(MAX_ID).length })
const Name = t.String({ minLength: 1, maxLength: 200 })
const Uuids = t.Array(t.String({ maxLength: 64 }), { maxItems: MAX_COHORT_MEMBERS })
const MemberIds = t.Array(NumericId, { maxItems: MAX_COHORT_MEMBERS })

export const CreateCohortBody = t.Object({
	name: Name,
	uuids: t.Optional(Uuids),
	member_ids: t.Optional(MemberIds),
})
export type CreateCohortInput = typeof CreateCohortBody.static

export const UpdateCohortBody = t.Object({
	cohort_id: CohortId,
	name: t.Optional(Name),
	uuids: t.Optional(Uuids),
	member_ids: t.Optional(MemberIds),
})
export type UpdateCohortInput = typeof UpdateCohortBody.static

export const CohortBody = t.Object({ cohort_id: CohortId })
export const CohortMemberBody = t.Object({
	cohort_id: CohortId,
	uuid: t.Optional(t.String({ maxLength: 64 })),
	member_id: t.Optional(NumericId),
})
export type CohortMemberInput = typeof CohortMemberBody.static

export const CohortParams = t.Object({ cohort_id: CohortIdText })
export const PageQuery = t.Object(pageFields)

export const AttachBody = t.Object({
	chatroom_id: NumericId,
	cohort_ids: t.Array(CohortId, { minItems: 1, maxItems: 100 }),
	add_existing_members: t.Optional(t.Boolean()),
})

export const DetachBody = t.Object({ chatroom_id: NumericId, cohort_id: CohortId })

export const AccessQuery = t.Object({ chatroom_id: t.String({ maxLength: 24 }) })
export const AccessBody = t.Object({
	chatroom_id: NumericId,
	cohort_id: CohortId,
	cohort_access: t.Integer({ minimum: 0, maximum: 2, error: 'cohort_access must be 0, 1 or 2' }),
})

export const ShareQuery = t.Object({
	chatroom_id: t.String({ maxLength: 24 }),
	cohort_id: t.Optional(CohortIdText),
	/** chat-js sends the app's domain; links are built on PUBLIC_BASE_URL */
	domain: t.Optional(t.String({ maxLength: 200 })),
})
export const CollabcardParams = t.Object({ chatroom_id: t.String({ maxLength: 24 }) })
export const CollabcardQuery = t.Object({ cohort_id: t.Optional(CohortIdText) })
