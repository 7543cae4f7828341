// Conversations through the HTTP API: who may post, replies, keyset pages in both
// directions, edit and delete, sync by updated_at, and exact unread counts.
import { beforeAll, describe, expect, test } from 'bun:test'
import { follow, newRoom, roomAs, say } from '../support/chat'
import { newCommunity, newUser, type TestCommunity, type TestUser } from '../support/community'
import { api } from '../support/http'

let community: TestCommunity
let cm: TestUser
let ana: TestUser
let ben: TestUser

beforeAll(async () => {
	community = await newCommunity('conversations')
	cm = await newUser(community, { role: 'cm', name: 'Cleo' })
	ana = await newUser(community, { name: 'Ana' })
	ben = await newUser(community, { name: 'Ben' })
})

const page = async (user: TestUser, query: string) => {
	const reply = await api('GET', `/conversation?${query}`, { token: user.token })
	expect(reply.status).toBe(200)
	return reply.body.data.conversations as { id: string; answer: string; state: number }[]
}
const unread = async (user: TestUser, id: string) => (await roomAs(user, id)).unread_messages

describe('posting', () => {
	test('participants post; the text comes back as answer with the member', async () => {
		const room = await newRoom(cm)
		await follow(ana, room.id)
		const reply = await api('POST', '/conversation', {
			token: ana.token,
			body: { chatroom_id: room.id, text: 'hello', temporary_id: 't-1' },
		})
		expect(reply.status).toBe(200)
		const { id, conversation } = reply.body.data
		expect(id).toMatch(/^[1-9]\d*$/)
		expect(conversation).toMatchObject({
			id,
			chatroom_id: room.id,
			community_id: community.communityId,
			answer: 'hello',
			state: 0,
			is_edited: false,
			temporary_id: 't-1',
			attachments: [],
			reactions: [],
			reply_conversation: null,
		})
		expect(conversation.member).toMatchObject({ id: String(ana.id), uuid: ana.uuid, state: 4 })
		expect(conversation.created_epoch).toBe(conversation.created_at)
		expect(reply.body.data.widgets).toEqual({}) // chat-js's declared PostConversationResponse
	})

	test('a numeric temporary_id (chat-js sends one) comes back as a string; a fraction is refused', async () => {
		const room = await newRoom(cm)
		await follow(ana, room.id)
		const reply = await api('POST', '/conversation', {
			token: ana.token,
			body: { chatroom_id: room.id, text: 'numbered', temporary_id: 222 },
		})
		expect(reply.status).toBe(200)
		expect(reply.body.data.conversation.temporary_id).toBe('222')
		const fraction = await api('POST', '/conversation', {
			token: ana.token,
			body: { chatroom_id: room.id, text: 'numbered', temporary_id: 2.5 },
		})
		expect(fraction.status).toBe(400)
		expect(fraction.body.error_message).toContain('temporary_id')
	})

	test('a member without a seat, an unknown room and empty text are refused', async () => {
		const room = await newRoom(cm)
		const outsider = await api('POST', '/conversation', {
			token: ben.token,
			body: { chatroom_id: room.id, text: 'hi' },
		})
		expect(outsider.status).toBe(403)
		await follow(ben, room.id)
		expect((await say(ben, room.id, 'now seated')).answer).toBe('now seated')
		const empty = await api('POST', '/conversation', {
			token: ben.token,
			body: { chatroom_id: room.id, text: '  ' },
		})
		expect(empty.status).toBe(400)
		const unknown = await api('POST', '/conversation', {
			token: ben.token,
			body: { chatroom_id: '999999999', text: 'hi' },
		})
		expect(unknown.status).toBe(404)
	})

	test('only CMs post in an announcement room', async () => {
		const room = await newRoom(cm, { type: 7 })
		await follow(ana, room.id)
		const member = await api('POST', '/conversation', {
			token: ana.token,
			body: { chatroom_id: room.id, text: 'me too' },
		})
		expect(member.status).toBe(403)
		expect((await say(cm, room.id, 'announcement')).answer).toBe('announcement')
	})

	test('a reply carries the id and the object it replies to; another room is 404', async () => {
		const room = await newRoom(cm)
		const other = await newRoom(cm)
		await follow(ana, room.id)
		const first = await say(cm, room.id, 'question?')
		const reply = await say(ana, room.id, 'answer!', { replied_conversation_id: first.id })
		expect(reply.reply_conversation).toBe(first.id)
		expect(reply.reply_conversation_object).toMatchObject({ id: first.id, answer: 'question?' })
		const foreign = await api('POST', '/conversation', {
			token: cm.token,
			body: { chatroom_id: other.id, text: 'x', replied_conversation_id: first.id },
		})
		expect(foreign.status).toBe(404)
	})
})

