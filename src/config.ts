// Configuration: the environment parsed once against a TypeBox schema.
// Invalid values stop the process with a message naming the variable.

import { randomBytes } from 'node:crypto'
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { type Static, Type as T } from '@sinclair/typebox'
import { Value } from '@sinclair/typebox/value'

const Schema = T.Object({
	NODE_ENV: T.Union([T.Literal('development'), T.Literal('production'), T.Literal('test')], {
		default: 'development',
	}),
	PORT: T.Integer({ minimum: 0, maximum: 65535, default: 3000 }),
	// the address the API listens on; unset: 0.0.0.0 in production, else 127.0.0.1
	HOST: T.Optional(T.String({ minLength: 1 })),
	// several api processes on one host share PORT (SO_REUSEPORT: the kernel spreads
	// connections); off, a second process on a taken port fails to start
	REUSE_PORT: T.Boolean({ default: false }),
	// a second listener with /metrics, /health, /ready (workers serve no HTTP otherwise)
	METRICS_PORT: T.Optional(T.Integer({ minimum: 0, maximum: 65535 })),
	DATABASE_URL: T.String({
		pattern: '^postgres(ql)?://',
		default: 'postgres://postgres@127.0.0.1:5432/plaza',
	}),
	DATABASE_REPLICA_URL: T.Optional(T.String({ pattern: '^postgres(ql)?://' })),
	// connections per process: N processes x this must stay under Postgres' max_connections
	DATABASE_POOL_MAX: T.Integer({ minimum: 1, maximum: 1000, default: 20 }),
	REDIS_URL: T.String({ pattern: '^rediss?://', default: 'redis://127.0.0.1:6379' }),
	REDIS_CLUSTER_NODES: T.Optional(T.String()),
	ROLE: T.Union([T.Literal('api'), T.Literal('worker'), T.Literal('all')], { default: 'all' }),
	JWT_SECRET: T.Optional(T.String({ minLength: 32 })),
	SECRET_KEY: T.Optional(T.String({ minLength: 32 })),
	ACCESS_TOKEN_MINUTES: T.Integer({ minimum: 1, default: 60 }),
	REFRESH_TOKEN_DAYS: T.Integer({ minimum: 1, default: 30 }),
	OTP_SENDER: T.Union([T.Literal('log'), T.Literal('webhook')], { default: 'log' }),
	OTP_WEBHOOK_URL: T.Optional(T.String({ pattern: '^https?://' })),
	OTP_TEST_NUMBERS: T.String({
		pattern: '^(\\+?\\d{1,4}-\\d{4,15}:\\d{6}(,\\+?\\d{1,4}-\\d{4,15}:\\d{6})*)?$',
		default: '',
	}),
	OTP_TTL_SECONDS: T.Integer({ minimum: 1, default: 300 }),
	OTP_RATE_LIMIT_PER_MINUTE: T.Integer({ minimum: 1, default: 30 }),
	WEBHOOK_RETRY_SCHEDULE_MS: T.String({
		pattern: '^\\d+,\\d+,\\d+$',
		default: '1000,60000,3600000',
	}),
	WEBHOOK_TIMEOUT_MS: T.Integer({ minimum: 1, default: 60000 }),
	WEBHOOK_ALLOWED_CIDRS: T.String({ default: '' }),
	FCM_BASE_URL: T.String({ default: 'https://fcm.googleapis.com' }),
	PUSH_ALLOWED_HOSTS: T.String({ default: 'oauth2.googleapis.com,fcm.googleapis.com' }),
	PUSH_RETRY_SCHEDULE_MS: T.String({
		pattern: '^\\d+(,\\d+)*$',
		default: '1000,5000,30000,120000',
	}),
	PUSH_TIMEOUT_MS: T.Integer({ minimum: 1, default: 10000 }),
	MIN_VERSION_CODES: T.String({ pattern: '^([a-z]+:\\d+(,[a-z]+:\\d+)*)?$', default: '' }),
	PUBLIC_BASE_URL: T.String({ pattern: '^https?://', default: 'http://localhost:3000' }),
	RECOMPUTE_CRON: T.String({ default: '*/15 * * * *' }),
	MAX_BODY_BYTES: T.Integer({ minimum: 1024, default: 256 * 1024 }),
	// what the posts of one feed page may weigh together: a page stops before the post
	// that would pass it (at least one post). 6 MiB holds 20 posts of the heaviest kind a
	// 256 KB body can create, so a page of the default size is never cut (docs/security.md)
	FEED_PAGE_MAX_BYTES: T.Integer({ minimum: 64 * 1024, default: 8 * 1024 * 1024 }),
	// largest NDJSON body POST /migration/import takes (streamed to Postgres, never held)
	IMPORT_MAX_BYTES: T.Integer({
		minimum: 1024,
		maximum: 1024 * 1024 * 1024,
		default: 1024 * 1024 * 1024,
	}),
	// an import job's lease: a worker that died holding a job frees it this long after
	// its last renewal (renewed every third of it while the job runs)
	IMPORT_LEASE_SECONDS: T.Integer({ minimum: 1, maximum: 3600, default: 60 }),
	RATE_LIMIT_PER_MINUTE: T.Integer({ minimum: 1, default: 1200 }),
	RATE_LIMIT_IP_PER_MINUTE: T.Integer({ minimum: 1, default: 6000 }),
	TRUST_PROXY_HOPS: T.Integer({ minimum: 0, maximum: 10, default: 0 }),
	LOG_LEVEL: T.String({ default: 'info' }),
	DATA_DIR: T.String({ default: '.data' }),
	// Test hook of test/timelines/fanout-crash.test.ts (docs/configuration.md); test only.
	FANOUT_PAUSE_AFTER_CHECKPOINT: T.Boolean({ default: false }),
})

