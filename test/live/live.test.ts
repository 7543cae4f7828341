// Live updates (issue 41) through a real WebSocket client and an SSE reader against a
// listening plaza: authentication before the upgrade (header, single-use ticket), each
// scope's events, the secret-room rule, revocation closing the socket within a second,
// resume by cursor (nothing missed, nothing twice) and `reset` past the window.
import { beforeAll, describe, expect, test } from 'bun:test'
import type Redis from 'ioredis'
import { Cluster } from 'ioredis'
import { redis } from '../../src/lib/redis'
import { signAccessToken } from '../../src/lib/tokens'
import {
	LIVE_LIMITS,
	liveScopes,
	MAX_CONNECTIONS_PER_USER,
	publishLive,
	subscriberName,
} from '../../src/live'
import { HINT_MS } from '../../src/modules/dashboard/stats-live'
import { newPoll, vote } from '../polls/support'
import { follow, newRoom, say } from '../support/chat'
import { newCommunity, newUser, type TestCommunity, type TestUser } from '../support/community'
import { block, connect, enableConnections } from '../support/connections'
import { newPost } from '../support/content'
import { api } from '../support/http'
import { liveServer, openEvents, openSocket, stallingSocket, subscribe } from '../support/live'

let community: TestCommunity
let cm: TestUser
let ana: TestUser
let bob: TestUser

beforeAll(async () => {
	liveServer()
	community = await newCommunity('live')
	cm = await newUser(community, { role: 'cm', name: 'Cm' })
	ana = await newUser(community, { name: 'Ana' })
	bob = await newUser(community, { name: 'Bob' })
})

/** A WebSocket upgrade request as a browser sends it, its answer read as plain HTTP. */
const upgrade = (path: string, token?: string) =>
	fetch(`${liveServer()}${path}`, {
		headers: {
			...(token ? { authorization: `Bearer ${token}` } : {}),
			connection: 'Upgrade',
			upgrade: 'websocket',
			'sec-websocket-version': '13',
			'sec-websocket-key': btoa('0123456789abcdef'),
		},
	})

describe('authentication before the upgrade', () => {
	test('no token: 401 before any upgrade; a ticket opens once, then is spent', async () => {
		const bare = await upgrade('/live')
		expect(bare.status).toBe(401)
		expect(((await bare.json()) as { error_message: string }).error_message).toBe(
			'Missing access token',
		)
		const sse = await fetch(`${liveServer()}/live/events?scopes=me`)
		expect(sse.status).toBe(401)

		const issued = await api('POST', '/live/ticket', { token: ana.token })
		expect(issued.status).toBe(200)
		expect(issued.body.expires_in).toBe(30)
		const socket = await openSocket({ ticket: issued.body.ticket })
		expect((await subscribe(socket, 'me')).type).toBe('subscribed')
		socket.close()
		const again = await upgrade(`/live?ticket=${issued.body.ticket}`)
		expect(again.status).toBe(401)
		expect(((await again.json()) as { error_message: string }).error_message).toBe(
			'Invalid or expired ticket',
		)
	})
})

describe('chatroom scope', () => {
	test('new, edited and deleted conversations reach a member subscribed to the room', async () => {
		const room = await newRoom(cm)
		await follow(ana, room.id)
		await follow(bob, room.id)
		const socket = await openSocket({ token: bob.token })
		expect(await subscribe(socket, `chatroom:${room.id}`)).toMatchObject({ type: 'subscribed' })

		const said = await say(ana, room.id, 'hello live')
		const created = await socket.next((f) => f.event?.type === 'conversation.new', 'new')
		expect(created.scope).toBe(`chatroom:${room.id}`)
		expect(created.event.data.conversation.id).toBe(said.id)
		expect(created.event.data.conversation.answer).toBe('hello live')

		const edit = await api('PUT', '/conversation', {
			token: ana.token,
			body: { conversation_id: said.id, text: 'edited live' },
		})
		expect(edit.status).toBe(200)
		const edited = await socket.next((f) => f.event?.type === 'conversation.edited', 'edited')
		expect(edited.event.data.conversation.answer).toBe('edited live')

		const gone = await api('DELETE', '/conversation', {
			token: ana.token,
			body: { conversation_ids: [said.id] },
		})
		expect(gone.status).toBe(200)
		const deleted = await socket.next((f) => f.event?.type === 'conversation.deleted', 'deleted')
		expect(deleted.event.data.conversation_id).toBe(String(said.id))
		socket.close()
	})

	test('a secret room answers an outsider as a room that does not exist; its member is let in', async () => {
		const secret = await newRoom(cm, { title: 'Secret', is_secret: true })
		const outsider = await openSocket({ token: bob.token })
		const refused = await subscribe(outsider, `chatroom:${secret.id}`)
		const missing = await subscribe(outsider, 'chatroom:999999999')
		expect(refused).toMatchObject({ type: 'error', error_message: 'Chatroom not found' })
		expect(missing.error_message).toBe(refused.error_message)
		// Positive control: the CM who made it may follow it, and hears its messages.
		const member = await openSocket({ token: cm.token })
		expect((await subscribe(member, `chatroom:${secret.id}`)).type).toBe('subscribed')
		await say(cm, secret.id, 'for insiders')
		await member.next((f) => f.event?.type === 'conversation.new', 'secret message')
		expect(outsider.frames.some((f) => f.type === 'event')).toBe(false)
		outsider.close()
		member.close()
	})
})

