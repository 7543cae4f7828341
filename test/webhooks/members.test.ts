// A webhook delivery's Redis member names its community (one shard per statement on
// Citus); a member written before that (`<webhookId>:<deliveryId>`) is recognised as
// such, so the engine releases it and the reconciler schedules the delivery again.
import { expect, test } from 'bun:test'
import { parseMember } from '../../src/lib/outbox/queue'
import { deliveryOf, member } from '../../src/webhooks/queue'

const claimed = (value: string) => ({ member: value, ...parseMember(value), dueAt: 0 })

test('a member carries its webhook, community and delivery; an old one has no community', () => {
	const fresh = claimed(member('6560a1b2c3d4e5f6a7b8c9d0', 42, '6560a1b2aaaabbbbccccdddd'))
	expect(fresh.group).toBe('6560a1b2c3d4e5f6a7b8c9d0')
	expect(deliveryOf(fresh)).toEqual({ communityId: 42, deliveryId: '6560a1b2aaaabbbbccccdddd' })
	expect(deliveryOf(claimed('6560a1b2c3d4e5f6a7b8c9d0:6560a1b2aaaabbbbccccdddd'))).toBeNull()
})
