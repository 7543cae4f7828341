// SQL of chat notices (migrations/0120_chat_notices.sql): the row a new conversation's
// own statement writes, naming the room and the message, and the worker's claim,
// delete and failure record. The notice's pg_notify is delivered only at commit.
import type { Db } from '../../lib/db'

export const noticeChannel = 'chat_notices'

export interface NewNotice {
	communityId: number
	chatroomId: string
	authorId: number
	/** who hears of it (recipients.ts NewConversationFacts without room and author) */
	facts: Record<string, unknown>
	message: { room_title: string; author_name: string; text: string }
}

/**
 * The notice of the conversation being inserted, as CTEs of its insert
 * (chatrooms/log-repo.ts insertConversation): `notice`, then `extra_done`, which wakes
 * the worker at commit.
 */
export const noticeCtes = (db: Db, n: NewNotice) => db`
	notice as (
		insert into chat_notices (community_id, conversation_id, chatroom_id, author_id, facts, message, created_at)
		select ${n.communityId}, conversation.id, ${n.chatroomId}, ${n.authorId},
			${db.json(n.facts as never)}, ${db.json(n.message as never)}, conversation.created_at
		from conversation
		returning 1
	), extra_done as (
		select pg_notify(${noticeChannel}, '') from (select 1 from notice limit 1) any_notice)`

export interface NoticeRow {
	community_id: number
	conversation_id: string
	chatroom_id: string
	author_id: number
	facts: Record<string, unknown>
	message: { room_title: string; author_name: string; text: string }
	attempts: number
}

/**
 * Up to `limit` due notices, oldest first, locked for this transaction (another
 * worker skips them); `only` narrows the claim to one notice.
 */
export function claimNotices(
	db: Db,
	now: number,
	maxAttempts: number,
	limit: number,
	only?: { communityId: number; conversationId: string },
) {
	const one = only
		? db`and community_id = ${only.communityId} and conversation_id = ${only.conversationId}`
		: db``
	return db<NoticeRow[]>`
		select community_id, conversation_id::text, chatroom_id::text, author_id, facts, message, attempts
		from chat_notices
		where attempts < ${maxAttempts} and (retry_at is null or retry_at <= ${now}) ${one}
		order by created_at limit ${limit}
		for update skip locked`
}

export async function deleteNotices(db: Db, notices: NoticeRow[]): Promise<void> {
	if (notices.length === 0) return
	await db`
		delete from chat_notices n
		using unnest(${notices.map((x) => x.community_id)}::int[], ${notices.map((x) => x.conversation_id)}::bigint[])
			as d(community_id, conversation_id)
		where n.community_id = d.community_id and n.conversation_id = d.conversation_id`
}

/** A failed expansion: tried again at `retryAt` (given up once attempts reach the worker's limit). */
export async function failNotice(
	db: Db,
	notice: NoticeRow,
	error: string,
	retryAt: number,
): Promise<void> {
	await db`
		update chat_notices set attempts = attempts + 1, retry_at = ${retryAt}, last_error = ${error}
		where community_id = ${notice.community_id} and conversation_id = ${notice.conversation_id}`
}

/** Notices that failed `attempts` times or more (still waiting, or given up). */
export async function failingNotices(db: Db, attempts: number): Promise<number> {
	const [row] = await db`select count(*)::int as n from chat_notices where attempts >= ${attempts}`
	return row?.n ?? 0
}
