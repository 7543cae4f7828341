// page_size is capped at 100 on every paged route (DESIGN §3): a larger one is served
// as 100, never refused; below 1 or not an integer is still 400.
import { beforeAll, describe, expect, test } from 'bun:test'
import { newCommunity, newUser, type TestUser } from '../support/community'
import { enableConnections } from '../support/connections'
import { api } from '../support/http'

let member: TestUser

beforeAll(async () => {
	const community = await newCommunity('paging')
	await enableConnections(community)
	member = await newUser(community)
})

/** Routes that echo the page size they served, and where it sits in the answer. */
const routes = () => [
	{ path: '/feed/connection', echo: (data: any) => data.page_size },
	{ path: '/feed/personalised', echo: (data: any) => data.page_size },
	{ path: `/community/member/${member.uuid}/connection`, echo: (data: any) => data.page_size },
	{ path: `/user/${member.uuid}/block`, echo: (data: any) => data.page_size },
	{ path: '/feed/topic', echo: (data: any) => data.page_size },
]

describe('page_size', () => {
	test('over 100 is served as 100 on every paged route', async () => {
		for (const { path, echo } of routes()) {
			for (const size of [100, 101, 1000]) {
				const reply = await api('GET', `${path}?page=1&page_size=${size}`, { token: member.token })
				expect(reply.status, `${path} ${size}`).toBe(200)
				expect(echo(reply.body.data ?? reply.body), `${path} ${size}`).toBe(100)
			}
			const small = await api('GET', `${path}?page_size=7`, { token: member.token })
			expect(echo(small.body.data ?? small.body), path).toBe(7)
		}
	})

	test('the block list caps its camelCase twin pageSize too', async () => {
		const reply = await api('GET', `/user/${member.uuid}/block?pageSize=500`, {
			token: member.token,
		})
		expect(reply.status).toBe(200)
		expect(reply.body.data.page_size).toBe(100)
	})

	test('below 1 or not an integer is 400 with a message naming page_size', async () => {
		for (const { path } of routes()) {
			for (const bad of ['0', '-1', '2.5', 'ten']) {
				const reply = await api('GET', `${path}?page_size=${bad}`, { token: member.token })
				expect(reply.status, `${path} ${bad}`).toBe(400)
				expect(reply.body.success).toBe(false)
				expect(reply.body.error_message, `${path} ${bad}`).toContain('page_size')
			}
		}
	})
})
