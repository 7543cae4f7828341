// Who is notified of a new conversation (DESIGN section 9): the seam for chat
// notifications and pushes. Participants other than the author who have not muted
// the room, filtered by their room `noti_state`: 1 every message; 2 only when tagged
// or replied to; 3 when tagged, replied to, for polls and for direct messages (DM
// rooms, type 10).
import type { Db } from '../../lib/db'
import { POLL, unmutedParticipants } from './repo'

export type NotifyReason = 'message' | 'tagged' | 'replied' | 'poll' | 'direct'

export interface ChatRecipient {
	user_id: number
	uuid: string
	user_unique_id: string
	noti_state: number
	reason: NotifyReason
}

export interface NewConversationFacts {
	chatroomId: string
	authorId: number
	state: number
	taggedUserIds: number[]
	/** author of the conversation replied to, if any */
	repliedToUserId: number | null
	/** a DM room's conversation */
	direct?: boolean
}

/** Why a participant in `notiState` hears of it, or null when they do not. */
export function reasonFor(
	notiState: number,
	facts: NewConversationFacts,
	userId: number,
): NotifyReason | null {
	if (facts.taggedUserIds.includes(userId)) return 'tagged'
	if (facts.repliedToUserId === userId) return 'replied'
	if (notiState === 3 && facts.state === POLL) return 'poll'
	if (notiState === 3 && facts.direct) return 'direct'
	if (notiState === 1) return facts.state === POLL ? 'poll' : facts.direct ? 'direct' : 'message'
	return null
}

/** Participants are read this many at a time (a room of 100,000 is 100 reads, never one). */
export const recipientsPage = 1000

/**
 * Who hears of the conversation, read 1,000 participants at a time. `withDevice`
 * leaves out those without a push device: when no webhook is told of the recipients,
 * a push is all that can reach them.
 */
export async function recipientsOf(
	db: Db,
	facts: NewConversationFacts,
	options: { withDevice?: boolean } = {},
): Promise<ChatRecipient[]> {
	const recipients: ChatRecipient[] = []
	const withDevice = options.withDevice ?? false
	for (let afterUserId = 0; ; ) {
		const rows = await unmutedParticipants(db, facts.chatroomId, facts.authorId, {
			afterUserId,
			limit: recipientsPage,
			withDevice,
		})
		for (const row of rows) {
			const reason = reasonFor(row.noti_state, facts, row.user_id)
			if (reason) recipients.push({ ...row, reason })
		}
		if (rows.length < recipientsPage) return recipients
		afterUserId = (rows[rows.length - 1] as { user_id: number }).user_id
	}
}
