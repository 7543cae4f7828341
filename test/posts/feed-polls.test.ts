// Feed polls (DESIGN §19): a post with an attachment of type "poll" (feed-js's form),
// voted, extended and read through PollClient's routes, on the chat poll's rules:
// the select rule, vote change, deferred results hidden (not even counts) until expiry,
// one ballot per voter under concurrent votes, and the post's visibility.
import { beforeAll, describe, expect, test } from 'bun:test'
import { newCommunity, newUser, type TestCommunity, type TestUser } from '../support/community'
import { createPost } from '../support/content'
import { sql } from '../support/db'
import { api } from '../support/http'

let community: TestCommunity
let author: TestUser
let voter: TestUser
let cm: TestUser

beforeAll(async () => {
	community = await newCommunity('feed-polls')
	author = await newUser(community)
	voter = await newUser(community)
	cm = await newUser(community, { role: 'cm' })
})

const inAnHour = () => Date.now() + 3_600_000

/** A poll post in feed-js's attachment form; answers the post reply and the poll id. */
async function pollPost(meta: Record<string, unknown> = {}, body: Record<string, unknown> = {}) {
	const reply = await api('POST', '/feed/post', {
		token: author.token,
		body: {
			text: 'Where shall we meet?',
			attachments: [
				{
					type: 'poll',
					meta_data: {
						title: 'Where?',
						options: ['Park', 'Cafe', 'Library'],
						expiry_time: inAnHour(),
						poll_type: 'instant',
						multiple_select_state: 'exactly',
						multiple_select_number: 1,
						is_anonymous: false,
						allow_add_option: false,
						...meta,
					},
				},
			],
			...body,
		},
	})
	expect(reply.status, JSON.stringify(reply.body)).toBe(200)
	const attachment = reply.body.data.post.attachments[0]
	const pollId = attachment.meta_data.entity_id as string
	return { reply, pollId, widget: reply.body.data.widgets[pollId] }
}

const optionIds = (widget: { metadata: { options: { id: string }[] } }) =>
	widget.metadata.options.map((o) => o.id)
const vote = (user: TestUser, pollId: string, votes: string[]) =>
	api('PUT', `/poll/${pollId}/vote`, { token: user.token, body: { poll_id: pollId, votes } })
const votes = (user: TestUser, pollId: string, query = '') =>
	api('GET', `/poll/${pollId}/vote${query}`, { token: user.token })

