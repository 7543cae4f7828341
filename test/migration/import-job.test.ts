// POST /migration/import and GET /migration/import/:job_id: the import as a background
// job — 202 and a job id, progress to succeeded with counts and rejects, one job per
// community, bad bodies refused, and a job whose worker was SIGKILLed mid-import
// resumed by another worker once its lease ran out.
import { afterAll, beforeAll, describe, expect, test } from 'bun:test'
import { startImportRunner } from '../../src/import/runner'
import { newCommunity, newUser, type TestCommunity, type TestUser } from '../support/community'
import { sql } from '../support/db'
import { api } from '../support/http'
import { generateCommunity } from '../support/ndjson'
import { spawnPlaza } from '../support/process'
import { waitFor } from '../support/wait'

let community: TestCommunity
let cm: TestUser
let stopRunner: (() => Promise<void>) | null = null

const ndjson = { 'content-type': 'application/x-ndjson' }
const generated = generateCommunity({ users: 20, posts: 40, comments: 30, likes: 60 }, 11, 'j')
const unknownPost = '{"type":"like","user_unique_id":"ju0","post_external_id":"nowhere"}'
const body = `${generated.lines.join('\n')}\nnot json\n${unknownPost}\n`

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
		expect(done.reject_count).toBe(2)
		// Read-phase rejects first, then the set-based ones (their line read back from the stored upload).
		expect(done.rejects).toEqual([
			{ line: generated.lines.length + 1, reason: 'malformed JSON', record: 'not json' },
			{
				line: generated.lines.length + 2,
				reason: 'unknown post_external_id',
				record: JSON.parse(unknownPost),
			},
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

	test('a worker SIGKILLed mid-import: another worker claims the job once its lease runs out and completes it', async () => {
		const target = await newCommunity('import-job-resume')
		const owner = await newUser(target, { role: 'cm' })
		await stopRunner?.()
		stopRunner = null
		// Big enough that the kill lands while the content transaction runs (under 1 MiB, the tests' IMPORT_MAX_BYTES).
		const large = generateCommunity(
			{ users: 200, posts: 2000, comments: 1500, likes: 4000 },
			5,
			'k',
		)
		const started = await upload(owner, `${large.lines.join('\n')}\n`)
		expect(started.status).toBe(202)
		const jobId = started.body.data.job_id
		const worker = await spawnPlaza('worker', { IMPORT_LEASE_SECONDS: '2' })
		try {
			// Killed once its first step (the users) has committed, before the job finished.
			await waitFor(
				async () => {
					const [{ n }] =
						await sql`select count(*)::int as n from users where community_id = ${target.communityId}`
					return n > 2
				},
				{ what: 'the worker to commit the users step', timeoutMs: 15_000, everyMs: 5 },
			)
			await worker.stop('SIGKILL')
		} finally {
			if (worker.alive()) await worker.stop('SIGKILL')
		}
		const killed = (await status(owner, jobId)).body.data
		expect(killed).toMatchObject({ status: 'running', attempts: 1 })
		const [{ posts }] =
			await sql`select count(*)::int as posts from posts where community_id = ${target.communityId}`
		expect(posts).toBe(0)

		// The next worker: the job is not claimable until the dead worker's lease runs out.
		stopRunner = startImportRunner({ pollMs: 50 })
		const done = await waitFinished(jobId, owner)
		expect(done).toMatchObject({ status: 'succeeded', attempts: 2, reject_count: 0 })
		for (const type of Object.keys(large.counts))
			expect(done.counts.imported[type] + done.counts.matched[type]).toBe(large.counts[type])
		expect(done.counts.matched.user).toBeGreaterThan(0)
		// Ends as one clean run: every row once, counters exact.
		const rows = await sql`
			select p.external_id, p.likes_count, p.comments_count from posts p
			where p.community_id = ${target.communityId}`
		expect(rows).toHaveLength(2000)
		for (const row of rows) {
			expect(row.likes_count).toBe(large.likesOf.get(row.external_id) ?? 0)
			expect(row.comments_count).toBe(large.commentsOf.get(row.external_id) ?? 0)
		}
	})
})
