// Live delivery across api processes (issue 41): a client follows a room through one
// api process while messages are written through another; the first is killed with
// SIGKILL mid-stream, and the client resumes on the other with its cursor — every
// message exactly once, in order, within seconds.
import { afterAll, beforeAll, expect, test } from 'bun:test'
import { liveScopes, publishLive } from '../../src/live'
import { follow, newRoom } from '../support/chat'
import { newCommunity, newUser, type TestCommunity, type TestUser } from '../support/community'
import { type Frame, openSocket, subscribe } from '../support/live'
import { type Plaza, spawnPlaza } from '../support/process'

let apis: Plaza[] = []
let community: TestCommunity
let cm: TestUser
let ana: TestUser

beforeAll(async () => {
	community = await newCommunity('live-fleet')
	cm = await newUser(community, { role: 'cm', name: 'Cm' })
	ana = await newUser(community, { name: 'Ana' })
	apis = await Promise.all([spawnPlaza('api'), spawnPlaza('api')])
})

afterAll(async () => {
	await Promise.all(apis.filter((p) => p.alive()).map((p) => p.stop('SIGKILL')))
})

const base = (p: Plaza) => `http://127.0.0.1:${p.port}`

test('the first subscriptions of a fresh process, all at once, each hear their room', async () => {
	const fresh = await spawnPlaza('api')
	apis.push(fresh)
	// Ten rooms, ten sockets (the per-user limit), subscribing together as the process starts.
	const rooms = await Promise.all(Array.from({ length: 10 }, () => newRoom(cm)))
	const sockets = await Promise.all(rooms.map(() => openSocket({ token: cm.token }, base(fresh))))
	await Promise.all(sockets.map((s, n) => subscribe(s, `chatroom:${rooms[n]?.id}`)))
	for (const room of rooms)
		await publishLive(liveScopes.chatroom(community.communityId, room.id), {
			type: 'ping',
			data: {},
		})
	await Promise.all(sockets.map((s) => s.next((f) => f.event?.type === 'ping', 'the room event')))
	for (const s of sockets) s.close()
})

test('kill -9 of the api holding the socket: the client resumes on the other, 0 missed, 0 duplicates', async () => {
	const [doomed, survivor] = apis as [Plaza, Plaza]
	const room = await newRoom(cm)
	await follow(ana, room.id)
	const scope = `chatroom:${room.id}`
	const received: Frame[] = []
	const first = await openSocket({ token: ana.token }, base(doomed))
	await subscribe(first, scope)

	const total = 60
	const writing = (async () => {
		for (let n = 0; n < total; n++) {
			const reply = await fetch(`${base(survivor)}/conversation`, {
				method: 'POST',
				headers: { authorization: `Bearer ${cm.token}`, 'content-type': 'application/json' },
				body: JSON.stringify({ chatroom_id: room.id, text: `m${n}` }),
			})
			expect(reply.status).toBe(200)
			await Bun.sleep(15)
		}
	})()

	await first.next((f) => f.event?.data?.conversation?.answer === 'm15', 'm15 before the kill')
	await doomed.stop('SIGKILL')
	const closed = await first.closed
	received.push(...first.frames.filter((f) => f.type === 'event'))
	const cursor = received.at(-1)?.id as string

	const second = await openSocket({ token: ana.token }, base(survivor))
	expect((await subscribe(second, scope, cursor)).type).toBe('subscribed')
	const resumedAt = Date.now()
	await writing
	await second.next(
		(f) => f.event?.data?.conversation?.answer === `m${total - 1}`,
		'the last message',
	)
	received.push(...second.frames.filter((f) => f.type === 'event'))
	second.close()

	expect(resumedAt - closed.at).toBeLessThan(5000)
	const texts = received.map((f) => f.event.data.conversation.answer)
	expect(texts).toEqual(Array.from({ length: total }, (_, n) => `m${n}`))
	expect(new Set(received.map((f) => f.id)).size).toBe(total)
	// Positive control of the kill: messages did arrive on both sides of it.
	expect(first.frames.filter((f) => f.type === 'event').length).toBeLessThan(total)
	expect(second.frames.filter((f) => f.type === 'event').length).toBeGreaterThan(0)
})