describe('feed polls', () => {
	test('a poll post answers the attachment in both forms and the poll as a widget of the post', async () => {
		const { reply, pollId, widget } = await pollPost()
		const attachment = reply.body.data.post.attachments[0]
		expect(attachment).toMatchObject({
			type: 'poll',
			attachment_type: 6,
			file_type: 6,
			meta_data: { entity_id: pollId, title: 'Where?', options: ['Park', 'Cafe', 'Library'] },
		})
		expect(attachment.attachment_meta).toEqual(attachment.meta_data)
		expect(widget).toMatchObject({
			_id: pollId,
			parent_entity_id: reply.body.data.post._id,
			parent_entity_type: 'post',
			metadata: { title: 'Where?', poll_type: 'instant', multiple_select_state: 'exactly' },
		})
		expect(widget.metadata.options.map((o: { text: string }) => o.text)).toEqual([
			'Park',
			'Cafe',
			'Library',
		])
		// The post page shows it too.
		const page = await api('GET', `/feed/post/${reply.body.data.post._id}`, { token: voter.token })
		expect(page.body.data.widgets[pollId].metadata.title).toBe('Where?')
	})

	test('the chat poll rules refuse a bad poll with 400 naming the rule, and nothing is written', async () => {
		const before =
			await sql`select count(*)::int as n from feed_polls where community_id = ${community.communityId}`
		const cases: [Record<string, unknown>, string][] = [
			[{ options: ['Only one'] }, 'A poll needs 2 to'],
			[{ options: ['Same', 'same'] }, 'must be distinct'],
			[{ expiry_time: Date.now() - 1000 }, 'expiry_time must be in the future'],
			[{ multiple_select_number: 5 }, 'multiple_select_no must be between'],
			[{ poll_type: 'deferred', no_poll_expiry: true }, 'deferred'],
			[{ options: 'Park' }, 'attachments.0.meta_data.options'],
			[{ is_anonymous: 'yes' }, 'attachments.0.meta_data.is_anonymous must be a boolean'],
		]
		for (const [meta, message] of cases) {
			const reply = await api('POST', '/feed/post', {
				token: author.token,
				body: {
					text: 'bad',
					attachments: [
						{
							type: 'poll',
							meta_data: { title: 'Q', options: ['A', 'B'], expiry_time: inAnHour(), ...meta },
						},
					],
				},
			})
			expect(reply.status, JSON.stringify(meta)).toBe(400)
			expect(reply.body.error_message, JSON.stringify(meta)).toContain(message)
		}
		const after =
			await sql`select count(*)::int as n from feed_polls where community_id = ${community.communityId}`
		expect(after[0].n).toBe(before[0].n)
	})

	test('an instant poll: results once voted, one ballot, no change unless allowed', async () => {
		const { pollId, widget } = await pollPost()
		const [park, cafe] = optionIds(widget)
		// Before voting, the voter sees no counts; the author always does.
		const unvoted = await votes(voter, pollId)
		expect(unvoted.body.data.widget[pollId].lm_meta.to_show_results).toBe(false)
		const first = await vote(voter, pollId, [park as string])
		expect(first.status).toBe(200)
		const lm = first.body.data.widget[pollId].lm_meta
		expect(lm.to_show_results).toBe(true)
		expect(lm.voters_count).toBe(1)
		expect(
			lm.options.map((o: { vote_count: number; is_selected: boolean }) => [
				o.vote_count,
				o.is_selected,
			]),
		).toEqual([
			[1, true],
			[0, false],
			[0, false],
		])
		const again = await vote(voter, pollId, [cafe as string])
		expect(again.status).toBe(400)
		expect(again.body.error_message).toBe('Poll already submitted')
		// The select rule: exactly one.
		const two = await vote(cm, pollId, [park as string, cafe as string])
		expect(two.status).toBe(400)
		expect(two.body.error_message).toBe('Select exactly 1 option')
		expect((await vote(cm, pollId, ['999999'])).status).toBe(404)
		// Voters by option, users keyed by uuid.
		const list = await votes(author, pollId, `?votes=${park},${cafe}&page=1&page_size=10`)
		expect(list.status).toBe(200)
		expect(list.body.data.votes).toEqual([
			{ id: park, users: [voter.uuid] },
			{ id: cafe, users: [] },
		])
		expect(list.body.data.users[voter.uuid].name).toBe(voter.name)
		// No option named (feed-js sends `votes=` for an empty list): every option.
		const all = await votes(author, pollId, '?votes=&page=1&page_size=10')
		expect(all.body.data.votes.map((v: { id: string }) => v.id)).toEqual(optionIds(widget))
		expect((await votes(author, pollId, '?votes=["nope"]')).status).toBe(404)
	})

	test('a deferred poll shows no results, counts nor voters to voters before expiry', async () => {
		const { pollId, widget } = await pollPost({ poll_type: 'deferred', allow_vote_change: true })
		const [park] = optionIds(widget)
		const cast = await vote(voter, pollId, [park as string])
		expect(cast.status).toBe(200)
		const seen = cast.body.data.widget[pollId].lm_meta
		expect(seen.to_show_results).toBe(false)
		expect(
			seen.options.map(
				(o: { vote_count: number; percentage: number }) => o.vote_count + o.percentage,
			),
		).toEqual([0, 0, 0])
		expect(seen.options[0].is_selected).toBe(true)
		const list = await votes(voter, pollId)
		expect(list.body.data.votes.every((v: { users: string[] }) => v.users.length === 0)).toBe(true)
		// Positive control: the author sees the vote and its voter.
		const mine = await votes(author, pollId, `?votes=${park}`)
		expect(mine.body.data.widget[pollId].lm_meta.options[0].vote_count).toBe(1)
		expect(mine.body.data.votes).toEqual([{ id: park, users: [voter.uuid] }])
		// After expiry everyone sees results.
		await sql`update feed_polls set expiry_time = ${Date.now() - 1} where id = ${pollId}`
		const after = await votes(voter, pollId)
		expect(after.body.data.widget[pollId].lm_meta.to_show_results).toBe(true)
		expect((await vote(voter, pollId, [park as string])).body.error_message).toBe(
			'Poll has been ended',
		)
	})

	test('the post page shows each viewer their own choice, and results only as the rules allow', async () => {
		const { reply, pollId, widget } = await pollPost({
			poll_type: 'deferred',
			allow_vote_change: true,
		})
		const postId = reply.body.data.post._id
		const [, cafe] = optionIds(widget)
		await vote(voter, pollId, [cafe as string])
		const page = async (user: TestUser) =>
			(await api('GET', `/feed/post/${postId}`, { token: user.token })).body.data.widgets[pollId]
		const seen = (await page(voter)).lm_meta
		expect(seen.options.map((o: { is_selected: boolean }) => o.is_selected)).toEqual([
			false,
			true,
			false,
		])
		expect(seen.to_show_results).toBe(false)
		expect(seen.options.every((o: { vote_count: number }) => o.vote_count === 0)).toBe(true)
		// The author sees the count; another member sees no choice of theirs.
		expect((await page(author)).lm_meta.options[1].vote_count).toBe(1)
		expect(
			(await page(cm)).lm_meta.options.every((o: { is_selected: boolean }) => !o.is_selected),
		).toBe(true)
	})

	test('an edit that keeps the poll attachment (its entity_id) keeps the poll and its ballots', async () => {
		const { reply, pollId, widget } = await pollPost()
		const postId = reply.body.data.post._id
		const [park] = optionIds(widget)
		await vote(voter, pollId, [park as string])
		const attachment = reply.body.data.post.attachments[0]
		const edited = await api('PUT', `/feed/post/${postId}`, {
			token: author.token,
			body: { text: 'edited', attachments: [{ type: 'poll', meta_data: attachment.meta_data }] },
		})
		expect(edited.status).toBe(200)
		expect(edited.body.data.post.attachments[0].meta_data.entity_id).toBe(pollId)
		const lm = (await votes(author, pollId)).body.data.widget[pollId].lm_meta
		expect(lm.voters_count).toBe(1)
		// Another post's poll id is refused.
		const other = await pollPost()
		const stolen = await api('PUT', `/feed/post/${postId}`, {
			token: author.token,
			body: { attachments: [{ type: 'poll', meta_data: { entity_id: other.pollId } }] },
		})
		expect(stolen.status).toBe(400)
		// An edit without the poll attachment ends the poll.
		const dropped = await api('PUT', `/feed/post/${postId}`, {
			token: author.token,
			body: { attachments: [{ type: 'image', meta_data: { url: 'https://x/y.png' } }] },
		})
		expect(dropped.status).toBe(200)
		expect((await votes(author, pollId)).status).toBe(404)
		expect((await vote(cm, pollId, [park as string])).status).toBe(404)
	})

	test('the poll’s widget cannot be edited through PUT /widget', async () => {
		const { pollId } = await pollPost()
		const edit = await api('PUT', `/widget/${pollId}`, {
			token: author.token,
			body: { metadata: { title: 'Rigged' } },
		})
		expect(edit.status).toBe(400)
		expect(edit.body.error_message).toContain('/poll/')
		// Positive control: a widget of the author's own is editable.
		const own = await api('POST', '/widget', { token: author.token, body: { metadata: { a: 1 } } })
		const ownEdit = await api('PUT', `/widget/${own.body.data.widget._id}`, {
			token: author.token,
			body: { metadata: { a: 2 } },
		})
		expect(ownEdit.status).toBe(200)
	})

	test('64 concurrent votes by one member leave exactly one ballot', async () => {
		const { pollId, widget } = await pollPost({ allow_vote_change: true })
		const ids = optionIds(widget)
		const replies = await Promise.all(
			Array.from({ length: 64 }, (_, i) => vote(voter, pollId, [ids[i % 3] as string])),
		)
		expect(replies.every((r) => r.status === 200)).toBe(true)
		const ballots = await sql`select option_ids from feed_poll_ballots where poll_id = ${pollId}`
		expect(ballots).toHaveLength(1)
		const lm = (await votes(author, pollId)).body.data.widget[pollId].lm_meta
		expect(lm.voters_count).toBe(1)
		expect(lm.options.reduce((n: number, o: { vote_count: number }) => n + o.vote_count, 0)).toBe(1)
	})

	test('options are added when the poll allows it, distinct, up to 10', async () => {
		const closed = await pollPost()
		const refused = await api('PUT', `/poll/${closed.pollId}`, {
			token: voter.token,
			body: { poll_id: closed.pollId, text: 'Beach' },
		})
		expect(refused.status).toBe(400)
		expect(refused.body.error_message).toBe('Adding options is not allowed on this poll')
		const { pollId } = await pollPost({ allow_add_option: true })
		const added = await api('PUT', `/poll/${pollId}`, {
			token: voter.token,
			body: { poll_id: pollId, text: 'Beach' },
		})
		expect(added.status).toBe(200)
		const widget = added.body.data.widget[pollId]
		expect(widget.metadata.options.map((o: { text: string }) => o.text)).toEqual([
			'Park',
			'Cafe',
			'Library',
			'Beach',
		])
		expect(widget.lm_meta.options[3].uuid).toBe(voter.uuid)
		const dup = await api('PUT', `/poll/${pollId}`, {
			token: voter.token,
			body: { poll_id: pollId, text: ' beach ' },
		})
		expect(dup.status).toBe(400)
		// The post page reads the widget as it is now.
		const postId = widget.parent_entity_id
		const page = await api('GET', `/feed/post/${postId}`, { token: author.token })
		expect(page.body.data.widgets[pollId].metadata.options).toHaveLength(4)
	})

	test('a poll is reached only by who may see its post; other ids are 404', async () => {
		const { pollId, widget } = await pollPost({}, { visibility: 'private' })
		const [park] = optionIds(widget)
		expect((await vote(voter, pollId, [park as string])).status).toBe(404)
		expect((await votes(voter, pollId)).status).toBe(404)
		// Positive control: a CM may.
		expect((await vote(cm, pollId, [park as string])).status).toBe(200)
		const stranger = await newUser(await newCommunity('feed-polls-other'))
		expect((await votes(stranger, pollId)).status).toBe(404)
		expect((await votes(voter, '0123456789abcdef01234567')).status).toBe(404)
		expect((await votes(voter, 'not-an-id')).status).toBe(404)
		await api('DELETE', `/feed/post/${widget.parent_entity_id}`, { token: author.token })
		expect((await votes(cm, pollId)).status).toBe(404)
	})
})

