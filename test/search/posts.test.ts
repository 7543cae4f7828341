// GET /search/post through HTTP: what matches (heading, text, topic names, accents,
// phrases, edits), the order (relevance blended with recency), paging, bad input, and
// every visibility case planted beside a positive control that the same word finds.
import { beforeAll, describe, expect, test } from 'bun:test'
import { newCommunity, newUser, type TestCommunity, type TestUser } from '../support/community'
import { block, connect, enableConnections } from '../support/connections'
import { createTopic, newPost, setTopicEnabled, tag } from '../support/content'
import { api } from '../support/http'

async function search(user: TestUser, words: string, extra = '') {
	const reply = await api('GET', `/search/post?search=${encodeURIComponent(words)}${extra}`, {
		token: user.token,
	})
	expect(reply.status).toBe(200)
	return reply.body.data as {
		posts: any[]
		users: Record<string, any>
		topics: Record<string, any>
	}
}

const idsOf = (data: { posts: { _id: string }[] }) => data.posts.map((p) => p._id)

let community: TestCommunity
let cm: TestUser
let author: TestUser
let reader: TestUser

beforeAll(async () => {
	community = await newCommunity()
	cm = await newUser(community, { role: 'cm' })
	author = await newUser(community, { name: 'Author' })
	reader = await newUser(community, { name: 'Reader' })
})

describe('what a post search matches', () => {
	test('heading, text and topic names, accents folded, in the feed post shape', async () => {
		const topic = await createTopic(cm, 'Zanzibar travels')
		const byHeading = await newPost(author, { heading: 'Quokka sightings', text: 'a text' })
		const byText = await newPost(author, { text: 'I saw a quokka today' })
		const byTopic = await newPost(author, { text: 'island trip', topic_ids: [topic] })
		const accented = await newPost(author, { text: 'Crème brûlée at the café' })
		const other = await newPost(author, { text: 'nothing to see here' })

		const quokka = await search(reader, 'quokka')
		expect(idsOf(quokka).sort()).toEqual([byHeading, byText].sort())
		// the heading weighs more than the text
		expect(idsOf(quokka)[0]).toBe(byHeading)
		const post = quokka.posts[0]
		expect(post.user_id).toBe(author.uuid)
		expect(post).toHaveProperty('is_liked', false)
		expect(post).toHaveProperty('menu_items')
		expect(quokka.users[author.uuid].name).toBe('Author')

		const zanzibar = await search(reader, 'zanzibar')
		expect(idsOf(zanzibar)).toEqual([byTopic])
		expect(zanzibar.topics[topic].name).toBe('Zanzibar travels')
		expect(idsOf(await search(reader, 'creme brulee'))).toEqual([accented])
		expect(idsOf(await search(reader, 'CAFÉ'))).toEqual([accented])
		expect(idsOf(await search(reader, 'here'))).toEqual([other])
	})

	test('websearch syntax: a phrase, and a word left out', async () => {
		const both = await newPost(author, { text: 'purple walrus dancing' })
		const apart = await newPost(author, { text: 'walrus in purple socks' })
		expect(idsOf(await search(reader, '"purple walrus"'))).toEqual([both])
		expect(idsOf(await search(reader, 'walrus -socks'))).toEqual([both])
		expect(idsOf(await search(reader, 'walrus')).sort()).toEqual([both, apart].sort())
	})

	test('an edit is searched by its new words and topics, no longer by the old ones', async () => {
		const topic = await createTopic(cm, 'Narwhal club')
		const id = await newPost(author, { text: 'first draft flamingo' })
		expect(idsOf(await search(reader, 'flamingo'))).toEqual([id])
		const edited = await api('PUT', `/feed/post/${id}`, {
			token: author.token,
			body: { text: 'second draft pelican', topic_ids: [topic] },
		})
		expect(edited.status).toBe(200)
		expect(idsOf(await search(reader, 'flamingo'))).toEqual([])
		expect(idsOf(await search(reader, 'pelican'))).toEqual([id])
		expect(idsOf(await search(reader, 'narwhal'))).toEqual([id])
	})

	test("a topic renamed or deleted: its posts are found by the topic's name as it is now", async () => {
		const topic = await createTopic(cm, 'Kestrel watch')
		const id = await newPost(author, { text: 'spotted one', topic_ids: [topic] })
		expect(idsOf(await search(reader, 'kestrel'))).toEqual([id])
		const renamed = await api('PUT', `/feed/topic/${topic}`, {
			token: cm.token,
			body: { name: 'Osprey watch' },
		})
		expect(renamed.status).toBe(200)
		expect(idsOf(await search(reader, 'kestrel'))).toEqual([])
		expect(idsOf(await search(reader, 'osprey'))).toEqual([id])
		const deleted = await api('DELETE', '/feed/topic', {
			token: cm.token,
			body: { topic_ids: [topic] },
		})
		expect(deleted.status).toBe(200)
		expect(idsOf(await search(reader, 'osprey'))).toEqual([])
		expect(idsOf(await search(reader, 'spotted'))).toEqual([id])
	})

	test('a tag is found by the display name, not by its route', async () => {
		const tagged = await newPost(author, { text: `lunch with ${tag(reader)} yesterday` })
		expect(idsOf(await search(cm, 'reader lunch'))).toEqual([tagged])
		expect(idsOf(await search(cm, 'route'))).toEqual([])
	})

	test('the better match first among equals in time; the newer first among equal matches; paging', async () => {
		const weak = await newPost(author, {
			text: 'gnu tidbit among many other words of a long text here',
		})
		const strong = await newPost(author, { heading: 'gnu gnu', text: 'gnu' })
		expect(idsOf(await search(reader, 'gnu'))).toEqual([strong, weak])
		const older = await newPost(author, {
			text: 'okapi',
			created_at: Date.now() - 200 * 86_400_000,
		})
		const newer = await newPost(author, { text: 'okapi' })
		expect(idsOf(await search(reader, 'okapi'))).toEqual([newer, older])
		expect(idsOf(await search(reader, 'okapi', '&page=1&page_size=1'))).toEqual([newer])
		expect(idsOf(await search(reader, 'okapi', '&page=2&page_size=1'))).toEqual([older])
		expect(idsOf(await search(reader, 'okapi', '&page=3&page_size=1'))).toEqual([])
	})

	test('bad input is a 400 naming the field; no token is a 401', async () => {
		const empty = await api('GET', '/search/post?search=', { token: reader.token })
		expect(empty.status).toBe(400)
		expect(empty.body.error_message).toContain('search')
		const long = await api('GET', `/search/post?search=${'a'.repeat(201)}`, { token: reader.token })
		expect(long.status).toBe(400)
		const page = await api('GET', '/search/post?search=x&page=0', { token: reader.token })
		expect(page.status).toBe(400)
		expect(page.body.error_message).toContain('page')
		const anonymous = await api('GET', '/search/post?search=x')
		expect(anonymous.status).toBe(401)
		// punctuation only: nothing to search, not an error
		expect(idsOf(await search(reader, '!!! ::'))).toEqual([])
	})
})

