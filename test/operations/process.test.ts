import { describe, expect, test } from 'bun:test'
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import postgres from 'postgres'
import { config } from '../../src/config'
import { keys } from '../../src/lib/keys'
import { redis } from '../../src/lib/redis'
import { newCommunity } from '../support/community'
import { api } from '../support/http'
import { type Plaza, runScript, spawnPlaza } from '../support/process'
import { startReceiver } from '../support/receiver'
import { waitFor } from '../support/wait'

const get = (port: number, path: string, headers: Record<string, string> = {}) =>
	fetch(`http://127.0.0.1:${port}${path}`, { headers }).then(async (r) => ({
		status: r.status,
		body: (await r.json()) as any,
	}))

describe('the service as a process', () => {
	test('/ready is 200 when Postgres and Redis answer, 503 when Redis is down', async () => {
		const healthy = await spawnPlaza('api')
		try {
			const ready = await get(healthy.port, '/ready')
			expect(ready.status).toBe(200)
			expect(ready.body).toMatchObject({ postgres: true, redis: true })
		} finally {
			expect(await healthy.stop()).toBe(0)
		}

		// Nothing listens on port 1: Redis is "down" for this process.
		const noRedis = await spawnPlaza('api', { REDIS_URL: 'redis://127.0.0.1:1/0' })
		try {
			const ready = await get(noRedis.port, '/ready')
			expect(ready.status).toBe(503)
			expect(ready.body).toMatchObject({ success: false, postgres: true, redis: false })
			expect((await get(noRedis.port, '/health')).status).toBe(200)
		} finally {
			noRedis.proc.kill('SIGKILL')
			await noRedis.proc.exited
		}
	})

	test('started on an empty database it migrates, creates a demo project, prints its key and stops on SIGTERM', async () => {
		const database = `${new URL(config.DATABASE_URL).pathname.slice(1)}_start_${process.pid}`
		const url = new URL(config.DATABASE_URL)
		url.pathname = `/${database}`
		const dataDir = mkdtempSync(join(tmpdir(), 'plaza-start-'))
		// The demo owner's send counter lives in Redis; earlier runs must not use up its budget.
		await redis.del(keys.otpSends('91-9999999999'))
		const server = await spawnPlaza('all', {
			DATABASE_URL: url.toString(),
			NODE_ENV: 'development',
			DATA_DIR: dataDir,
		})
		const admin = postgres({ ...adminOptions(), max: 1, onnotice: () => {} })
		try {
			const line = server.stdout.find((l) => l.startsWith('demo project: '))
			expect(line).toBeDefined()
			const demo = JSON.parse(
				(line as string).slice('demo project: '.length).split(' dashboard owner')[0],
			)
			expect(demo.api_key).toStartWith('plz_')
			expect(line).toContain('91-9999999999 (OTP 123456)')

			const initiate = await fetch(`http://127.0.0.1:${server.port}/sdk/initiate`, {
				method: 'POST',
				headers: { 'content-type': 'application/json', 'x-api-key': demo.api_key },
				body: JSON.stringify({ user_unique_id: 'first-user', user_name: 'First' }),
			})
			expect(initiate.status).toBe(200)
			expect(((await initiate.json()) as any).data.community.id).toBe(demo.community_id)

			// In development the demo owner logs in with its fixed code, no configuration needed.
			expect(
				(await get(server.port, '/otp/generate?country_code=91&mobile_no=9999999999')).status,
			).toBe(200)
			const verify = await get(
				server.port,
				'/otp/verify?country_code=91&mobile_no=9999999999&otp=123456',
			)
			expect(verify.status).toBe(200)
			const project = await get(server.port, '/sdk/project', {
				authorization: verify.body.data.auth_token,
				'x-api-key': demo.api_key,
				'x-platform-type': 'dashboard',
			})
			expect(project.status).toBe(200)
			expect(project.body.data.project.community_id).toBe(demo.community_id)

			expect(await server.stop()).toBe(0)
			expect(server.stdout.some((l) => l.includes('"shutting down"'))).toBe(true)
		} finally {
			if (server.proc.exitCode === null) server.proc.kill('SIGKILL')
			await server.proc.exited
			await admin.unsafe(`drop database if exists "${database}" with (force)`)
			await admin.end()
			rmSync(dataDir, { recursive: true, force: true })
		}
	})

	test('REUSE_PORT=true: two api processes share one port and both serve it; without it a second one does not start', async () => {
		const first = await spawnPlaza('api', { REUSE_PORT: 'true' })
		const second = await spawnPlaza('api', { REUSE_PORT: 'true', PORT: String(first.port) })
		const healthOf = (p: Plaza) => p.stdout.filter((l) => l.includes('"route":"/health"')).length
		try {
			expect(second.port).toBe(first.port)
			// A new connection each time: the kernel spreads connections, not requests.
			for (let i = 0; i < 40; i++) {
				const reply = await fetch(`http://127.0.0.1:${first.port}/health`, {
					headers: { connection: 'close' },
				})
				expect(reply.status).toBe(200)
			}
			await waitFor(() => healthOf(first) + healthOf(second) >= 40, { what: '40 request lines' })
			expect(healthOf(first)).toBeGreaterThan(0)
			expect(healthOf(second)).toBeGreaterThan(0)

			// One stops; the other goes on serving the port.
			expect(await first.stop()).toBe(0)
			expect((await get(second.port, '/health')).status).toBe(200)

			// A process without REUSE_PORT cannot take the port from under it.
			const third = await spawnPlaza('api', { PORT: String(second.port) }).catch((e: Error) => e)
			if (!(third instanceof Error)) await third.stop()
			expect(third instanceof Error ? third.message : 'it started').toContain('EADDRINUSE')
			expect((await get(second.port, '/health')).status).toBe(200)
		} finally {
			for (const p of [first, second]) if (p.alive()) p.proc.kill('SIGKILL')
		}
	})

	test('SIGTERM lets an in-flight request finish before the process exits', async () => {
		const c = await newCommunity('graceful')
		let release: () => void = () => {}
		const held = new Promise<void>((resolve) => {
			release = resolve
		})
		let arrived: () => void = () => {}
		const arrival = new Promise<void>((resolve) => {
			arrived = resolve
		})
		// A slow SMS gateway keeps /otp/generate in flight while the signal arrives.
		const gateway = startReceiver(async () => {
			arrived()
			await held
			return new Response('ok')
		})
		const server = await spawnPlaza('api', {
			OTP_SENDER: 'webhook',
			OTP_WEBHOOK_URL: gateway.urlOf('/sms'),
		})
		try {
			const inFlight = get(
				server.port,
				`/otp/generate?country_code=${c.ownerCountryCode}&mobile_no=${c.ownerMobile}`,
			)
			await arrival
			server.proc.kill('SIGTERM')
			await Bun.sleep(200)
			expect(server.proc.exitCode).toBeNull()
			release()
			const reply = await inFlight
			expect(reply.status).toBe(200)
			expect(reply.body.success).toBe(true)
			expect(await server.proc.exited).toBe(0)
		} finally {
			release()
			if (server.proc.exitCode === null) server.proc.kill('SIGKILL')
			gateway.stop()
		}
	})

	test('scripts/project.ts prints exactly one JSON line with a working API key', async () => {
		const mobile = `6${String(Date.now()).slice(-8)}${process.pid % 10}`
		const created = await runScript([
			'run',
			'scripts/project.ts',
			'create',
			'--name',
			'Script Co',
			'--owner-country-code',
			'44',
			'--owner-mobile',
			mobile,
		])
		expect(created.code).toBe(0)
		const lines = created.stdout.split('\n').filter(Boolean)
		expect(lines).toHaveLength(1)
		const project = JSON.parse(lines[0])
		expect(Object.keys(project).sort()).toEqual(['api_key', 'community_id', 'project_id'])
		expect(project.project_id).toMatch(/^[0-9a-f]{24}$/)
		expect(project.community_id).toBeInteger()
		const initiate = await api('POST', '/sdk/initiate', {
			apiKey: project.api_key,
			body: { user_unique_id: 'script-user' },
		})
		expect(initiate.status).toBe(200)
		expect(initiate.body.data.community.id).toBe(project.community_id)

		// The same owner number twice, or bad arguments: an error on stderr, nothing on stdout.
		const again = await runScript([
			'run',
			'scripts/project.ts',
			'create',
			'--name',
			'Twice',
			'--owner-country-code',
			'44',
			'--owner-mobile',
			mobile,
		])
		expect(again.code).not.toBe(0)
		expect(again.stdout).toBe('')
		expect(again.stderr).toContain('already owns a project')
		const bad = await runScript(['run', 'scripts/project.ts', 'create', '--name', 'X'])
		expect(bad.code).not.toBe(0)
		expect(bad.stdout).toBe('')
		expect(bad.stderr).toContain('--owner-country-code')
	})
})

function adminOptions() {
	const url = new URL(config.DATABASE_URL)
	return {
		host: url.hostname,
		port: Number(url.port || 5432),
		user: decodeURIComponent(url.username || 'postgres'),
		password: decodeURIComponent(url.password) || undefined,
		database: 'postgres',
	}
}