type Env = Static<typeof Schema>

function readEnv(): Env {
	const raw: Record<string, unknown> = {}
	for (const key of Object.keys(Schema.properties)) {
		const value = process.env[key]
		if (value !== undefined && value !== '') raw[key] = value
	}
	const withDefaults = Value.Default(Schema, Value.Convert(Schema, raw))
	const errors = [...Value.Errors(Schema, withDefaults)]
	if (errors.length > 0) {
		for (const e of errors) console.error(`config: ${e.path.slice(1)} ${e.message}`)
		process.exit(1)
	}
	const env = withDefaults as Env
	if (env.FANOUT_PAUSE_AFTER_CHECKPOINT && env.NODE_ENV !== 'test') {
		console.error(
			'config: FANOUT_PAUSE_AFTER_CHECKPOINT is a test hook, refused unless NODE_ENV=test',
		)
		process.exit(1)
	}
	if (env.OTP_SENDER === 'webhook' && !env.OTP_WEBHOOK_URL) {
		console.error('config: OTP_WEBHOOK_URL is required when OTP_SENDER=webhook')
		process.exit(1)
	}
	return env
}

// Development keeps generated secrets in DATA_DIR so tokens survive restarts;
// production must be given them explicitly.
function secret(env: Env, name: 'JWT_SECRET' | 'SECRET_KEY'): string {
	const given = env[name]
	if (given) return given
	if (env.NODE_ENV === 'production') {
		console.error(`config: ${name} is required in production (at least 32 characters)`)
		process.exit(1)
	}
	const file = join(env.DATA_DIR, name.toLowerCase())
	if (existsSync(file)) return readFileSync(file, 'utf8').trim()
	mkdirSync(env.DATA_DIR, { recursive: true })
	const generated = randomBytes(32).toString('hex')
	writeFileSync(file, generated, { mode: 0o600 })
	return generated
}

function parsePairs(list: string): Map<string, string> {
	const pairs = new Map<string, string>()
	for (const item of list.split(',').filter(Boolean)) {
		const at = item.lastIndexOf(':')
		pairs.set(item.slice(0, at).trim(), item.slice(at + 1).trim())
	}
	return pairs
}

const env = readEnv()

export const config = {
	...env,
	isProduction: env.NODE_ENV === 'production',
	// A development start listens on loopback only unless told otherwise: the demo
	// project (fixed owner OTP) is created only for a loopback listener.
	host: env.HOST ?? (env.NODE_ENV === 'production' ? '0.0.0.0' : '127.0.0.1'),
	JWT_SECRET: secret(env, 'JWT_SECRET'),
	SECRET_KEY: secret(env, 'SECRET_KEY'),
	otpTestNumbers: parsePairs(env.OTP_TEST_NUMBERS),
	minVersionCodes: new Map([...parsePairs(env.MIN_VERSION_CODES)].map(([k, v]) => [k, Number(v)])),
	webhookRetryScheduleMs: env.WEBHOOK_RETRY_SCHEDULE_MS.split(',').map(Number),
	webhookAllowedCidrs: env.WEBHOOK_ALLOWED_CIDRS.split(',')
		.map((s) => s.trim())
		.filter(Boolean),
	pushRetryScheduleMs: env.PUSH_RETRY_SCHEDULE_MS.split(',').map(Number),
	pushAllowedHosts: env.PUSH_ALLOWED_HOSTS.split(',')
		.map((s) => s.trim())
		.filter(Boolean),
}