describe('pages', () => {
	test('newest page, then older and newer than an anchor, oldest first, no duplicates', async () => {
		const room = await newRoom(cm)
		const texts = Array.from({ length: 25 }, (_, i) => `m${i}`)
		for (const text of texts) await say(cm, room.id, text)
		const messages = (rows: { answer: string; state: number }[]) =>
			rows.filter((r) => r.state === 0).map((r) => r.answer)

		const newest = await page(cm, `chatroom_id=${room.id}&paginate_by=10`)
		expect(messages(newest)).toEqual(texts.slice(15))
		const older = await page(
			cm,
			`chatroom_id=${room.id}&paginate_by=10&conversation_id=${newest[0]?.id}&scroll_direction=0`,
		)
		expect(messages(older)).toEqual(texts.slice(5, 15))
		const oldest = await page(
			cm,
			`chatroom_id=${room.id}&paginate_by=10&conversation_id=${older[0]?.id}&scroll_direction=0`,
		)
		// the creator's joined line comes first, then m0..m4
		expect(oldest.map((r) => r.state)).toEqual([2, 0, 0, 0, 0, 0])
		expect(messages(oldest)).toEqual(texts.slice(0, 5))
		const newer = await page(
			cm,
			`chatroom_id=${room.id}&paginate_by=10&conversation_id=${oldest.at(-1)?.id}&scroll_direction=1`,
		)
		expect(messages(newer)).toEqual(texts.slice(5, 15))
		const ids = [...oldest, ...older, ...newest].map((r) => r.id)
		expect(new Set(ids).size).toBe(26)
		expect(ids).toEqual([...ids].sort((a, b) => Number(a) - Number(b)))
	})

	test('the newest page (cached) follows every new, edited and deleted conversation', async () => {
		const room = await newRoom(cm)
		await follow(ana, room.id)
		const first = await say(ana, room.id, 'one')
		const answers = async () =>
			(await page(ana, `chatroom_id=${room.id}`)).filter((r) => r.state === 0).map((r) => r.answer)
		expect(await answers()).toEqual(['one'])
		expect(await answers()).toEqual(['one'])
		await say(cm, room.id, 'two')
		expect(await answers()).toEqual(['one', 'two'])
		await api('PUT', '/conversation', {
			token: ana.token,
			body: { conversation_id: first.id, text: 'one, edited' },
		})
		expect(await answers()).toEqual(['one, edited', 'two'])
		await api('DELETE', '/conversation', {
			token: ana.token,
			body: { conversation_ids: [first.id] },
		})
		expect(await answers()).toEqual(['', 'two'])
	})

	test('poll fields on the newest page are the viewer’s own', async () => {
		const room = await newRoom(cm)
		await follow(ana, room.id)
		const poll = await api('POST', '/conversation', {
			token: cm.token,
			body: {
				chatroom_id: room.id,
				state: 10,
				text: 'Tea or coffee?',
				polls: [{ text: 'Tea' }, { text: 'Coffee' }],
				poll_type: 0,
				expiry_time: Math.floor(Date.now() / 1000) + 3600,
			},
		})
		expect(poll.status).toBe(200)
		const pollOf = async (user: TestUser) =>
			(await page(user, `chatroom_id=${room.id}`)).find((r) => r.state === 10) as unknown as {
				to_show_results: boolean
				polls: { text: string }[]
			}
		// the creator sees results of an instant poll; a member who has not voted does not
		const byCreator = await pollOf(cm)
		const byMember = await pollOf(ana)
		expect(byCreator.to_show_results).toBe(true)
		expect(byMember.to_show_results).toBe(false)
		expect(byMember.polls.map((o) => o.text)).toEqual(['Tea', 'Coffee'])
	})

	test('include=true puts the anchor on the page; scroll_direction=undefined (chat-js) reads older', async () => {
		const room = await newRoom(cm)
		const ids: string[] = []
		for (const text of ['a', 'b', 'c']) ids.push((await say(cm, room.id, text)).id)
		const at = `chatroom_id=${room.id}&conversation_id=${ids[1]}`
		const answersOf = async (query: string) => (await page(cm, query)).map((c) => c.answer)
		// positive controls: without include the anchor is left out either way
		expect(await answersOf(`${at}&scroll_direction=0`)).toEqual(['', 'a'])
		expect(await answersOf(`${at}&scroll_direction=1`)).toEqual(['c'])
		expect(await answersOf(`${at}&scroll_direction=0&include=true`)).toEqual(['', 'a', 'b'])
		expect(await answersOf(`${at}&scroll_direction=1&include=true`)).toEqual(['b', 'c'])
		expect(await answersOf(`${at}&scroll_direction=undefined&include=true`)).toEqual(['', 'a', 'b'])
	})

	test('a conversation named without its room (chat-js conversationsFetch): its page, in this community only', async () => {
		const room = await newRoom(cm)
		const said = await say(cm, room.id, 'findable')
		const found = await page(cm, `conversation_id=${said.id}`)
		expect(found.at(-1)).toMatchObject({ id: said.id, answer: 'findable' })
		const elsewhere = await newCommunity('conversations-elsewhere')
		const stranger = await newUser(elsewhere, { role: 'cm' })
		const hidden = await api('GET', `/conversation?conversation_id=${said.id}`, {
			token: stranger.token,
		})
		expect(hidden.status).toBe(404)
		// a secret room's conversation, asked for by a member who may not see the room:
		// the same answer as an id that does not exist (positive control: the CM reads it)
		const secret = await newRoom(cm, { is_secret: true })
		const inSecret = await say(cm, secret.id, 'hush')
		expect((await page(cm, `conversation_id=${inSecret.id}`)).at(-1)?.id).toBe(inSecret.id)
		const unseen = await api('GET', `/conversation?conversation_id=${inSecret.id}`, {
			token: ben.token,
		})
		const unknown = await api('GET', '/conversation?conversation_id=999999999', {
			token: ben.token,
		})
		expect(unseen.status).toBe(404)
		expect(unseen.body).toEqual(unknown.body)
		const neither = await api('GET', '/conversation', { token: cm.token })
		expect(neither.status).toBe(400)
		expect(neither.body.error_message).toContain('chatroom_id')
	})

	test('bad paging input is 400 or 404, never 500', async () => {
		const room = await newRoom(cm)
		const zero = await api('GET', `/conversation?chatroom_id=${room.id}&paginate_by=0`, {
			token: cm.token,
		})
		expect(zero.status).toBe(400)
		const direction = await api(
			'GET',
			`/conversation?chatroom_id=${room.id}&conversation_id=1&scroll_direction=5`,
			{ token: cm.token },
		)
		expect(direction.status).toBe(400)
		const anchor = await api('GET', `/conversation?chatroom_id=${room.id}&conversation_id=x1`, {
			token: cm.token,
		})
		expect(anchor.status).toBe(404)
		const big = await api('GET', `/conversation?chatroom_id=${room.id}&paginate_by=5000`, {
			token: cm.token,
		})
		expect(big.status).toBe(200)
	})

	test('a secret room is 404 to members without access, readable with a CM seat', async () => {
		const room = await newRoom(cm, { is_secret: true })
		await say(cm, room.id, 'secret')
		const hidden = await api('GET', `/conversation?chatroom_id=${room.id}`, { token: ana.token })
		expect(hidden.status).toBe(404)
		await api('PUT', '/chatroom/follow', {
			token: cm.token,
			body: { chatroom_id: room.id, uuid: ana.uuid },
		})
		const rows = await page(ana, `chatroom_id=${room.id}`)
		expect(rows.map((r) => r.answer)).toContain('secret')
	})
})

