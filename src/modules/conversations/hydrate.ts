// Turns conversation rows into what clients read: each with its member, the
// conversation it replies to, and its poll fields as this viewer sees them, loaded in
// one batch per kind for a whole page.
import type { Db } from '../../lib/db'
import type { ChatViewer } from '../chatrooms/access'
import { isCmViewer } from '../chatrooms/access'
import { pollViews } from '../polls/service'
import { type Member, presentMember } from '../users/present'
import { findUsersByIds } from '../users/repo'
import { type Conversation, presentConversation } from './present'
import { type ConversationRow, findConversations, POLL } from './repo'

export interface Hydrated {
	conversations: Conversation[]
	/** members by id (string) */
	users: Record<string, Member>
	/** poll fields by conversation id */
	polls: Record<string, Record<string, unknown>>
}

export async function hydrate(
	db: Db,
	viewer: ChatViewer,
	rows: ConversationRow[],
): Promise<Hydrated> {
	const replyIds = [...new Set(rows.flatMap((r) => r.replied_conversation_id ?? []))]
	const pollIds = rows.filter((r) => r.state === POLL && r.deleted_by === null).map((r) => r.id)
	const [replied, polls] = await Promise.all([
		findConversations(db, replyIds),
		pollIds.length
			? pollViews(db, pollIds, { userId: viewer.userId, isCm: isCmViewer(viewer) })
			: new Map(),
	])
	const userIds = [...new Set([...rows, ...replied].map((r) => r.user_id))]
	const users: Record<string, Member> = {}
	for (const user of await findUsersByIds(db, userIds)) users[String(user.id)] = presentMember(user)
	const memberOf = (row: ConversationRow) => users[String(row.user_id)] ?? null
	const repliedById = new Map(
		replied.map((r) => [
			r.id,
			presentConversation(r, { member: memberOf(r), replied: null, poll: null }),
		]),
	)
	const pollFields: Record<string, Record<string, unknown>> = {}
	for (const [id, fields] of polls) pollFields[id] = fields
	const conversations = rows.map((row) =>
		presentConversation(row, {
			member: memberOf(row),
			replied: row.replied_conversation_id
				? (repliedById.get(row.replied_conversation_id) ?? null)
				: null,
			poll: pollFields[row.id] ?? null,
		}),
	)
	return { conversations, users, polls: pollFields }
}
