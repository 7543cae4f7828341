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

/** A participant who may hear of a room's conversations (not muted; reachable, when asked). */
export type Audience = Omit<ChatRecipient, 'reason'>[]

/**
 * The room's participants who have not muted it, read 1,000 at a time; `withDevice`
 * leaves out those without a push device: when no webhook is told of the recipients,
 * a push is all that can reach them. One read serves every conversation of the room
 * expanded together (notices.ts).
 */
export async function roomAudience(
	db: Db,
	communityId: number,
	chatroomId: string,
	options: { withDevice?: boolean } = {},
): Promise<Audience> {
	const audience: Audience = []
	const withDevice = options.withDevice ?? false
	for (let afterUserId = 0; ; ) {
		// author 0: nobody is left out here; recipientsAmong leaves out each author
		const rows = await unmutedParticipants(db, communityId, chatroomId, 0, {
			afterUserId,
			limit: recipientsPage,
			withDevice,
		})
		audience.push(...rows)
		if (rows.length < recipientsPage) return audience
		afterUserId = (rows[rows.length - 1] as { user_id: number }).user_id
	}
}

/** Who of the room's audience hears of the conversation (its author never does). */
export function recipientsAmong(audience: Audience, facts: NewConversationFacts): ChatRecipient[] {
	const recipients: ChatRecipient[] = []
	for (const row of audience) {
		if (row.user_id === facts.authorId) continue
		const reason = reasonFor(row.noti_state, facts, row.user_id)
		if (reason) recipients.push({ ...row, reason })
	}
	return recipients
}

/** Who hears of the conversation: its room's audience, read for it alone. */
export async function recipientsOf(
	db: Db,
	communityId: number,
	facts: NewConversationFacts,
	options: { withDevice?: boolean } = {},
): Promise<ChatRecipient[]> {
	return recipientsAmong(await roomAudience(db, communityId, facts.chatroomId, options), facts)
}
