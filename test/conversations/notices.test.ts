// A message at room scale: who hears of it is resolved after commit from the message's
// notice (expanded by the push engine's source, pages of 1,000); chat events are
// recorded only for types the community has webhooks for; and created_at follows the
// page's order even when the room's writers race.
import { afterAll, beforeAll, describe, expect, test } from 'bun:test'
import { startPush } from '../../src/push/engine'
import { follow, newRoom, say } from '../support/chat'
import { newCommunity, newUser, type TestCommunity, type TestUser } from '../support/community'
import { sql } from '../support/db'
import { type FakeFcm, startFakeFcm } from '../support/fake-fcm'
import { api } from '../support/http'
import { pushStatuses, registerDevice, storeCredentials } from '../support/push'
import { waitFor } from '../support/wait'
import { register } from '../support/webhooks'

let fake: FakeFcm
let stopEngine: (() => Promise<void>) | null = null
const engine = () => startPush({ pollMs: 20, reapMs: 200, reconcileMs: 500, reconcileGraceMs: 300 })

beforeAll(() => {
	fake = startFakeFcm()
})

afterAll(async () => {
	await stopEngine?.()
	fake.stop()
})

const noticesOf = async (community: TestCommunity) =>
	(
		await sql`select conversation_id::text from chat_notices where community_id = ${community.communityId}`
	).map((r) => r.conversation_id as string)

const eventsOf = async (community: TestCommunity, event: string) =>
	(
		await sql`
			select data from events where community_id = ${community.communityId} and event = ${event}
			order by created_at, id`
	).map((r) => r.data)

describe('recipients resolved after commit', () => {
	test('the message commits with a notice naming it; the worker expands it into pushes and deletes it', async () => {
		const community = await newCommunity('notice-push')
		await storeCredentials(community, fake)
		const cm = await newUser(community, { role: 'cm', name: 'Host' })
		const [reader, author] = [
			await newUser(community, { name: 'Reader' }),
			await newUser(community, { name: 'Writer' }),
		]
		const room = await newRoom(cm, { title: 'Later' })
		for (const user of [reader, author]) await follow(user, room.id)
		await registerDevice(reader, `dev-${reader.uuid}`, 'tok-notice-reader')
		await registerDevice(author, `dev-${author.uuid}`, 'tok-notice-author')

		// No push engine runs yet: the messages are answered, their notices wait, nothing is queued.
		const message = await say(author, room.id, 'resolved later')
		const answer = await say(reader, room.id, 'answered')
		expect((await noticesOf(community)).sort()).toEqual([message.id, answer.id].sort())
		expect(await pushStatuses(community)).toEqual({})

		// Both notices are expanded in one batch, from one read of the room's audience:
		// each author still hears of the other's message only.
		stopEngine = engine()
		await waitFor(() => fake.to('tok-notice-reader').length === 1, { what: 'the push' })
		await waitFor(() => fake.to('tok-notice-author').length === 1, { what: 'the answer push' })
		expect(fake.to('tok-notice-reader')[0].data.sub_title).toBe('Writer: resolved later')
		expect(fake.to('tok-notice-author')[0].data.sub_title).toBe('Reader: answered')
		await waitFor(async () => (await noticesOf(community)).length === 0, {
			what: 'the notices gone',
		})
		await waitFor(async () => {
			const s = await pushStatuses(community)
			return !s.pending && !s.sending
		})
		expect(fake.to('tok-notice-reader')).toHaveLength(1)
		expect(fake.to('tok-notice-author')).toHaveLength(1)
	})

	// 1,001 launches: about 8 s on one Postgres, over 100 s on the loopback Citus cluster.
	const PAGES_TIMEOUT_MS = process.env.TEST_CITUS ? 300_000 : 120_000
	test(
		'notifications.chat pages hold 1,000 customer ids each: 1,001 recipients are two pages',
		async () => {
			const community = await newCommunity('notice-pages')
			const cm = await newUser(community, { role: 'cm', name: 'Big Host' })
			await register({ community, cm }, 'http://127.0.0.1:9/chat', 'notifications.chat')
			const members: TestUser[] = []
			for (let i = 0; i < 1001; i += 50)
				members.push(
					...(await Promise.all(
						Array.from({ length: Math.min(50, 1001 - i) }, () => newUser(community)),
					)),
				)
			const room = await newRoom(cm, {
				title: 'Hall',
				uuids: members.slice(0, 1000).map((m) => m.uuid),
			})
			await follow(members[1000] as TestUser, room.id)
			stopEngine ??= engine()

			await say(cm, room.id, 'to the hall')
			await waitFor(async () => (await eventsOf(community, 'notifications.chat')).length === 2, {
				what: 'two pages',
				timeoutMs: 20_000,
			})
			const pages = await eventsOf(community, 'notifications.chat')
			expect(pages.map((p) => [p.current_page, p.total_pages, p.uuids.length]).sort()).toEqual([
				[1, 2, 1000],
				[2, 2, 1],
			])
			const all = pages.flatMap((p) => p.uuids as string[]).sort()
			expect(all).toEqual(members.map((m) => m.uniqueId).sort())
			expect(pages[0].notification_payload.sub_title).toBe('Big Host: to the hall')
		},
		PAGES_TIMEOUT_MS,
	)
})

