// A publish Redis refused after its commit leaves a durable mark (live_owed_resets), and
// the worker's `live-resets` reconciler turns it into a `reset` once Redis takes writes
// again — also when the process that failed died meanwhile (kill -9), which no memory of
// that process could do. Redis refuses for real: a value of another type under the
// scope's stream key makes the publish script fail (WRONGTYPE), in this run's own Redis
// database and only for that key. (Stopping a whole Redis cannot show it through the
// API: a write then fails before its commit, on its rate limit and room state.) Only
// when Postgres refuses the mark as well does the failing process keep it in memory.
import { afterAll, beforeAll, describe, expect, test } from 'bun:test'
import { jobs } from '../../src/jobs'
import { liveResetsJob } from '../../src/jobs/live-resets'
import { redis } from '../../src/lib/redis'
import { type LiveScope, liveScopes, publishLive } from '../../src/live'
import { claimOwed, deletePaid, markOwed } from '../../src/live/owed-repo'
import { follow, newRoom } from '../support/chat'
import { newCommunity, newUser, type TestCommunity, type TestUser } from '../support/community'
import { sql } from '../support/db'
import { liveServer, openSocket, subscribe } from '../support/live'
import { type Plaza, spawnPlaza } from '../support/process'
import { waitFor } from '../support/wait'

let community: TestCommunity
let cm: TestUser
let ana: TestUser
const children: Plaza[] = []

beforeAll(async () => {
	liveServer()
	community = await newCommunity('live-owed')
	cm = await newUser(community, { role: 'cm', name: 'Cm' })
	ana = await newUser(community, { name: 'Ana' })
})

afterAll(async () => {
	await Promise.all(children.filter((p) => p.alive()).map((p) => p.stop('SIGKILL')))
})

const marksOf = async (scope: LiveScope) => [
	...(await sql<{ failures: number; claimed: boolean }[]>`
		select failures, claimed_until > now() as claimed from live_owed_resets
		where community_id = ${scope.communityId} and stream = ${scope.key}`),
]

/** The types of the events in the scope's stream, oldest first. */
const streamTypes = async (scope: LiveScope) =>
	((await redis.xrange(scope.key, '-', '+')) as [string, string[]][]).map(
		([, fields]) => JSON.parse(fields[1] as string).type,
	)

describe('a publish Redis refused after its commit', () => {
	test('leaves one mark per scope; the reconciler pays it: a live reset, on resume, the mark gone', async () => {
		const room = await newRoom(cm)
		await follow(ana, room.id)
		const scope = liveScopes.chatroom(community.communityId, room.id)
		const socket = await openSocket({ token: ana.token })
		await subscribe(socket, scope.name)
		// A publish Redis took costs no mark.
		expect(await publishLive(scope, { type: 'test.kept', data: {} })).not.toBeNull()
		expect(await marksOf(scope)).toEqual([])

		await redis.set(scope.key, 'not a stream')
		expect(await publishLive(scope, { type: 'test.lost', data: { n: 1 } })).toBeNull()
		expect(await publishLive(scope, { type: 'test.lost', data: { n: 2 } })).toBeNull()
		expect(await marksOf(scope)).toEqual([{ failures: 2, claimed: false }])

		// Another community's scope Redis takes (marked as a refused publish would mark it).
		const other = liveScopes.universal((await newCommunity('live-owed-other')).communityId)
		await markOwed(sql, other.communityId, other.key)

		// A pass while Redis still refuses this scope pays the other, fails visibly and
		// gives this claim back.
		await expect(liveResetsJob.run()).rejects.toThrow('1 owed live resets refused by Redis')
		expect(await marksOf(scope)).toEqual([{ failures: 2, claimed: false }])
		expect(await marksOf(other)).toEqual([])
		expect(await streamTypes(other)).toEqual(['reset'])
		// Nothing in this process retries it behind the reconciler's back.
		await redis.del(scope.key)
		await Bun.sleep(1200)
		expect(socket.frames.some((f) => f.type === 'reset')).toBe(false)

		await liveResetsJob.run()
		const reset = await socket.next((f) => f.type === 'reset', 'reset after the lost events')
		expect(reset.scope).toBe(scope.name)
		expect(await streamTypes(scope)).toEqual(['reset'])
		expect(await marksOf(scope)).toEqual([])
		// A client resuming from before the loss is told too.
		const resuming = await openSocket({ token: ana.token })
		await subscribe(resuming, scope.name, '1-0')
		await resuming.next((f) => f.type === 'reset', 'reset on resume')
		socket.close()
		resuming.close()
	})

	test('a failure after a pass claimed the mark keeps it for the next pass', async () => {
		const scope = liveScopes.me(community.communityId, ana.id)
		await markOwed(sql, scope.communityId, scope.key)
		const [claimed] = await claimOwed(sql, scope.communityId, 10, 30_000)
		expect(claimed).toEqual({ community_id: scope.communityId, stream: scope.key, failures: 1 })
		// Another claim skips it while the lease runs.
		expect(await claimOwed(sql, scope.communityId, 10, 30_000)).toEqual([])
		await markOwed(sql, scope.communityId, scope.key) // a publish failed after the claim
		await deletePaid(sql, scope.communityId, [claimed as NonNullable<typeof claimed>])
		expect(await marksOf(scope)).toEqual([{ failures: 2, claimed: true }])
		await deletePaid(sql, scope.communityId, [
			{ ...(claimed as NonNullable<typeof claimed>), failures: 2 },
		])
		expect(await marksOf(scope)).toEqual([])
	})
})

