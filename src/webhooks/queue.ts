// The webhook deliveries' schedule in Redis (lib/outbox/queue.ts: due and inflight
// sets, leases). Members are `<webhookId>:<communityId>:<deliveryId>`, so a worker knows
// the endpoint (for per-endpoint limits) and the community whose rows it reads and
// writes (one shard per statement, DESIGN §21) without a database read.
import { keys } from '../lib/keys'
import { type Claimed, createSchedule, member as outboxMember } from '../lib/outbox/queue'

export const webhookSchedule = createSchedule(keys.webhookDue(), keys.webhookInflight())

export const member = (webhookId: string, communityId: number, deliveryId: string) =>
	outboxMember(webhookId, `${communityId}:${deliveryId}`)

/**
 * The delivery a claimed member stands for; null for a member written before it named
 * its community (`<webhookId>:<deliveryId>`): released, the reconciler schedules the
 * delivery again under its new member.
 */
export function deliveryOf(claimed: Claimed): { communityId: number; deliveryId: string } | null {
	const at = claimed.id.indexOf(':')
	const communityId = Number(claimed.id.slice(0, at))
	if (at < 1 || !Number.isInteger(communityId)) return null
	return { communityId, deliveryId: claimed.id.slice(at + 1) }
}

export const unschedule = (members: string[]) => webhookSchedule.unschedule(members)

export const queueDepth = () => webhookSchedule.depth()
