// The cache-aside shared by the post and user caches (post-cache.ts, user-cache.ts):
// reads over MGET that fill misses from Postgres, and drops that keep a racing fill
// from putting an older value back.
//
// A read that misses loads from Postgres and fills the cache; a write that commits
// meanwhile and drops the key before that fill lands would see its change overwritten
// by the older row until the TTL ends (seen as a stale likes_count). So every writer
// bumps the key's generation as it drops or stores it, a reader notes the generation
// before it loads, and the fill (cacheFill) happens only if it is unchanged.
import { keys } from '../lib/keys'
import { redis } from '../lib/redis'
import { quietly } from '../lib/redis-errors'
import { pipelineBySlot } from '../lib/redis-slots'

redis.defineCommand('cacheFill', {
	numberOfKeys: 2,
	lua: `if (redis.call('GET', KEYS[2]) or '') ~= ARGV[1] then return 0 end
redis.call('SET', KEYS[1], ARGV[2], 'EX', ARGV[3])
return 1`,
})

export type CacheFill = (
	key: string,
	generationKey: string,
	seen: string,
	value: string,
	ttl: number,
) => unknown

/**
 * Drops cached values (one community's, so one hash tag), bumps their generations and,
 * last in the same MULTI, the community's feed version (kept pages show them).
 */
export async function dropCached(
	communityId: number,
	cacheKeys: string[],
	ttl: number,
): Promise<void> {
	const multi = redis.multi()
	for (const key of cacheKeys) {
		const generation = keys.cacheGeneration(key)
		multi.incr(generation).expire(generation, ttl).del(key)
	}
	await multi.incr(keys.feedVersion(communityId)).exec()
}

/**
 * Cache-aside over MGET (posts and users alike): cached values of `ids`, misses loaded
 * from Postgres, returned and cached for `ttl` seconds unless a writer bumped their
 * generation meanwhile (see cacheFill); unknown ids are left out. `ids` are of one
 * community, so their keys share a hash tag.
 */
export async function readThrough<K extends string | number, T>(
	ids: K[],
	keyOf: (id: K) => string,
	load: (missing: K[]) => Promise<(readonly [K, string])[]>,
	ttl: number,
	decode: (raw: Buffer) => T,
): Promise<Map<K, T>> {
	const found = new Map<K, T>()
	if (ids.length === 0) return found
	const cached = await redis.mgetBuffer(...ids.map(keyOf))
	const missing: K[] = []
	ids.forEach((id, i) => {
		const raw = cached[i]
		if (raw) found.set(id, decode(raw))
		else missing.push(id)
	})
	if (missing.length > 0) {
		const generations = await redis.mget(...missing.map((id) => keys.cacheGeneration(keyOf(id))))
		const seen = new Map(missing.map((id, i) => [id, generations[i] ?? '']))
		const encoded = await load(missing)
		for (const [id, value] of encoded) found.set(id, decode(Buffer.from(value)))
		await quietly('fill cache', () =>
			pipelineBySlot(
				redis,
				encoded,
				([id]) => keyOf(id),
				(pipeline, [id, value]) =>
					(pipeline as unknown as { cacheFill: CacheFill }).cacheFill(
						keyOf(id),
						keys.cacheGeneration(keyOf(id)),
						seen.get(id) ?? '',
						value,
						ttl,
					),
			),
		)
	}
	return found
}
