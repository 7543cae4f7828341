// POST /migration/import and GET /migration/import/:job_id: the import as a background
// job — 202 and a job id, progress to succeeded with counts and rejects, one job per
// community, bad bodies refused, and a job whose process died resumed by another worker.
import { afterAll, beforeAll, describe, expect, test } from 'bun:test'
import { sql } from '../../src/lib/db'
import { startImportRunner } from '../../src/modules/migration/runner'
import { newCommunity, newUser, type TestCommunity, type TestUser } from '../support/community'
import { api } from '../support/http'
import { generateCommunity } from '../support/ndjson'

let community: TestCommunity
let cm: TestUser
let stopRunner: (() => Promise<void>) | null = null

const ndjson = { 'content-type': 'application/x-ndjson' }
const generated = generateCommunity({ users: 20, posts: 40, comments: 30, likes: 60 }, 11, 'j')
const body = `${generated.lines.join('\n')}\nnot json\n`

beforeAll(async () => {
	community = await newCommunity('import-job')
	cm = await newUser(community, { role: 'cm' })
})

afterAll(async () => {
	await stopRunner?.()
})

const upload = (user: TestUser, rawBody: string, headers: Record<string, string> = ndjson) =>
	api('POST', '/migration/import', { token: user.token, rawBody, headers })
const status = (user: TestUser, jobId: string) =>
	api('GET', `/migration/import/${jobId}`, { token: user.token })

async function waitFinished(jobId: string, user: TestUser = cm) {
	for (let i = 0; i < 400; i++) {
		const reply = await status(user, jobId)
		if (['succeeded', 'failed'].includes(reply.body.data.status)) return reply.body.data
		await Bun.sleep(50)
	}
	throw new Error('import job did not finish')
}

describe('POST /migration/import', () => {
	test('202 with a job id; queued until a worker runs it; then succeeded with counts and rejects', async () => {
		const started = await upload(cm, body)
		expect(started.status).toBe(202)
		const jobId = started.body.data.job_id
		expect((await status(cm, jobId)).body.data.status).toBe('queued')
		// One unfinished job per community.
		const second = await upload(cm, body)
		expect(second.status).toBe(409)
		expect(second.body.success).toBe(false)

		stopRunner = startImportRunner({ pollMs: 50 })
		const done = await waitFinished(jobId)
		expect(done.status).toBe('succeeded')
		expect(done.counts.imported).toEqual(generated.counts)
		expect(done.reject_count).toBe(1)
		expect(done.rejects).toEqual([
			{ line: generated.lines.length + 1, reason: 'malformed JSON', record: 'not json' },
		])
		const [{ n }] = await sql`
			select count(*)::int as n from posts where community_id = ${community.communityId} and external_id like 'j%'`
		expect(n).toBe(40)
		// Finished: the community may import again (and the same file matches everything).
		const again = await upload(cm, body)
		expect(again.status).toBe(202)
		const rerun = await waitFinished(again.body.data.job_id)
		expect(rerun.counts.matched).toEqual(generated.counts)
	})

	test('a member is 403; a JSON body is 400; an oversize body is 413; an unknown job is 404', async () => {
		const target = await newCommunity('import-job-bad')
		const owner = await newUser(target, { role: 'cm' })
		const plain = await newUser(target)
		expect((await upload(plain, body)).status).toBe(403)
		const json = await upload(owner, '{"type":"user"}', { 'content-type': 'application/json' })
		expect(json.status).toBe(400)
		expect(json.body.error_message).toContain('NDJSON')
		const prose = await upload(owner, 'hello there\n')
		expect(prose.status).toBe(400)
		const huge = await upload(owner, `${'{"type":"user"}\n'.repeat(70_000)}`)
		expect(huge.status).toBe(413)
		expect((await status(owner, 'ffffffffffffffffffffffff')).status).toBe(404)
		// Refused uploads leave no job behind: a good one is accepted next.
		const good = await upload(owner, body)
		expect(good.status).toBe(202)
		const [{ n }] =
			await sql`select count(*)::int as n from import_jobs where community_id = ${target.communityId}`
		expect(n).toBe(1)
	})

	test('a job whose process died (lease expired while running) is claimed again and completed', async () => {
		const target = await newCommunity('import-job-resume')
		const owner = await newUser(target, { role: 'cm' })
		await stopRunner?.()
		stopRunner = null
		const started = await upload(owner, body)
		const jobId = started.body.data.job_id
		// What a worker killed mid-run leaves: the job running, its lease run out.
		await sql`
			update import_jobs set status = 'running', attempts = 1, lease_until = now() - interval '1 second'
			where id = ${jobId}`
		expect((await status(owner, jobId)).body.data.status).toBe('running')
		stopRunner = startImportRunner({ pollMs: 50 })
		const done = await waitFinished(jobId, owner)
		expect(done).toMatchObject({ status: 'succeeded', attempts: 2 })
		expect(done.counts.imported).toEqual(generated.counts)
	})
})