describe('edit, delete, sync', () => {
	test('the author edits; another member may not; a CM deletes and it stays listed', async () => {
		const room = await newRoom(cm)
		await follow(ana, room.id)
		await follow(ben, room.id)
		const message = await say(ana, room.id, 'first draft')
		const notMine = await api('PUT', '/conversation', {
			token: ben.token,
			body: { conversation_id: message.id, text: 'hacked' },
		})
		expect(notMine.status).toBe(403)
		const edited = await api('PUT', '/conversation', {
			token: ana.token,
			body: { conversation_id: message.id, text: 'final' },
		})
		expect(edited.status).toBe(200)
		expect(edited.body.data.conversation).toMatchObject({ answer: 'final', is_edited: true })

		const benDeletes = await api('DELETE', '/conversation', {
			token: ben.token,
			body: { conversation_ids: [message.id] },
		})
		expect(benDeletes.status).toBe(403)
		const cmDeletes = await api('DELETE', '/conversation', {
			token: cm.token,
			body: { conversation_ids: [message.id] },
		})
		expect(cmDeletes.status).toBe(200)
		const listed = (await page(ana, `chatroom_id=${room.id}`)).find((r) => r.id === message.id)
		expect(listed).toMatchObject({ answer: '', is_deleted: true, deleted_by: String(cm.id) })
		const unknown = await api('DELETE', '/conversation', {
			token: cm.token,
			body: { conversation_ids: ['987654321'] },
		})
		expect(unknown.status).toBe(404)
	})

	test('sync returns what changed between the bounds, edits and deletes included, by cursor', async () => {
		const room = await newRoom(cm)
		const a = await say(cm, room.id, 'a')
		const b = await say(cm, room.id, 'b')
		await say(cm, room.id, 'c')
		await Bun.sleep(5)
		const since = Date.now()
		await Bun.sleep(5)
		await api('PUT', '/conversation', {
			token: cm.token,
			body: { conversation_id: a.id, text: 'a2' },
		})
		await api('DELETE', '/conversation', { token: cm.token, body: { conversation_ids: [b.id] } })
		const sync = await api(
			'GET',
			`/conversation/sync?chatroom_id=${room.id}&min_timestamp=${since}&max_timestamp=${Date.now()}`,
			{ token: cm.token },
		)
		expect(sync.status).toBe(200)
		const data = sync.body.data
		expect(data.conversations_data.map((c: { id: string }) => c.id)).toEqual([a.id, b.id])
		expect(data.conversations_data[0].answer).toBe('a2')
		expect(data.conversations_data[1].deleted_by).toBe(String(cm.id))
		expect(data.user_meta[String(cm.id)]).toMatchObject({ uuid: cm.uuid })
		expect(data.conv_polls_meta).toEqual({})

		const first = await api('GET', `/conversation/sync?chatroom_id=${room.id}&page_size=2`, {
			token: cm.token,
		})
		const cursor = first.body.data.next_cursor
		expect(cursor).toBeString()
		const rest = await api('GET', `/conversation/sync?chatroom_id=${room.id}&cursor=${cursor}`, {
			token: cm.token,
		})
		const all = [...first.body.data.conversations_data, ...rest.body.data.conversations_data]
		expect(all).toHaveLength(4) // joined line + a, b, c
		expect(rest.body.data.next_cursor).toBeNull()
		const backwards = await api(
			'GET',
			`/conversation/sync?chatroom_id=${room.id}&min_timestamp=10&max_timestamp=5`,
			{ token: cm.token },
		)
		expect(backwards.status).toBe(400)
	})
})

