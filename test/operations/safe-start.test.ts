// Issue 15 finding 7: a start others can reach creates no demo project (its owner's OTP
// is fixed and printed in the README), and the demo owner's fixed code answers only to
// callers on loopback. Each plaza here is a real process on its own empty database.
import { afterAll, describe, expect, test } from 'bun:test'
import { mkdtempSync, rmSync } from 'node:fs'
import { networkInterfaces, tmpdir } from 'node:os'
import { join } from 'node:path'
import postgres from 'postgres'
import { config } from '../../src/config'
import { keys } from '../../src/lib/keys'
import { redis } from '../../src/lib/redis'
import { type Plaza, spawnPlaza } from '../support/process'

const DEMO = 'country_code=91&mobile_no=9999999999'
const admin = () => {
	const url = new URL(config.DATABASE_URL)
	url.pathname = '/postgres'
	return postgres(url.toString(), { max: 1, onnotice: () => {} })
}
const created: string[] = []
const dataDir = mkdtempSync(join(tmpdir(), 'plaza-safe-start-'))

/** A database name of its own, dropped after the file. */
function freshDatabase(tag: string): string {
	const url = new URL(config.DATABASE_URL)
	url.pathname = `/${url.pathname.slice(1)}_${tag}_${process.pid}`
	created.push(url.pathname.slice(1))
	return url.toString()
}

async function projectCount(databaseUrl: string): Promise<number> {
	const db = postgres(databaseUrl, { max: 1, onnotice: () => {} })
	try {
		const [row] = await db`select count(*)::int as n from projects`
		return row?.n as number
	} finally {
		await db.end()
	}
}

async function withPlaza(env: Record<string, string>, run: (p: Plaza) => Promise<void>) {
	const plaza = await spawnPlaza('api', { DATA_DIR: dataDir, ...env })
	try {
		await run(plaza)
	} finally {
		if (plaza.alive()) expect(await plaza.stop()).toBe(0)
	}
}

const get = async (base: string, path: string, headers: Record<string, string> = {}) => {
	const reply = await fetch(`${base}${path}`, { headers })
	return { status: reply.status, body: (await reply.json()) as any }
}

afterAll(async () => {
	const db = admin()
	for (const name of created) await db.unsafe(`drop database if exists "${name}" with (force)`)
	await db.end()
	rmSync(dataDir, { recursive: true, force: true })
})

const warningOf = (p: Plaza) => p.stdout.find((line) => line.includes('NO DEMO PROJECT'))

describe('a start others can reach creates no demo project', () => {
	test('NODE_ENV=production on an empty database: no demo project, one warning naming why and scripts/project.ts', async () => {
		const url = freshDatabase('prod')
		await withPlaza(
			{
				DATABASE_URL: url,
				NODE_ENV: 'production',
				JWT_SECRET: 'j'.repeat(40),
				SECRET_KEY: 's'.repeat(40),
			},
			async (plaza) => {
				const warning = warningOf(plaza)
				expect(warning).toContain('NODE_ENV=production')
				expect(warning).toContain('scripts/project.ts create')
				expect(JSON.parse(warning as string).level).toBe(40) // pino's warn
				expect(plaza.stdout.some((line) => line.startsWith('demo project: '))).toBe(false)
				expect(plaza.stdout.filter((line) => line.includes('NO DEMO PROJECT'))).toHaveLength(1)
			},
		)
		expect(await projectCount(url)).toBe(0)
	})

	test('a non-loopback HOST in development: no demo project; loopback (the default) still gets one', async () => {
		const url = freshDatabase('host')
		await withPlaza({ DATABASE_URL: url, NODE_ENV: 'development', HOST: '0.0.0.0' }, async (p) => {
			expect(warningOf(p)).toContain('HOST=0.0.0.0 is not a loopback address')
		})
		expect(await projectCount(url)).toBe(0)

		// Positive control: the README's start (no HOST, development) on the same database.
		await withPlaza({ DATABASE_URL: url, NODE_ENV: 'development' }, async (p) => {
			expect(warningOf(p)).toBeUndefined()
			expect(p.stdout.some((line) => line.startsWith('demo project: '))).toBe(true)
			expect(p.stdout.find((l) => l.includes('"api listening"'))).toContain('"host":"127.0.0.1"')
		})
		expect(await projectCount(url)).toBe(1)
	})
})

describe("the demo owner's fixed OTP answers only to loopback", () => {
	test('from loopback 123456 logs in; forwarded for a remote caller, or from a non-loopback socket, it does not', async () => {
		const url = freshDatabase('otp')
		const remote = { 'x-forwarded-for': '203.0.113.9' }
		await redis.del(keys.otpSends('91-9999999999'))
		await withPlaza({ DATABASE_URL: url, NODE_ENV: 'development' }, async (p) => {
			const local = `http://127.0.0.1:${p.port}`
			// Positive control: the README's login, from loopback.
			expect((await get(local, `/otp/generate?${DEMO}`)).status).toBe(200)
			const ok = await get(local, `/otp/verify?${DEMO}&otp=123456`)
			expect(ok.status).toBe(200)
			expect(ok.body.data.auth_token).toBeString()

			// A proxy on this machine passing on a remote caller: a real code is sent instead.
			const before = p.stdout.length
			expect((await get(local, `/otp/generate?${DEMO}`, remote)).status).toBe(200)
			const sent = await p.waitForLine(
				(line) => line.includes('"otp generated"') && p.stdout.indexOf(line) >= before,
			)
			const code = JSON.parse(sent).otp as string
			expect(code).toMatch(/^\d{6}$/)
			if (code !== '123456') {
				const refused = await get(local, `/otp/verify?${DEMO}&otp=123456`, remote)
				expect(refused).toEqual({
					status: 400,
					body: { success: false, error_message: 'Invalid OTP' },
				})
			}
			expect((await get(local, `/otp/verify?${DEMO}&otp=${code}`, remote)).status).toBe(200)

			// A fixed code asked for on loopback cannot be spent from elsewhere…
			expect((await get(local, `/otp/generate?${DEMO}`)).status).toBe(200)
			const spent = await get(local, `/otp/verify?${DEMO}&otp=123456`, remote)
			expect(spent.status).toBe(400)
			// …and is still good on loopback.
			expect((await get(local, `/otp/verify?${DEMO}&otp=123456`)).status).toBe(200)
		})

		// A real socket from a non-loopback address: the same database (demo present),
		// now listening on every interface, called through this machine's own LAN address.
		const lan = Object.values(networkInterfaces())
			.flat()
			.find((i) => i && !i.internal && i.family === 'IPv4')?.address
		if (!lan) return console.warn('no non-loopback IPv4 interface: socket case not run')
		await redis.del(keys.otpSends('91-9999999999'))
		await withPlaza({ DATABASE_URL: url, NODE_ENV: 'development', HOST: '0.0.0.0' }, async (p) => {
			const outside = `http://${lan}:${p.port}`
			expect((await get(outside, `/otp/generate?${DEMO}`)).status).toBe(200)
			expect(await get(outside, `/otp/verify?${DEMO}&otp=123456`)).toEqual({
				status: 400,
				body: { success: false, error_message: 'Invalid OTP' },
			})
			// Control: the same process on loopback takes the fixed code.
			const local = `http://127.0.0.1:${p.port}`
			expect((await get(local, `/otp/generate?${DEMO}`)).status).toBe(200)
			expect((await get(local, `/otp/verify?${DEMO}&otp=123456`)).status).toBe(200)
		})
	})
})