describe('attachments in both forms', () => {
	test('feed-js {type, meta_data} and SPEC {attachment_type, attachment_meta} give the same answer', async () => {
		const meta = { url: 'https://cdn.example.com/a.png', format: 'png', size: 1234, name: 'a.png' }
		const sdk = await createPost(author, { attachments: [{ type: 'image', meta_data: meta }] })
		const spec = await createPost(author, {
			attachments: [{ attachment_type: 1, attachment_meta: meta }],
		})
		for (const post of [sdk, spec]) {
			expect(post.attachments).toEqual([
				{
					attachment_type: 1,
					attachment_meta: meta,
					file_type: 1,
					file_url: meta.url,
					file_format: 'png',
					file_size: '1234',
					type: 'image',
					meta_data: meta,
				},
			])
		}
		const video = await createPost(author, {
			attachments: [{ type: 'video', meta_data: { url: 'v.mp4' } }],
		})
		expect(video.attachments[0]).toMatchObject({ type: 'video', attachment_type: 2 })
		// Edit in the SDK's form as well.
		const edited = await api('PUT', `/feed/post/${sdk._id}`, {
			token: author.token,
			body: { attachments: [{ type: 'link', meta_data: { og_tags: { title: 't' } } }] },
		})
		expect(edited.status).toBe(200)
		expect(edited.body.data.post.attachments[0]).toMatchObject({ type: 'link', attachment_type: 4 })
	})

	test('an attachment with neither type, or an unknown type name, is 400 naming it', async () => {
		for (const [attachment, message] of [
			[{ meta_data: { url: 'x' } }, 'attachments.0.attachment_type is missing'],
			[{ type: 'hologram', meta_data: {} }, 'attachments.0.type must be one of'],
			[{ type: 'image', meta_data: 'x' }, 'attachments.0.attachment_meta must be an object'],
		] as const) {
			const reply = await api('POST', '/feed/post', {
				token: author.token,
				body: { text: 't', attachments: [attachment] },
			})
			expect(reply.status).toBe(400)
			expect(reply.body.error_message).toContain(message)
		}
	})
})