describe('Postgres refuses the mark too', () => {
	test('the failing process keeps the debt in memory and pays it within seconds', async () => {
		const room = await newRoom(cm)
		await follow(ana, room.id)
		// A community id outside the column's range: Postgres refuses this mark, and only it.
		const scope = liveScopes.chatroom(2 ** 31, room.id)
		const socket = await openSocket({ token: ana.token })
		await subscribe(socket, scope.name)
		await redis.set(scope.key, 'not a stream')
		expect(await publishLive(scope, { type: 'test.lost', data: {} })).toBeNull()
		const [held] =
			await sql`select count(*)::int as n from live_owed_resets where stream = ${scope.key}`
		expect(held?.n).toBe(0)
		await redis.del(scope.key)
		const reset = await socket.next((f) => f.type === 'reset', 'reset paid from memory')
		expect(reset.scope).toBe(scope.name)
		expect(await streamTypes(scope)).toEqual(['reset'])
		socket.close()
	})
})

describe('the process that failed dies before Redis is back', () => {
	test('kill -9 of the writer: the worker still tells the room, and the mark goes', async () => {
		expect(jobs).toContain(liveResetsJob)
		const writer = await spawnPlaza('api')
		children.push(writer)
		const room = await newRoom(cm)
		await follow(ana, room.id)
		const scope = liveScopes.chatroom(community.communityId, room.id)
		const socket = await openSocket({ token: ana.token })
		await subscribe(socket, scope.name)

		await redis.set(scope.key, 'not a stream')
		const reply = await fetch(`http://127.0.0.1:${writer.port}/conversation`, {
			method: 'POST',
			headers: { authorization: `Bearer ${cm.token}`, 'content-type': 'application/json' },
			body: JSON.stringify({ chatroom_id: room.id, text: 'lost on its way' }),
		})
		expect(reply.status).toBe(200) // committed; only its live event was refused
		expect(await marksOf(scope)).toEqual([{ failures: 1, claimed: false }])
		await writer.stop('SIGKILL')
		await redis.del(scope.key)

		// Nobody owes it in memory now; the mark waits for a worker.
		await Bun.sleep(1500)
		expect(socket.frames.some((f) => f.type === 'reset')).toBe(false)
		expect((await marksOf(scope)).length).toBe(1)

		const worker = await spawnPlaza('worker')
		children.push(worker)
		const reset = await socket.next((f) => f.type === 'reset', 'reset from the worker')
		expect(reset.scope).toBe(scope.name)
		expect(socket.frames.some((f) => f.type === 'event')).toBe(false)
		expect(await streamTypes(scope)).toEqual(['reset'])
		await waitFor(async () => (await marksOf(scope)).length === 0, { what: 'the mark deleted' })
		socket.close()
	})
})