describe('sync in chat-js’s declared form', () => {
	test('attachments, reactions and replied-to conversations keyed by id; the room and its community', async () => {
		const room = await newRoom(cm)
		await follow(ana, room.id)
		const plain = await say(cm, room.id, 'plain')
		const reacted = await say(cm, room.id, 'react to me')
		await api('PUT', '/conversation/reaction', {
			token: ana.token,
			body: { chatroom_id: room.id, conversation_id: reacted.id, reaction: '👍' },
		})
		const reply = await say(ana, room.id, 'answering', { replied_conversation_id: reacted.id })
		const sync = await api('GET', `/conversation/sync?chatroom_id=${room.id}`, { token: ana.token })
		expect(sync.status).toBe(200)
		const data = sync.body.data
		expect(Object.keys(data.conv_reactions_meta)).toEqual([reacted.id])
		expect(data.conv_reactions_meta[reacted.id]).toEqual([
			expect.objectContaining({ reaction: '👍' }),
		])
		expect(Object.keys(data.conversation_meta)).toEqual([reacted.id])
		expect(data.conversation_meta[reacted.id].answer).toBe('react to me')
		expect(data.conv_attachments_meta).toEqual({})
		expect(data.chatroom_meta[room.id]).toMatchObject({ id: room.id, follow_status: true })
		expect(data.community_meta).toEqual({
			id: community.communityId,
			name: data.chatroom_meta[room.id].community_name,
		})
		expect(data.widgets).toEqual({})
		expect(data.chatroom_reactions_meta).toEqual([])
		// positive control: the plain message and the reply are on the page, unkeyed
		expect(data.conversations_data.map((c: { id: string }) => c.id)).toEqual(
			expect.arrayContaining([plain.id, reacted.id, reply.id]),
		)
	})
})

