// Conversation attachments through the HTTP API: sent in the creation form, stored and
// answered in the spec's response form (file_type integer; file_url, file_format,
// file_size strings) beside the creation fields, on every read; company widgets
// resolved to their widget id; bad meta refused with nothing written.
import { beforeAll, describe, expect, test } from 'bun:test'
import { follow, newRoom, say } from '../support/chat'
import { newCommunity, newUser, type TestCommunity, type TestUser } from '../support/community'
import { sql } from '../support/db'
import { api } from '../support/http'

let community: TestCommunity
let cm: TestUser
let ana: TestUser

beforeAll(async () => {
	community = await newCommunity('chat-attachments')
	cm = await newUser(community, { role: 'cm', name: 'Cleo' })
	ana = await newUser(community, { name: 'Ana' })
})

const image = {
	attachment_type: 1,
	attachment_meta: { url: 'https://cdn.example/a.png', format: 'png', size: 2048, name: 'a.png' },
}

async function newest(user: TestUser, roomId: string) {
	const reply = await api('GET', `/conversation?chatroom_id=${roomId}&paginate_by=50`, {
		token: user.token,
	})
	expect(reply.status).toBe(200)
	return reply.body.data.conversations as { id: string; attachments: unknown[] }[]
}

describe('conversation attachments', () => {
	test('answered in the response form, the same on post, page, scroll and sync', async () => {
		const room = await newRoom(cm)
		await follow(ana, room.id)
		const posted = await say(ana, room.id, 'look', { attachments: [image] })
		const expected = {
			file_type: 1,
			file_url: 'https://cdn.example/a.png',
			file_format: 'png',
			file_size: '2048',
			attachment_type: 1,
			attachment_meta: image.attachment_meta,
		}
		expect(posted.attachments).toEqual([expected])
		const onPage = (await newest(ana, room.id)).find((c) => c.id === posted.id)
		expect(onPage?.attachments).toEqual([expected])
		const later = await say(ana, room.id, 'after')
		const scrolled = await api(
			'GET',
			`/conversation?chatroom_id=${room.id}&conversation_id=${later.id}&scroll_direction=0`,
			{ token: ana.token },
		)
		expect(scrolled.body.data.conversations.at(-1).attachments).toEqual([expected])
		const sync = await api('GET', `/conversation/sync?chatroom_id=${room.id}`, {
			token: ana.token,
		})
		const synced = sync.body.data.conversations_data.find((c: { id: string }) => c.id === posted.id)
		expect(synced.attachments).toEqual([expected])
	})

	test('missing meta fields are empty strings, never undefined or numbers', async () => {
		const room = await newRoom(cm)
		const posted = await say(cm, room.id, '', { attachments: [{ attachment_type: 2 }] })
		expect(posted.attachments).toEqual([
			{
				file_type: 2,
				file_url: '',
				file_format: '',
				file_size: '',
				attachment_type: 2,
				attachment_meta: {},
			},
		])
	})

	test('a company widget (type 5) is created once and named by its widget id', async () => {
		const room = await newRoom(cm)
		const company = {
			company_id: `acme-${Date.now()}`,
			company_name: 'Acme',
			company_image_url: 'https://cdn.example/acme.png',
		}
		const first = await say(cm, room.id, 'our partner', {
			attachments: [{ attachment_type: 5, attachment_meta: company }],
		})
		const [widget] = first.attachments
		expect(widget).toMatchObject({
			file_type: 5,
			file_url: company.company_image_url,
			file_format: 'widget',
			file_size: '',
			attachment_type: 5,
		})
		expect(widget.attachment_meta.entity_id).toMatch(/^[0-9a-f]{24}$/)
		expect(widget.attachment_meta).toMatchObject(company)
		const again = await say(cm, room.id, 'again', {
			attachments: [
				{ attachment_type: 5, attachment_meta: { entity_id: widget.attachment_meta.entity_id } },
			],
		})
		expect(again.attachments).toEqual([widget])
		const unknown = await api('POST', '/conversation', {
			token: cm.token,
			body: {
				chatroom_id: room.id,
				text: 'x',
				attachments: [{ attachment_type: 5, attachment_meta: { entity_id: 'f'.repeat(24) } }],
			},
		})
		expect(unknown.status).toBe(404)
	})

	test('meta that is not an object, or over 16 KB, is refused and nothing is written', async () => {
		const room = await newRoom(cm)
		const before = (await newest(cm, room.id)).length
		const notObject = await api('POST', '/conversation', {
			token: cm.token,
			body: {
				chatroom_id: room.id,
				text: 'x',
				attachments: [{ attachment_type: 1, attachment_meta: 'url' }],
			},
		})
		expect(notObject.status).toBe(400)
		expect(notObject.body).toEqual({
			success: false,
			error_message: 'Invalid body: attachments.0.attachment_meta must be an object',
		})
		const huge = await api('POST', '/conversation', {
			token: cm.token,
			body: {
				chatroom_id: room.id,
				text: 'x',
				attachments: [{ attachment_type: 1, attachment_meta: { name: 'x'.repeat(17_000) } }],
			},
		})
		expect(huge.status).toBe(413)
		expect(await newest(cm, room.id)).toHaveLength(before)
	})

	test('a deleted conversation answers no attachments', async () => {
		const room = await newRoom(cm)
		const posted = await say(cm, room.id, 'gone soon', { attachments: [image] })
		const deleted = await api('DELETE', '/conversation', {
			token: cm.token,
			body: { conversation_ids: [posted.id] },
		})
		expect(deleted.status).toBe(200)
		expect(deleted.body.data.conversations[0].attachments).toEqual([])
	})

	test('a row stored in the creation form (before normalising) is answered in the response form', async () => {
		const room = await newRoom(cm)
		const posted = await say(cm, room.id, 'old style')
		// the form rows had before this change: the request echoed as stored
		await sql`update conversations set attachments = ${sql.json([image] as never)}
			where id = ${posted.id}`
		await say(cm, room.id, 'bump the room version')
		const onPage = (await newest(cm, room.id)).find((c) => c.id === posted.id)
		expect(onPage?.attachments).toEqual([
			{
				file_type: 1,
				file_url: 'https://cdn.example/a.png',
				file_format: 'png',
				file_size: '2048',
				attachment_type: 1,
				attachment_meta: image.attachment_meta,
			},
		])
	})
})
