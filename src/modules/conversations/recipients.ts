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

export async function recipientsOf(db: Db, facts: NewConversationFacts): Promise<ChatRecipient[]> {
	const rows = await unmutedParticipants(db, facts.chatroomId, facts.authorId)
	return rows.flatMap((row) => {
		const reason = reasonFor(row.noti_state, facts, row.user_id)
		return reason ? [{ ...row, reason }] : []
	})
}
