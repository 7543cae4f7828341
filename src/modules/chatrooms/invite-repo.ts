// SQL of invites to secret chatrooms: one row per (room, member), pending until the
// member accepts or rejects it; inviting again makes a rejected invite pending again.
import type { Db } from '../../lib/db'

export interface InviteRow {
	chatroom_id: string
	user_id: number
	invited_by: number
	invite_status: number
	created_at: number
	updated_at: number
}

const inviteColumns = (db: Db) => db`
	i.chatroom_id::text as chatroom_id, i.user_id::float8 as user_id,
	i.invited_by::float8 as invited_by, i.invite_status,
	i.created_at::float8 as created_at, i.updated_at::float8 as updated_at`

/** Invites the members (pending); returns those newly pending. */
export async function upsertInvites(
	db: Db,
	invite: {
		communityId: number
		chatroomId: string
		userIds: number[]
		invitedBy: number
		now: number
	},
): Promise<number[]> {
	if (invite.userIds.length === 0) return []
	const rows = await db`
		insert into chatroom_invites (community_id, chatroom_id, user_id, invited_by, invite_status, created_at, updated_at)
		select ${invite.communityId}, ${invite.chatroomId}, u, ${invite.invitedBy}, 0, ${invite.now}, ${invite.now}
		from unnest(${invite.userIds}::int8[]) u
		on conflict (community_id, chatroom_id, user_id) do update
			set invite_status = 0, invited_by = excluded.invited_by, updated_at = excluded.updated_at
			where chatroom_invites.invite_status <> 0
		returning user_id::float8 as user_id`
	return rows.map((r) => r.user_id as number)
}

export async function pendingInvites(
	db: Db,
	communityId: number,
	userId: number,
	limit: number,
	offset: number,
): Promise<{ rows: InviteRow[]; total: number }> {
	const from = db`
		from chatroom_invites i
		join chatrooms r on r.community_id = i.community_id and r.id = i.chatroom_id and not r.is_deleted
		where i.community_id = ${communityId} and i.user_id = ${userId} and i.invite_status = 0`
	const rows = await db<InviteRow[]>`
		select ${inviteColumns(db)} ${from} order by i.created_at desc, i.chatroom_id desc
		limit ${limit} offset ${offset}`
	const [count] = await db`select count(*)::int as n ${from}`
	return { rows, total: count?.n ?? 0 }
}

/** Answers a pending invite; false when there was none. */
export async function answerInvite(
	db: Db,
	answer: { communityId: number; chatroomId: string; userId: number; status: number; now: number },
): Promise<boolean> {
	const rows = await db`
		update chatroom_invites set invite_status = ${answer.status}, updated_at = ${answer.now}
		where community_id = ${answer.communityId} and chatroom_id = ${answer.chatroomId}
			and user_id = ${answer.userId} and invite_status = 0
		returning 1`
	return rows.length > 0
}
