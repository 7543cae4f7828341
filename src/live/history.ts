// Reading a scope's stream for a resuming client: the events after its cursor, or
// `reset` when some of them can no longer be read — trimmed past the window (the
// oldest entry kept is newer than the cursor), the stream gone (expired, or Redis
// lost it) or born again after the cursor was handed out (its last id is older than the
// cursor). Never a silent gap.
import { redis } from '../lib/redis'
import type { Delivery } from './hub'
import { STREAM_MAX_LEN } from './publish'

export type History = { reset: true; last: string } | { reset: false; entries: Delivery[] }

/** Stream ids `<ms>-<seq>` compared as numbers: -1, 0, 1. */
export function compareIds(a: string, b: string): number {
	const [am, as] = a.split('-').map(Number) as [number, number]
	const [bm, bs] = b.split('-').map(Number) as [number, number]
	if (am !== bm) return am < bm ? -1 : 1
	if ((as ?? 0) !== (bs ?? 0)) return (as ?? 0) < (bs ?? 0) ? -1 : 1
	return 0
}

export const isStreamId = (value: unknown): value is string =>
	typeof value === 'string' && /^[0-9]{1,15}-[0-9]{1,10}$/.test(value)

/** The newest id of a stream, `0-0` when it has none: the cursor of a client that starts now. */
export async function newestId(key: string): Promise<string> {
	const newest = (await redis.xrevrange(key, '+', '-', 'COUNT', 1)) as [string, string[]][]
	return newest[0]?.[0] ?? '0-0'
}

export async function readAfter(key: string, cursor: string): Promise<History> {
	// One MULTI: the trim mark and the range are read at the same moment.
	const answers = await redis
		.multi()
		.xinfo('STREAM', key)
		.xrange(key, `(${cursor}`, '+', 'COUNT', STREAM_MAX_LEN * 2)
		.exec()
	const [infoError, info] = answers?.[0] ?? [new Error('no answer')]
	const range = (answers?.[1]?.[1] ?? []) as [string, string[]][]
	// XINFO fails on a missing stream: its history is gone, unless the client never saw any.
	if (infoError)
		return cursor === '0-0' ? { reset: false, entries: [] } : { reset: true, last: '0-0' }
	const fields = info as unknown[]
	const field = (name: string) => String(fields[fields.indexOf(name) + 1])
	const last = field('last-generated-id')
	// Trimming moves the first entry on (Redis 7.0 leaves max-deleted-entry-id for XDEL):
	// when entries were trimmed and the oldest kept is newer than the cursor, some of
	// those after the cursor may be gone.
	const trimmed = Number(field('entries-added')) > Number(field('length'))
	const gap = trimmed && compareIds(field('recorded-first-entry-id'), cursor) > 0
	if (gap || compareIds(last, cursor) < 0) return { reset: true, last }
	return { reset: false, entries: range.map(([id, f]) => ({ id, json: f[1] as string })) }
}
