// The push deliveries' schedule in Redis (lib/outbox/queue.ts: due and inflight sets,
// leases). Members are `<communityId>:<deliveryId>`, so the claim can cap what one
// project has in flight in a worker (bounded concurrency per project).
import { keys } from '../lib/keys'
import { createSchedule, member as outboxMember } from '../lib/outbox/queue'

export const pushSchedule = createSchedule(keys.pushDue(), keys.pushInflight())

export const member = (communityId: number | string, deliveryId: string) =>
	outboxMember(communityId, deliveryId)

export const queueDepth = () => pushSchedule.depth()
