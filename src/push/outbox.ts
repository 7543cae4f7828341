// The push outbox: one delivery row per (activity, actor, device) of the recipients,
// written in the transaction of the activity, so a push is never lost to a crash
// between the change and its sending, and never made twice for the same new actor
// (a unique index). Like the webhook outbox, the statement calls pg_notify, which
// Postgres delivers only if the transaction commits; the relay (push/relay.ts) then
// moves the fresh rows into the Redis schedule.
import type { PendingQuery, Row } from 'postgres'
import type { Db } from '../lib/db'

export const pushChannel = 'push_deliveries'

/** The data of a push (all strings, as FCM requires); community_id is added here. */
export interface PushPayload {
	title: string
	sub_title: string
	route: string
	category: string
}

export interface PushedActivity {
	id: string
	recipient_id: number
}

/** Queues a push of `payload` to every device of each activity's recipient, for this actor. */
export async function enqueueActivityPushes(
	tx: Db,
	input: {
		communityId: number
		actorId: number
		activities: PushedActivity[]
		payload: PushPayload
		now?: number
	},
): Promise<void> {
	await enqueueActivityPushesOf(
		tx,
		input.communityId,
		input.activities.map((a) => ({
			communityId: input.communityId,
			activityId: a.id,
			recipientId: a.recipient_id,
			actorId: input.actorId,
			payload: input.payload,
		})),
		input.now,
	)
}

/** One actor's push for one activity (a batch of likes has one per like that notified). */
export interface ActivityPush {
	communityId: number
	activityId: string
	recipientId: number
	actorId: number
	payload: PushPayload
}

/**
 * enqueueActivityPushes for many (activity, actor) pairs of one community, each with its
 * own payload, in one statement.
 */
export async function enqueueActivityPushesOf(
	tx: Db,
	communityId: number,
	pushes: ActivityPush[],
	now = Date.now(),
): Promise<void> {
	if (pushes.length === 0) return
	const input = pushes.map((p) => ({
		c: p.communityId,
		a: p.activityId,
		r: p.recipientId,
		u: p.actorId,
		p: { ...p.payload, community_id: String(p.communityId) },
	}))
	const rows = tx`select * from jsonb_to_recordset(${tx.json(input)}) as i(c int, a text, r int8, u int8, p jsonb)`
	await tx`with ${activityPushesCtes(tx, communityId, rows, now)} select * from pushes_notified`
}

/**
 * enqueueActivityPushesOf as CTEs of a caller's statement: `rows` yields (c: community,
 * a: activity id, r: recipient, u: actor, p: payload with community_id) and may read the
 * statement's other CTEs. `pushes_notified`, one row, must be read by the statement.
 * Every row is of `communityId`, whose devices the statement reads (one Citus shard).
 */
export function activityPushesCtes(
	db: Db,
	communityId: number,
	rows: PendingQuery<Row[]>,
	now: number,
) {
	return db`
		pushes as (
			insert into push_deliveries (community_id, activity_id, actor_id, device_id, recipient_id, payload, due_at, created_at, updated_at)
			select i.c, i.a, i.u, d.device_id, d.user_id, i.p, ${now}, ${now}, ${now}
			from (${rows}) as i join devices d on d.community_id = ${communityId} and d.user_id = i.r
			on conflict do nothing
			returning 1
		), pushes_notified as (
			select count(*) from (select pg_notify(${pushChannel}, '') from (select 1 from pushes limit 1) any_push) n)`
}

/** Queues a push of `payload` to every device of the recipients of a new conversation. */
export async function enqueueConversationPushes(
	tx: Db,
	input: {
		communityId: number
		conversationId: string
		actorId: number
		recipientIds: number[]
		payload: PushPayload
		now?: number
	},
): Promise<void> {
	if (input.recipientIds.length === 0) return
	const now = input.now ?? Date.now()
	const payload = { ...input.payload, community_id: String(input.communityId) }
	await tx`
		with fresh as (
			insert into push_deliveries (community_id, conversation_id, actor_id, device_id, recipient_id, payload, due_at, created_at, updated_at)
			select ${input.communityId}, ${input.conversationId}, ${input.actorId}, d.device_id, d.user_id, ${tx.json(payload)}, ${now}, ${now}, ${now}
			from devices d
			where d.community_id = ${input.communityId} and d.user_id = any(${tx.array(input.recipientIds)}::int8[])
			on conflict do nothing
			returning 1
		)
		select pg_notify(${pushChannel}, '') from (select 1 from fresh limit 1) any_push`
}