describe('chat events only for types somebody listens for', () => {
	test('no webhook: no event rows; a webhook of the type: its rows, with the members', async () => {
		const community = await newCommunity('notice-events')
		const cm = await newUser(community, { role: 'cm', name: 'Ev' })
		const ana = await newUser(community, { name: 'Ana' })
		const room = await newRoom(cm, { title: 'Quiet' })
		await follow(ana, room.id)
		stopEngine ??= engine()

		const first = await say(ana, room.id, 'nobody listens')
		await waitFor(async () => (await noticesOf(community)).length === 0, { what: 'expanded' })
		for (const event of ['conversation.create', 'chatroom.message.sent', 'notifications.chat'])
			expect(await eventsOf(community, event)).toEqual([])

		// Positive control: once webhooks of these types exist, the same write records them.
		await register({ community, cm }, 'http://127.0.0.1:9/create', 'conversation.create')
		await register({ community, cm }, 'http://127.0.0.1:9/chat', 'notifications.chat')
		const second = await say(ana, room.id, 'now they do')
		await waitFor(async () => (await eventsOf(community, 'notifications.chat')).length === 1, {
			what: 'notifications.chat',
		})
		const [created] = await eventsOf(community, 'conversation.create')
		expect(created.conversation).toMatchObject({
			conversation_id: second.id,
			members: [cm.uuid, ana.uuid],
		})
		expect((await eventsOf(community, 'notifications.chat'))[0].uuids).toEqual([cm.uniqueId])
		// chatroom.message.sent has no webhook: still nothing, and the first message stays untold.
		expect(await eventsOf(community, 'chatroom.message.sent')).toEqual([])
		expect(first.id < second.id).toBe(true)
	})
})

describe('created_at follows the order of the page', () => {
	test('16 writers at once: ids and created_at never step back between neighbours', async () => {
		const community = await newCommunity('notice-order')
		const cm = await newUser(community, { role: 'cm' })
		const writers = await Promise.all(Array.from({ length: 16 }, () => newUser(community)))
		const room = await newRoom(cm, { title: 'Race', uuids: writers.map((w) => w.uuid) })
		await Promise.all(
			writers.map(async (writer, w) => {
				for (let i = 0; i < 6; i++) await say(writer, room.id, `w${w} m${i}`)
			}),
		)
		const reply = await api('GET', `/conversation?chatroom_id=${room.id}&paginate_by=100`, {
			token: cm.token,
		})
		expect(reply.status).toBe(200)
		const messages = (
			reply.body.data.conversations as { id: string; state: number; created_at: number }[]
		).filter((c) => c.state === 0)
		expect(messages).toHaveLength(96)
		const backwards = messages.flatMap((c, i) => {
			const before = messages[i - 1]
			return before && (c.created_at < before.created_at || BigInt(c.id) <= BigInt(before.id))
				? [[before, c]]
				: []
		})
		expect(backwards).toEqual([])
		// The same order in the sync read (by updated_at), which a client keeping a copy uses.
		const synced = await api(
			'GET',
			`/conversation/sync?chatroom_id=${room.id}&min_timestamp=0&max_timestamp=${Date.now() + 60_000}&page_size=100`,
			{ token: cm.token },
		)
		expect(synced.status).toBe(200)
		const ids = (synced.body.data.conversations_data as { id: string; state: number }[])
			.filter((c) => c.state === 0)
			.map((c) => c.id)
		expect(ids.length).toBeGreaterThan(50)
		expect(ids).toEqual(messages.map((c) => c.id).slice(0, ids.length))
	}, 60_000)
})

describe('writers of a room share a transaction (post-batch.ts)', () => {
	test('messages posted at once all commit in order; one that fails fails alone', async () => {
		const community = await newCommunity('notice-batch')
		const cm = await newUser(community, { role: 'cm' })
		const writers = await Promise.all(Array.from({ length: 8 }, () => newUser(community)))
		const room = await newRoom(cm, { title: 'Batch', uuids: writers.map((w) => w.uuid) })
		const post = (writer: TestUser, body: Record<string, unknown>) =>
			api('POST', '/conversation', { token: writer.token, body: { chatroom_id: room.id, ...body } })
		const unknownWidget = [{ attachment_type: 5, attachment_meta: { entity_id: 'f'.repeat(24) } }]
		for (let round = 0; round < 3; round++) {
			const replies = await Promise.all(
				writers.map((w, i) =>
					post(
						w,
						i === 3 ? { text: 'bad', attachments: unknownWidget } : { text: `r${round} w${i}` },
					),
				),
			)
			expect(replies.map((r) => r.status)).toEqual(writers.map((_, i) => (i === 3 ? 404 : 200)))
		}
		const page = await api('GET', `/conversation?chatroom_id=${room.id}&paginate_by=100`, {
			token: cm.token,
		})
		const messages = (page.body.data.conversations as { answer: string; state: number }[]).filter(
			(c) => c.state === 0,
		)
		expect(messages.map((c) => c.answer).sort()).toEqual(
			[0, 1, 2].flatMap((r) => [0, 1, 2, 4, 5, 6, 7].map((i) => `r${r} w${i}`)).sort(),
		)
		// The failing message wrote nothing: no notice, no conversation, exact unread counts.
		await waitFor(async () => (await noticesOf(community)).length === 0, { what: 'expanded' })
		const unread = await api('GET', `/chatroom?chatroom_id=${room.id}`, { token: cm.token })
		expect(unread.body.data.unread_messages).toBe(0)
		const other = await api('GET', `/chatroom?chatroom_id=${room.id}`, {
			token: (writers[3] as TestUser).token,
		})
		expect(other.body.data.unread_messages).toBe(21)
	})
})
