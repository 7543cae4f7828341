// The newest page served from Redis (conversations/newest.ts, chatrooms/room-state.ts):
// once a room is known there, a read needs no Postgres, so these tests prime it with a
// read first and then check that nothing a reader must see is lost: new, edited and
// deleted messages, join lines, a deleted room, secret-room access, another
// community, the read mark behind unread_messages, and a write that never commits.
import { beforeAll, describe, expect, test } from 'bun:test'
import { keys } from '../../src/lib/keys'
import { redis } from '../../src/lib/redis'
import { follow, newRoom, roomAs, say } from '../support/chat'
import { newCommunity, newUser, type TestCommunity, type TestUser } from '../support/community'
import { sql } from '../support/db'
import { api } from '../support/http'

let community: TestCommunity
let cm: TestUser
let ana: TestUser
let ben: TestUser

beforeAll(async () => {
	community = await newCommunity('newest-page')
	cm = await newUser(community, { role: 'cm', name: 'Cleo' })
	ana = await newUser(community, { name: 'Ana' })
	ben = await newUser(community, { name: 'Ben' })
})

const newestReply = (user: TestUser, roomId: string, size = 20) =>
	api('GET', `/conversation?chatroom_id=${roomId}&paginate_by=${size}`, { token: user.token })

async function newest(user: TestUser, roomId: string, size = 20) {
	const reply = await newestReply(user, roomId, size)
	expect(reply.status).toBe(200)
	return reply.body.data.conversations as { id: string; answer: string; state: number }[]
}

/** Reads twice, so the second read is the one Redis answers. */
async function primed(user: TestUser, roomId: string) {
	await newest(user, roomId)
	return newest(user, roomId)
}

describe('newest page from Redis', () => {
	test('a read after priming is served by Redis: the room state is there', async () => {
		const room = await newRoom(cm)
		await follow(ana, room.id)
		await say(ana, room.id, 'one')
		await primed(ana, room.id)
		const [known, version, entry] = await Promise.all([
			redis.get(keys.chatRoom(room.id)),
			redis.get(keys.chatVersion(room.id)),
			redis.get(keys.chatNewest(room.id, 20)),
		])
		expect(known).toBe(`${community.communityId} 0 0`)
		const [row] = await sql`select version::text from chatrooms where id = ${room.id}`
		expect(version).toBe(row?.version)
		expect(entry?.startsWith(`${row?.version} `)).toBe(true)
	})

	test('new, edited and deleted messages and join lines show at once', async () => {
		const room = await newRoom(cm)
		await follow(ana, room.id)
		const first = await say(ana, room.id, 'first')
		await primed(ben, room.id)
		const second = await say(ana, room.id, 'second')
		expect((await newest(ben, room.id)).at(-1)).toMatchObject({ id: second.id, answer: 'second' })
		await api('PUT', '/conversation', {
			token: ana.token,
			body: { conversation_id: first.id, text: 'first, edited' },
		})
		const edited = (await newest(ben, room.id)).find((c) => c.id === first.id)
		expect(edited?.answer).toBe('first, edited')
		await api('DELETE', '/conversation', {
			token: ana.token,
			body: { conversation_ids: [second.id] },
		})
		expect((await newest(ben, room.id)).find((c) => c.id === second.id)).toMatchObject({
			answer: '',
			is_deleted: true,
		})
		await follow(ben, room.id)
		expect((await newest(ana, room.id)).at(-1)).toMatchObject({ state: 2 })
	})

	test('page sizes are kept apart', async () => {
		const room = await newRoom(cm)
		for (const text of ['a', 'b', 'c']) await say(cm, room.id, text)
		await primed(cm, room.id)
		// the page of 20 also holds the creator's joined line (state 2)
		expect((await newest(cm, room.id, 2)).map((c) => c.answer)).toEqual(['b', 'c'])
		expect((await newest(cm, room.id, 20)).map((c) => [c.state, c.answer])).toEqual([
			[2, ''],
			[0, 'a'],
			[0, 'b'],
			[0, 'c'],
		])
	})

	test('a deleted room is 404 at once, also to readers Redis knew it for', async () => {
		const room = await newRoom(cm)
		await say(cm, room.id, 'soon gone')
		await primed(ana, room.id)
		const deleted = await api('DELETE', '/chatroom', {
			token: cm.token,
			body: { chatroom_id: room.id },
		})
		expect(deleted.status).toBe(200)
		expect((await newestReply(ana, room.id)).status).toBe(404)
	})

	test('a secret room known to Redis (a CM read it) stays 404 to members without access', async () => {
		const room = await newRoom(cm, { is_secret: true })
		await say(cm, room.id, 'for the few')
		await primed(cm, room.id)
		expect(await redis.get(keys.chatRoom(room.id))).toBe(`${community.communityId} 1 0`)
		expect((await newestReply(ana, room.id)).status).toBe(404)
		// positive control: a member seated by the CM reads it
		const seated = await api('PUT', '/chatroom/follow', {
			token: cm.token,
			body: { chatroom_id: room.id, uuid: ana.uuid },
		})
		expect(seated.status).toBe(200)
		expect((await newest(ana, room.id)).map((c) => c.answer)).toContain('for the few')
	})

	test('a member of another community gets 404 for a room Redis knows', async () => {
		const room = await newRoom(cm)
		await say(cm, room.id, 'ours')
		await primed(cm, room.id)
		const elsewhere = await newCommunity('newest-page-other')
		const stranger = await newUser(elsewhere)
		expect((await newestReply(stranger, room.id)).status).toBe(404)
	})

	test('reading from Redis moves the read mark: unread_messages stays exact', async () => {
		const room = await newRoom(cm)
		await follow(ana, room.id)
		await follow(ben, room.id)
		await say(ana, room.id, 'one')
		await primed(ben, room.id)
		expect(await (await roomAs(ben, room.id)).unread_messages).toBe(0)
		await say(ana, room.id, 'two')
		await say(ana, room.id, 'three')
		expect((await roomAs(ben, room.id)).unread_messages).toBe(2)
		await newest(ben, room.id)
		expect((await roomAs(ben, room.id)).unread_messages).toBe(0)
		await say(ana, room.id, 'four')
		// the room's page was rebuilt by ana's read; ben's read is served from Redis
		await newest(ana, room.id)
		expect((await roomAs(ben, room.id)).unread_messages).toBe(1)
		await newest(ben, room.id)
		expect((await roomAs(ben, room.id)).unread_messages).toBe(0)
	})

	test('a write that raises the version and then rolls back costs speed, never the page', async () => {
		const room = await newRoom(cm)
		await say(cm, room.id, 'kept')
		await primed(cm, room.id)
		const [row] = await sql`select version::text from chatrooms where id = ${room.id}`
		// as a writer does inside its transaction, before a commit that never comes
		await redis.set(keys.chatVersion(room.id), String(BigInt(row?.version) + 1n))
		expect((await newest(ana, room.id)).at(-1)?.answer).toBe('kept')
		const later = await say(cm, room.id, 'later')
		expect((await newest(ana, room.id)).at(-1)?.id).toBe(later.id)
	})
})