describe('unread_messages', () => {
	test('counts others’ messages after the read mark; reading the newest page or mark_read clears it', async () => {
		const room = await newRoom(cm)
		await follow(ana, room.id)
		await follow(ben, room.id)
		for (const text of ['one', 'two', 'three']) await say(ana, room.id, text)
		expect(await unread(ben, room.id)).toBe(3)
		expect(await unread(ana, room.id)).toBe(0)
		// ben's own message is never unread to him, and does not clear the others
		await say(ben, room.id, 'mine')
		expect(await unread(ben, room.id)).toBe(3)
		expect(await unread(ana, room.id)).toBe(1)

		await page(ben, `chatroom_id=${room.id}`)
		expect(await unread(ben, room.id)).toBe(0)
		await say(ana, room.id, 'four')
		expect(await unread(ben, room.id)).toBe(1)
		// an older page does not move the mark
		const rows = await page(
			ben,
			`chatroom_id=${room.id}&conversation_id=${Number.MAX_SAFE_INTEGER}&scroll_direction=0&paginate_by=1`,
		)
		expect(rows).toHaveLength(1)
		const marked = await api('POST', `/chatroom/${room.id}/mark_read`, { token: ben.token })
		expect(marked.status).toBe(200)
		expect(marked.body.data.unread_messages).toBe(0)
		expect(await unread(ben, room.id)).toBe(0)
		// joined and left lines are not messages
		await follow(cm, room.id, false)
		expect(await unread(ben, room.id)).toBe(0)
		expect(await unread(ana, room.id)).toBe(1)
	})

	test('stays exact when many members post at once', async () => {
		const room = await newRoom(cm)
		const posters = await Promise.all(
			Array.from({ length: 8 }, (_, i) => newUser(community, { name: `P${i}` })),
		)
		for (const user of posters) await follow(user, room.id)
		await follow(ben, room.id)
		await Promise.all(
			posters.flatMap((user) => [1, 2, 3].map((n) => say(user, room.id, `${user.name}-${n}`))),
		)
		expect(await unread(ben, room.id)).toBe(24)
		expect(await unread(posters[0] as TestUser, room.id)).toBe(21)
	})
})
