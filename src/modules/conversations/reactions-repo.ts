// SQL of reactions on conversations: one row per (member, conversation), changed in
// place, read in batches for a page.
import type { Db } from '../../lib/db'

export interface ReactionRow {
	conversation_id: string
	user_id: number
	reaction: string
}

/** Sets the member's reaction; false when it was already this one. */
export async function putReaction(
	db: Db,
	r: ReactionRow & { community_id: number; chatroom_id: string; now: number },
): Promise<boolean> {
	const rows = await db`
		insert into conversation_reactions (community_id, conversation_id, user_id, reaction, chatroom_id, updated_at)
		values (${r.community_id}, ${r.conversation_id}, ${r.user_id}, ${r.reaction}, ${r.chatroom_id}, ${r.now})
		on conflict (community_id, conversation_id, user_id) do update
			set reaction = excluded.reaction, updated_at = excluded.updated_at
			where conversation_reactions.reaction <> excluded.reaction
		returning 1`
	return rows.length > 0
}

/** Removes the member's reaction; false when there was none. */
export async function deleteReaction(
	db: Db,
	communityId: number,
	conversationId: string,
	userId: number,
): Promise<boolean> {
	const rows = await db`
		delete from conversation_reactions
		where community_id = ${communityId} and conversation_id = ${conversationId} and user_id = ${userId}
		returning 1`
	return rows.length > 0
}

/** Reactions on these conversations, oldest first per conversation. */
export async function reactionsOn(
	db: Db,
	communityId: number,
	conversationIds: string[],
): Promise<ReactionRow[]> {
	if (conversationIds.length === 0) return []
	return db<ReactionRow[]>`
		select conversation_id::text as conversation_id, user_id::float8 as user_id, reaction
		from conversation_reactions
		where community_id = ${communityId} and conversation_id = any(${conversationIds}::bigint[])
		order by conversation_id, updated_at, user_id`
}

/** A reaction is a change clients that sync by updated_at must see. */
export async function touchConversation(
	db: Db,
	communityId: number,
	id: string,
	now: number,
): Promise<void> {
	await db`update conversations set updated_at = ${now} where community_id = ${communityId} and id = ${id}`
}
