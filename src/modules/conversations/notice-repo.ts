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
 * the worker at commit. Its column is not pg_notify's `void`: Citus runs a CTE beside a
 * data-modifying one as an intermediate result, which cannot hold a void column.
 */
export const noticeCtes = (db: Db, n: NewNotice) => db`
	notice as (
		insert into chat_notices (community_id, conversation_id, chatroom_id, author_id, facts, message, created_at)
		select ${n.communityId}, conversation.id, ${n.chatroomId}, ${n.authorId},
			${db.json(n.facts as never)}, ${db.json(n.message as never)}, conversation.created_at
		from conversation
		returning 1
	), extra_done as (
		select 1 as woken from (select pg_notify(${noticeChannel}, '') from notice limit 1) any_notice)`

export interface NoticeRow {
	community_id: number
	conversation_id: string
	chatroom_id: string
	author_id: number
	facts: Record<string, unknown>
	message: { room_title: string; author_name: string; text: string }
	attempts: number
}

const due = (db: Db, now: number, maxAttempts: number) =>
	db`attempts < ${maxAttempts} and (retry_at is null or retry_at <= ${now})`

/**
 * The communities of the `limit` oldest due notices, oldest first, without locking
 * them: a read across communities (run it in acrossCommunities, a named exception of
 * DESIGN §21), after which each community's notices are claimed on its own shard.
 */
export async function dueNoticeCommunities(
	db: Db,
	now: number,
	maxAttempts: number,
	limit: number,
): Promise<number[]> {
	const rows = await db<{ community_id: number }[]>`
		select community_id from (
			select community_id, created_at from chat_notices
			where ${due(db, now, maxAttempts)} order by created_at limit ${limit}) oldest
		group by community_id order by min(created_at)`
	return rows.map((row) => row.community_id)
}

/**
 * Up to `limit` due notices of the community, oldest first, locked for this
 * transaction (another worker skips them); `conversationId` narrows it to one notice.
 */
export function claimNotices(
	db: Db,
	communityId: number,
	now: number,
	maxAttempts: number,
	limit: number,
	conversationId?: string,
) {
	const one = conversationId === undefined ? db`` : db`and conversation_id = ${conversationId}`
	return db<NoticeRow[]>`
		select community_id, conversation_id::text, chatroom_id::text, author_id::float8 as author_id,
			facts, message, attempts
		from chat_notices
		where community_id = ${communityId} and ${due(db, now, maxAttempts)} ${one}
		order by created_at limit ${limit}
		for update skip locked`
}

/** Deletes expanded notices, all of one community (as claimNotices claimed them). */
export async function deleteNotices(
	db: Db,
	communityId: number,
	notices: NoticeRow[],
): Promise<void> {
	if (notices.length === 0) return
	await db`
		delete from chat_notices
		where community_id = ${communityId}
			and conversation_id = any(${notices.map((x) => x.conversation_id)}::bigint[])`
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

/**
 * Notices that failed `attempts` times or more (still waiting, or given up), in every
 * community: run it in acrossCommunities (a health count, a named exception).
 */
export async function failingNotices(db: Db, attempts: number): Promise<number> {
	const [row] = await db`select count(*)::int as n from chat_notices where attempts >= ${attempts}`
	return row?.n ?? 0
}