describe('every visibility rule applies to every result', () => {
	test('deleted, private, connections-only, blocks both ways, disabled topics, another community', async () => {
		await enableConnections(community)
		const friend = await newUser(community, { name: 'Friend' })
		const stranger = await newUser(community, { name: 'Stranger' })
		const blocker = await newUser(community, { name: 'Blocker' })
		const blocked = await newUser(community, { name: 'Blocked' })
		await connect(reader, friend)
		await block(community, blocker, reader)
		await block(community, reader, blocked)
		const word = 'axolotl'
		const control = await newPost(author, { text: `${word} public` })
		const deleted = await newPost(author, { text: `${word} deleted` })
		expect(
			(await api('DELETE', `/feed/post/${deleted}`, { token: author.token, body: {} })).status,
		).toBe(200)
		const privatePost = await newPost(author, { text: `${word} private`, visibility: 'private' })
		const friendOnly = await newPost(friend, { text: `${word} friends`, visibility: 'connections' })
		const strangerOnly = await newPost(stranger, {
			text: `${word} strangers`,
			visibility: 'connections',
		})
		const byBlocker = await newPost(blocker, { text: `${word} by blocker` })
		const byBlocked = await newPost(blocked, { text: `${word} by blocked` })
		const topic = await createTopic(cm, 'Soon hidden')
		const hidden = await newPost(author, { text: `${word} hidden`, topic_ids: [topic] })
		await setTopicEnabled(cm, topic, false)
		const elsewhere = await newCommunity()
		const foreigner = await newUser(elsewhere)
		const foreign = await newPost(foreigner, { text: `${word} foreign` })
		const own = await newPost(reader, { text: `${word} mine`, visibility: 'private' })

		const seen = idsOf(await search(reader, word, '&page_size=100'))
		// positive controls: the same word finds the public post, a connection's post, one's own
		expect(seen.sort()).toEqual([control, friendOnly, own].sort())
		for (const id of [deleted, privatePost, strangerOnly, byBlocker, byBlocked, hidden, foreign])
			expect(seen).not.toContain(id)
		// the rules are the viewer's: a CM sees private and connections posts; a third member
		// not blocked sees the blocked pair's posts; the stranger sees their own connections post
		const byCm = idsOf(await search(cm, word, '&page_size=100'))
		expect(byCm).toContain(privatePost)
		expect(byCm).toContain(strangerOnly)
		expect(byCm).not.toContain(deleted)
		expect(byCm).not.toContain(hidden)
		const third = idsOf(await search(author, word, '&page_size=100'))
		expect(third).toContain(byBlocker)
		expect(third).toContain(byBlocked)
		expect(idsOf(await search(stranger, word, '&page_size=100'))).toContain(strangerOnly)
		// the other community finds its own post only
		expect(idsOf(await search(foreigner, word, '&page_size=100'))).toEqual([foreign])
	})
})