describe('chatroom scope: reactions', () => {
	test('a reaction and its removal reach the room', async () => {
		const room = await newRoom(cm)
		await follow(ana, room.id)
		const said = await say(cm, room.id, 'react to me')
		const socket = await openSocket({ token: cm.token })
		expect((await subscribe(socket, `chatroom:${room.id}`)).type).toBe('subscribed')
		const body = { conversation_id: said.id, reaction: '👍' }
		expect((await api('PUT', '/conversation/reaction', { token: ana.token, body })).status).toBe(
			200,
		)
		const added = await socket.next((f) => f.event?.type === 'reaction.added', 'reaction')
		expect(added.event?.data).toMatchObject({ conversation_id: String(said.id), reaction: '👍' })
		const gone = await api('DELETE', '/conversation/reaction', { token: ana.token, body })
		expect(gone.status).toBe(200)
		await socket.next((f) => f.event?.type === 'reaction.removed', 'reaction removed')
		socket.close()
	})
})

describe('chatroom scope: polls and seats', () => {
	test('a vote sends the totals of an open poll; a deferred poll only says it moved', async () => {
		const room = await newRoom(cm)
		await follow(ana, room.id)
		await follow(bob, room.id)
		const socket = await openSocket({ token: bob.token })
		await subscribe(socket, `chatroom:${room.id}`)
		const open = await newPoll(cm, room.id, { poll_type: 2 })
		const deferred = await newPoll(cm, room.id, { poll_type: 1 })
		expect((await vote(ana, open.id, [open.polls[1].id])).status).toBe(200)
		const totals = await socket.next(
			(f) => f.event?.type === 'poll.votes' && f.event.data.conversation_id === open.id,
			'open poll totals',
		)
		expect(totals.event.data.voters).toBe(1)
		expect(totals.event.data.options).toEqual([{ id: open.polls[1].id, votes_count: 1 }])
		expect((await vote(ana, deferred.id, [deferred.polls[0].id])).status).toBe(200)
		const moved = await socket.next(
			(f) => f.event?.type === 'poll.votes' && f.event.data.conversation_id === deferred.id,
			'deferred poll moved',
		)
		expect(moved.event.data).toEqual({ conversation_id: deferred.id })
		socket.close()
	})

	test('joins and leaves reach the room', async () => {
		const room = await newRoom(cm)
		const socket = await openSocket({ token: cm.token })
		await subscribe(socket, `chatroom:${room.id}`)
		await follow(ana, room.id)
		const joined = await socket.next((f) => f.event?.type === 'member.joined', 'joined')
		expect(joined.event.data).toMatchObject({ member_id: ana.id, method: 'self_joined' })
		await follow(ana, room.id, false)
		const left = await socket.next((f) => f.event?.type === 'member.left', 'left')
		expect(left.event.data).toMatchObject({ member_id: ana.id, method: 'self_left' })
		socket.close()
	})
})

