// Issue 15, findings 4 and 6: attachment_meta is an object of at most 16 KB, at most
// 10 attachments; anything else is refused, never coerced into a character map.
import { beforeAll, describe, expect, test } from 'bun:test'
import { newCommunity, newUser, type TestUser } from '../support/community'
import { api } from '../support/http'

let author: TestUser

beforeAll(async () => {
	author = await newUser(await newCommunity('attachment-limits'))
})

const postWithMeta = (meta: string) =>
	api('POST', '/feed/post', {
		token: author.token,
		rawBody: `{"text":"t","attachments":[{"attachment_type":1,"attachment_meta":${meta}}]}`,
	})

describe('attachment limits', () => {
	test('a string, array, number or boolean attachment_meta is 400; an object is stored as sent', async () => {
		for (const meta of ['"hello"', '[1,2]', '3', 'true']) {
			const reply = await postWithMeta(meta)
			expect(reply.status).toBe(400)
			expect(reply.body.error_message).toBe(
				'Invalid body: attachments.0.attachment_meta must be an object',
			)
		}
		const stored = await postWithMeta('{"url":"https://x.test/a.png","title":"A"}')
		expect(stored.status).toBe(200)
		expect(stored.body.data.post.attachments[0].attachment_meta).toMatchObject({
			url: 'https://x.test/a.png',
			title: 'A',
		})
	})

	test('attachment_meta over 16 KB is 413; 16 KB exactly is accepted', async () => {
		const padded = (bytes: number) => JSON.stringify({ a: 'x'.repeat(bytes - 8) }) // {"a":"…"} is 8 bytes + the string
		const over = await postWithMeta(padded(16 * 1024 + 1))
		expect(over.status).toBe(413)
		expect(over.body.error_message).toMatch(/attachments\.0\.attachment_meta is 16385 bytes/)
		expect((await postWithMeta(padded(16 * 1024))).status).toBe(200)
	})

	test('11 attachments are 400, 10 are accepted (create and edit)', async () => {
		const attachments = (n: number) => Array.from({ length: n }, () => ({ attachment_type: 1 }))
		const eleven = await api('POST', '/feed/post', {
			token: author.token,
			body: { text: 't', attachments: attachments(11) },
		})
		expect(eleven.status).toBe(400)
		expect(eleven.body.error_message).toMatch(/attachments/)
		const ten = await api('POST', '/feed/post', {
			token: author.token,
			body: { text: 't', attachments: attachments(10) },
		})
		expect(ten.status).toBe(200)
		const id = ten.body.data.post._id
		const edit = (n: number) =>
			api('PUT', `/feed/post/${id}`, { token: author.token, body: { attachments: attachments(n) } })
		expect((await edit(11)).status).toBe(400)
		expect((await edit(9)).status).toBe(200)
	})
})
