// The webhook deliveries' schedule in Redis (lib/outbox/queue.ts: due and inflight
// sets, leases). Members are `<webhookId>:<deliveryId>`, so a worker knows the endpoint
// (for per-endpoint limits) without a database read.
import { keys } from '../lib/keys'
import { createSchedule, member as outboxMember } from '../lib/outbox/queue'

export const webhookSchedule = createSchedule(keys.webhookDue(), keys.webhookInflight())

export const member = (webhookId: string, deliveryId: string) => outboxMember(webhookId, deliveryId)

export const unschedule = (members: string[]) => webhookSchedule.unschedule(members)

export const queueDepth = () => webhookSchedule.depth()
