// Push claims are short leases renewed while held (the shared outbox engine): a send
// the provider holds far longer than the lease stays with its worker, so a second
// worker never takes it over (which would record it `unknown`), and it is sent once.
import { afterAll, beforeAll, expect, test } from 'bun:test'
import { startPush } from '../../src/push/engine'
import { newCommunity, newUser, type TestCommunity } from '../support/community'
import { newPost } from '../support/content'
import { type FakeFcm, startFakeFcm } from '../support/fake-fcm'
import { api } from '../support/http'
import { pushStatuses, registerDevice, storeCredentials } from '../support/push'
import { waitFor } from '../support/wait'

const LEASE_MS = 600
let fake: FakeFcm
let community: TestCommunity
const engines: (() => Promise<void>)[] = []

beforeAll(async () => {
	fake = startFakeFcm()
	community = await newCommunity('push-lease')
	await storeCredentials(community, fake)
})

afterAll(async () => {
	await Promise.all(engines.map((stop) => stop()))
	fake.stop()
})

test('a send held 5 leases long keeps its claim: sent once, never taken over as unknown', async () => {
	const owner = await newUser(community, { name: 'Owner' })
	const liker = await newUser(community, { name: 'Liker' })
	await registerDevice(owner, 'lease-phone', 'tok-lease')
	let answer: () => void = () => {}
	const answered = new Promise<void>((resolve) => {
		answer = resolve
	})
	fake.answer = async () => {
		await answered
		return Response.json({ name: 'projects/x/messages/1' })
	}
	// Two workers, each reaping expired leases every 100 ms; sends may take 10 s.
	for (let i = 0; i < 2; i++)
		engines.push(
			startPush({
				pollMs: 20,
				reapMs: 100,
				reconcileMs: 300,
				reconcileGraceMs: 200,
				leaseMs: LEASE_MS,
				timeoutMs: 10_000,
			}),
		)
	const postId = await newPost(owner)
	expect((await api('PUT', `/feed/post/${postId}/like`, { token: liker.token })).status).toBe(200)
	await waitFor(() => fake.to('tok-lease').length === 1)
	await Bun.sleep(LEASE_MS * 5)
	// Without renewal the lease would have run out: the other worker would have claimed
	// the row, found it `sending` and recorded it `unknown`.
	expect(await pushStatuses(community)).toEqual({ sending: 1 })
	answer()
	await waitFor(async () => (await pushStatuses(community)).sent === 1)
	expect(await pushStatuses(community)).toEqual({ sent: 1 })
	expect(fake.to('tok-lease')).toHaveLength(1)
})
