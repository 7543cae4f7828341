// Turns conversation rows into what clients read: each with its member and the
// conversation it replies to (the same for every viewer, so the newest page can be
// cached), then the poll fields as this viewer sees them. One batch per kind.
import type { Db } from '../../lib/db'
import type { ChatViewer } from '../chatrooms/access'
import { isCmViewer } from '../chatrooms/access'
import { pollViews } from '../polls/service'
import { type Member, presentMember } from '../users/present'
import { findUsersByIds } from '../users/repo'
import { type Conversation, presentConversation } from './present'
import { reactionsOn } from './reactions-repo'
import { type ConversationRow, findConversations, POLL } from './repo'

export interface SharedPage {
	conversations: Conversation[]
	/** members by id (string) */
	users: Record<string, Member>
}

export interface Hydrated extends SharedPage {
	/** poll fields by conversation id */
	polls: Record<string, Record<string, unknown>>
}

/** The viewer-independent part: members, replied-to conversations and reactions. */
export async function hydrateShared(db: Db, rows: ConversationRow[]): Promise<SharedPage> {
	const replyIds = [...new Set(rows.flatMap((r) => r.replied_conversation_id ?? []))]
	const communityId = rows[0]?.community_id ?? 0
	const [replied, reactions] = await Promise.all([
		findConversations(db, communityId, replyIds),
		reactionsOn(
			db,
			communityId,
			rows.map((r) => r.id),
		),
	])
	const userIds = [...new Set([...rows, ...replied, ...reactions].map((r) => r.user_id))]
	const users: Record<string, Member> = {}
	for (const user of await findUsersByIds(db, communityId, userIds))
		users[String(user.id)] = presentMember(user)
	const memberOf = (row: ConversationRow) => users[String(row.user_id)] ?? null
	const repliedById = new Map(
		replied.map((r) => [
			r.id,
			presentConversation(r, { member: memberOf(r), replied: null, poll: null }),
		]),
	)
	const reactionsOf = new Map<string, { member: Member | null; reaction: string }[]>()
	for (const r of reactions)
		reactionsOf.set(r.conversation_id, [
			...(reactionsOf.get(r.conversation_id) ?? []),
			{ member: users[String(r.user_id)] ?? null, reaction: r.reaction },
		])
	const conversations = rows.map((row) =>
		presentConversation(row, {
			member: memberOf(row),
			reactions: reactionsOf.get(row.id) ?? [],
			replied: row.replied_conversation_id
				? (repliedById.get(row.replied_conversation_id) ?? null)
				: null,
			poll: null,
		}),
	)
	return { conversations, users }
}

/** Ids of the live polls on a page: the only part that differs between viewers. */
export const livePollIds = (page: SharedPage) =>
	page.conversations.filter((c) => c.state === POLL && !c.is_deleted).map((c) => c.id)

/** Adds each live poll's fields as `viewer` sees them (the page is changed in place). */
export async function withPolls(db: Db, viewer: ChatViewer, page: SharedPage): Promise<Hydrated> {
	const ids = livePollIds(page)
	const polls: Record<string, Record<string, unknown>> = {}
	if (ids.length === 0) return { ...page, polls }
	const views = await pollViews(db, viewer.communityId, ids, {
		userId: viewer.userId,
		isCm: isCmViewer(viewer),
	})
	for (const [id, fields] of views) polls[id] = fields
	for (const conversation of page.conversations)
		if (polls[conversation.id]) Object.assign(conversation, polls[conversation.id])
	return { ...page, polls }
}

export async function hydrate(
	db: Db,
	viewer: ChatViewer,
	rows: ConversationRow[],
): Promise<Hydrated> {
	return withPolls(db, viewer, await hydrateShared(db, rows))
}