describe('me scope', () => {
	test('new activity and the absolute badge, equal to GET unread_count; a read moves it', async () => {
		const postId = await newPost(bob, { text: 'like me' })
		const socket = await openSocket({ token: bob.token })
		await subscribe(socket, 'me')
		expect((await api('PUT', `/feed/post/${postId}/like`, { token: ana.token })).status).toBe(200)
		const activity = await socket.next((f) => f.event?.type === 'activity.new', 'activity')
		const badge = await socket.next((f) => f.event?.type === 'badge', 'badge')
		const unread = await api('GET', '/feed/user/activity/unread_count', { token: bob.token })
		expect(badge.event.data.count).toBe(unread.body.data.count)
		expect(badge.event.data.count).toBeGreaterThan(0)

		const from = socket.frames.length
		const read = await api(
			'POST',
			`/feed/user/activity/${activity.event.data.activity_id}/mark_read`,
			{
				token: bob.token,
			},
		)
		expect(read.status).toBe(200)
		const after = await socket.next((f) => f.event?.type === 'badge', 'badge after read', from)
		expect(after.event.data.count).toBe(badge.event.data.count - 1)
		socket.close()
	})
})

describe('feed:universal over SSE', () => {
	test('new posts available: count and newest id, a blocked author left out', async () => {
		const carl = await newUser(community, { name: 'Carl' })
		await block(community, ana, carl)
		const reader = await openEvents(ana.token, 'scopes=feed:universal')
		expect(reader.status).toBe(200)
		await reader.next((f) => f.type === 'subscribed', 'subscribed')
		const first = await newPost(bob, { text: 'one' })
		const hidden = await newPost(carl, { text: 'from a blocked author' })
		const second = await newPost(cm, { text: 'two' })
		const last = await reader.next((f) => f.event?.data?.newest_id === second, 'second post')
		expect(last.event).toMatchObject({ type: 'posts.new', data: { count: 2, newest_id: second } })
		const seen = reader.events.map((e) => e.data.event?.data?.newest_id)
		expect(seen).toContain(first)
		expect(seen).not.toContain(hidden)
		// Each event's id is the whole cursor map, so Last-Event-ID resumes every scope.
		expect(reader.events.at(-1)?.id).toMatch(/^feed:universal@\d+-\d+$/)
		reader.stop()
	})

	test('feed:connection over a WebSocket: posts of those the viewer follows, connections-only ones too', async () => {
		await enableConnections(community)
		const dan = await newUser(community, { name: 'Dan' })
		const eve = await newUser(community, { name: 'Eve' })
		const stranger = await newUser(community, { name: 'Stranger' })
		await connect(dan, eve)
		const socket = await openSocket({ token: dan.token })
		expect((await subscribe(socket, 'feed:connection')).type).toBe('subscribed')
		const unfollowed = await newPost(stranger, { text: 'not followed' })
		const inner = await newPost(eve, { text: 'for connections', visibility: 'connections' })
		const last = await socket.next((f) => f.event?.data?.newest_id === inner, 'followed post')
		expect(last.event).toMatchObject({ type: 'posts.new', data: { count: 1, newest_id: inner } })
		expect(socket.frames.some((f) => f.event?.data?.newest_id === unfollowed)).toBe(false)
		socket.close()
	})

	test('a scope the caller may not read refuses the stream before it starts', async () => {
		const secret = await newRoom(cm, { title: 'Secret SSE', is_secret: true })
		const refused = await openEvents(bob.token, `scopes=chatroom:${secret.id}`)
		expect(refused.status).toBe(404)
		const allowed = await openEvents(cm.token, `scopes=chatroom:${secret.id}`)
		expect(allowed.status).toBe(200)
		allowed.stop()
	})
})

describe('community scope', () => {
	test('CMs hear the review queue counts move; a member is refused with 403', async () => {
		const refused = await subscribe(await openSocket({ token: ana.token }), 'community')
		expect(refused).toMatchObject({
			type: 'error',
			error_message: 'community is for community managers',
		})
		expect((await openEvents(ana.token, 'scopes=community')).status).toBe(403)

		const socket = await openSocket({ token: cm.token })
		expect((await subscribe(socket, 'community')).type).toBe('subscribed')
		const postId = await newPost(bob, { text: 'reported live' })
		const tags = await api('GET', '/community/report/tag?entity_type=post', { token: ana.token })
		const filed = await api('POST', '/community/report', {
			token: ana.token,
			body: {
				entity_id: postId,
				entity_type: 'post',
				tag_id: tags.body.data.report_tags[0].id,
				reason: 'live',
			},
		})
		expect(filed.status).toBe(200)
		const opened = await socket.next((f) => f.event?.type === 'queue', 'queue after filing')
		expect(opened.event?.data).toMatchObject({ cause: 'report.created', pending_posts: 0 })
		const before = opened.event?.data?.open_reports as number
		expect(before).toBeGreaterThanOrEqual(1)
		const closed = await api('PATCH', '/community/report', {
			token: cm.token,
			body: { report_ids: [filed.body.data.report.id], action_taken: 'POST_APPROVED' },
		})
		expect(closed.status).toBe(200)
		const after = await socket.next(
			(f) => f.event?.data?.cause === 'report.closed',
			'queue after closing',
		)
		expect(after.event?.data?.open_reports).toBe(before - 1)
		socket.close()
	})
})

describe('community scope: pending posts', () => {
	test('a post held for approval moves the pending count', async () => {
		const held = await newCommunity('live-pending')
		const manager = await newUser(held, { role: 'cm', name: 'Manager' })
		const writer = await newUser(held, { name: 'Writer' })
		const set = await api('PUT', '/community/settings/moderation', {
			token: manager.token,
			body: { post_moderation: 'all' },
		})
		expect(set.status).toBe(200)
		const socket = await openSocket({ token: manager.token })
		expect((await subscribe(socket, 'community')).type).toBe('subscribed')
		await newPost(writer, { text: 'waits for a CM' })
		const pending = await socket.next((f) => f.event?.data?.cause === 'post.pending', 'pending')
		expect(pending.event?.data).toMatchObject({ open_reports: 0, pending_posts: 1 })
		socket.close()
	})
})

describe('community scope: stats', () => {
	test('a member joining and a burst of posts are hinted, at most once per interval, the last change included', async () => {
		const busy = await newCommunity('live-stats')
		const manager = await newUser(busy, { role: 'cm', name: 'Manager' })
		const socket = await openSocket({ token: manager.token })
		expect((await subscribe(socket, 'community')).type).toBe('subscribed')
		const stats = () => socket.frames.filter((f) => f.event?.type === 'stats')
		const writer = await newUser(busy, { name: 'Writer' })
		const joined = await socket.next((f) => f.event?.type === 'stats', 'stats after a join')
		expect(joined.event.data).toEqual({ cause: 'member.joined' })
		const started = Date.now()
		await Promise.all(Array.from({ length: 12 }, (_, i) => newPost(writer, { text: `burst ${i}` })))
		const lastStarted = Date.now()
		await newPost(writer, { text: 'the last of the burst' })
		const elapsed = Date.now() - started
		// The last post is within the interval of an earlier hint: told at its end.
		const last = await socket.next(
			(f) => f.event?.type === 'stats' && f.event.at >= lastStarted,
			'a hint after the last post',
		)
		expect(last.event.data).toEqual({ cause: 'post.created' })
		await Bun.sleep(HINT_MS + 500)
		// 13 posts, one hint per interval (the join's interval included): never one per post.
		const hinted = stats().length - 1
		expect(hinted).toBeGreaterThanOrEqual(1)
		expect(hinted).toBeLessThanOrEqual(Math.floor(elapsed / HINT_MS) + 2)
		expect(hinted).toBeLessThan(13)
		socket.close()
	})
})

describe('revocation', () => {
	test('logout closes the live socket within a second', async () => {
		const login = await api('POST', '/sdk/initiate', {
			apiKey: community.apiKey,
			body: { user_unique_id: `live-rev-${Date.now()}` },
		})
		const { access_token, refresh_token } = login.body.data
		const socket = await openSocket({ token: access_token })
		await subscribe(socket, 'me')
		const started = Date.now()
		const out = await api('POST', '/user/logout', {
			token: access_token,
			body: { refresh_token },
		})
		expect(out.status).toBe(200)
		const closed = await socket.closed
		expect(closed.code).toBe(4001)
		expect(closed.at - started).toBeLessThan(1000)
	})

	test('positive control: a socket of a login still valid stays open', async () => {
		const socket = await openSocket({ token: ana.token })
		await subscribe(socket, 'me')
		await Bun.sleep(1200)
		const state = await Promise.race([socket.closed, Bun.sleep(50).then(() => 'open')])
		expect(state).toBe('open')
		socket.close()
	})
})

describe('resume by cursor', () => {
	test('reconnecting with a cursor: every missed event once, then live ones, no duplicate', async () => {
		const room = await newRoom(cm)
		await follow(ana, room.id)
		const scope = `chatroom:${room.id}`
		const first = await openSocket({ token: ana.token })
		await subscribe(first, scope)
		await say(cm, room.id, 'm1')
		const seen = await first.next((f) => f.event?.data?.conversation?.answer === 'm1', 'm1')
		first.close()
		await first.closed
		await say(cm, room.id, 'm2')
		await say(cm, room.id, 'm3')

		const again = await openSocket({ token: ana.token })
		expect((await subscribe(again, scope, seen.id)).type).toBe('subscribed')
		await say(cm, room.id, 'm4')
		await again.next((f) => f.event?.data?.conversation?.answer === 'm4', 'm4')
		const texts = again.frames
			.filter((f) => f.type === 'event')
			.map((f) => f.event.data.conversation.answer)
		expect(texts).toEqual(['m2', 'm3', 'm4'])
		const ids = again.frames.filter((f) => f.type === 'event').map((f) => f.id)
		expect(new Set(ids).size).toBe(ids.length)
		again.close()
	})

	test('a cursor past the window gets reset; a cursor inside it does not', async () => {
		const room = await newRoom(cm)
		await follow(ana, room.id)
		const scope = liveScopes.chatroom(community.communityId, room.id)
		const oldest = await publishLive(scope, { type: 'test.filler', data: { n: 0 } })
		for (let n = 1; n <= 1300; n++) await publishLive(scope, { type: 'test.filler', data: { n } })
		const recent = await publishLive(scope, { type: 'test.filler', data: { n: 1301 } })
		await publishLive(scope, { type: 'test.filler', data: { n: 1302 } })

		const socket = await openSocket({ token: ana.token })
		socket.send({ type: 'subscribe', scope: scope.name, cursor: oldest })
		const reset = await socket.next((f) => f.type === 'reset', 'reset')
		expect(reset.scope).toBe(scope.name)
		expect(socket.frames.some((f) => f.type === 'event')).toBe(false)
		socket.close()

		const inside = await openSocket({ token: ana.token })
		expect((await subscribe(inside, scope.name, recent as string)).type).toBe('subscribed')
		const events = inside.frames.filter((f) => f.type === 'event')
		expect(events.map((f) => f.event.data.n)).toEqual([1302])
		expect(inside.frames.some((f) => f.type === 'reset')).toBe(false)
		inside.close()
	})
})

describe('expiry, limits and health', () => {
	test("a socket closes at its token's expiry (4001); a token with time left keeps its socket", async () => {
		const short = await signAccessToken(
			{ sub: ana.uuid, uid: ana.id, cid: community.communityId, role: 'member' },
			0.05,
		)
		const [socket, control] = await Promise.all([
			openSocket({ token: short }),
			openSocket({ token: ana.token }),
		])
		await subscribe(socket, 'me')
		const closed = await socket.closed
		expect(closed.code).toBe(4001)
		expect(closed.reason).toBe('token expired')
		const state = await Promise.race([control.closed, Bun.sleep(50).then(() => 'open')])
		expect(state).toBe('open')
		control.close()
	})

	test('connections per user: the one past the limit answers 429 at the upgrade', async () => {
		const carol = await newUser(community, { name: 'Carol' })
		const sockets = []
		for (let n = 0; n < MAX_CONNECTIONS_PER_USER; n++)
			sockets.push(await openSocket({ token: carol.token }))
		const refused = await upgrade('/live', carol.token)
		expect(refused.status).toBe(429)
		sockets.pop()?.close()
		await Bun.sleep(100)
		const socket = await openSocket({ token: carol.token })
		for (const s of [...sockets, socket]) s.close()
	})

	test('SSE: a ping comment on its interval; Last-Event-ID resumes every scope', async () => {
		const every = LIVE_LIMITS.ssePingMs
		LIVE_LIMITS.ssePingMs = 300
		try {
			const room = await newRoom(cm)
			await follow(ana, room.id)
			const scopes = `scopes=me,chatroom:${room.id}`
			const reader = await openEvents(ana.token, scopes)
			await say(cm, room.id, 's1')
			await reader.next((f) => f.event?.data?.conversation?.answer === 's1', 's1')
			const lastId = reader.events.at(-1)?.id as string
			expect(lastId).toContain(`chatroom:${room.id}@`)
			expect(lastId).toContain('me@')
			await Bun.sleep(700)
			expect(reader.comments).toContain('ping')
			reader.stop()

			await say(cm, room.id, 's2')
			const resumed = await openEvents(ana.token, scopes, { 'last-event-id': lastId })
			await resumed.next((f) => f.event?.data?.conversation?.answer === 's2', 's2')
			const texts = resumed.events
				.map((e) => e.data.event?.data?.conversation?.answer)
				.filter((t) => t !== undefined)
			expect(texts).toEqual(['s2'])
			resumed.stop()
		} finally {
			LIVE_LIMITS.ssePingMs = every
		}
	})

	test('a client that stops reading is closed past 1 MB waiting (4008, resumable); a reading one is not', async () => {
		const room = await newRoom(cm)
		const scope = liveScopes.chatroom(community.communityId, room.id)
		const stalled = await stallingSocket(cm.token)
		const reading = await openSocket({ token: cm.token })
		await subscribe(reading, scope.name)
		await Bun.sleep(100)
		stalled.send({ type: 'subscribe', scope: scope.name })
		const deadline = Date.now() + 3000
		while (!stalled.state.received.includes('"subscribed"') && Date.now() < deadline)
			await Bun.sleep(20)
		expect(stalled.state.received).toContain('"subscribed"')
		stalled.pause()
		const big = 'x'.repeat(60_000)
		for (let n = 0; n < 400; n++) await publishLive(scope, { type: 'test.big', data: { n, big } })
		await reading.next((f) => f.event?.data?.n === 399, 'the last big event')
		await Bun.sleep(600)
		stalled.resume()
		await Bun.sleep(300)
		// A close frame with code 4008 (0x0fa8) and its reason.
		expect(stalled.state.received).toContain('\x0f\xa8send buffer full; resume with your cursors')
		expect(reading.frames.filter((f) => f.type === 'event').length).toBe(400)
		expect(await Promise.race([reading.closed, Bun.sleep(50).then(() => 'open')])).toBe('open')
		stalled.end()
		reading.close()
	})

	test('one subscriber connection per Redis master, whatever the number of scopes', async () => {
		const rooms = await Promise.all([1, 2, 3, 4, 5, 6].map(() => newRoom(cm)))
		const socket = await openSocket({ token: cm.token })
		for (const room of rooms)
			expect((await subscribe(socket, `chatroom:${room.id}`)).type).toBe('subscribed')
		await subscribe(socket, 'me')
		await subscribe(socket, 'feed:universal')
		const nodes: Redis[] = redis instanceof Cluster ? redis.nodes('master') : [redis as Redis]
		const perNode = await Promise.all(
			nodes.map(async (node) => {
				const list = (await node.client('LIST')) as string
				return list
					.split('\n')
					.filter((line) => line.includes(`${subscriberName()} `) && /flags=\S*P/.test(line)).length
			}),
		)
		// ioredis prefixes the name on a cluster (`ioredis-cluster(ssubscriber)-…`).
		// Positive control: the subscriber exists (one on a standalone Redis) …
		expect(perNode.reduce((a, b) => a + b, 0)).toBeGreaterThanOrEqual(1)
		// … and never more than one per master.
		for (const count of perNode) expect(count).toBeLessThanOrEqual(1)
		socket.close()
	})

	test('/metrics: connections, deliveries and the commit-to-send lag', async () => {
		const socket = await openSocket({ token: bob.token })
		await subscribe(socket, 'me')
		await newPost(ana, { text: 'metrics' })
		const body = await (await fetch(`${liveServer()}/metrics`)).text()
		expect(body).toMatch(/live_connections\{transport="ws"\} [1-9]/)
		expect(body).toMatch(/live_deliveries_total [1-9]/)
		expect(body).toMatch(/live_commit_to_send_seconds_count [1-9]/)
		socket.close()
	})
})
