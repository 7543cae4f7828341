// Batches over many keys on a Redis that may be a Cluster. ioredis' Cluster client
// sends a pipeline to one node, so every key in it must live on that node's slots; a
// MULTI must keep to one slot, and so must a multi-key command. Keys of different hash
// tags ({u1}, {u2}) land on different slots. `pipelineBySlot` groups a batch by the
// slot of each item's key (computed by cluster-key-slot, as ioredis does) and sends one
// pipeline per node that owns those slots; on a standalone Redis it is one pipeline.
import calculateSlot from 'cluster-key-slot'
import { Cluster } from 'ioredis'
import type { RedisClient } from './redis'

export type Pipeline = ReturnType<RedisClient['pipeline']>

/** The items of a batch in groups that one pipeline may carry (one group on a standalone Redis). */
export function groupBySlotOwner<T>(
	client: RedisClient,
	items: T[],
	keyOf: (item: T) => string,
): T[][] {
	if (!(client instanceof Cluster)) return items.length > 0 ? [items] : []
	const groups = new Map<string, T[]>()
	for (const item of items) {
		const slot = calculateSlot(keyOf(item))
		// Slots of one node share a pipeline; before the slot map is known, one per slot.
		const owner = client.slots[slot]?.join(',') ?? `slot:${slot}`
		const group = groups.get(owner)
		if (group) group.push(item)
		else groups.set(owner, [item])
	}
	return [...groups.values()]
}

/** Runs a pipeline and throws the first command error (ioredis reports them per command). */
export async function execOrThrow(pipeline: Pipeline): Promise<unknown[]> {
	const results = (await pipeline.exec()) ?? []
	const failed = results.find(([error]) => error)
	if (failed) throw failed[0]
	return results.map(([, value]) => value)
}

/**
 * Queues `queue(pipeline, item)` for every item, one pipeline per slot owner, all sent
 * at once; throws the first error of any of them.
 */
export async function pipelineBySlot<T>(
	client: RedisClient,
	items: T[],
	keyOf: (item: T) => string,
	queue: (pipeline: Pipeline, item: T) => void,
): Promise<void> {
	await Promise.all(
		groupBySlotOwner(client, items, keyOf).map((group) => {
			const pipeline = client.pipeline()
			for (const item of group) queue(pipeline, item)
			return execOrThrow(pipeline)
		}),
	)
}

/** The master nodes to run a keyless command (SCAN, FLUSHDB) on: every master of a cluster. */
export async function masters(client: RedisClient): Promise<RedisClient[]> {
	if (!(client instanceof Cluster)) return [client]
	// The node list is known once the cluster client has read the slot map.
	if (client.status !== 'ready') await new Promise((resolve) => client.once('ready', resolve))
	return client.nodes('master')
}

/** Every key matching `pattern`, scanned on each master (SCAN on a cluster client sees one node). */
export async function scanKeys(client: RedisClient, pattern: string): Promise<string[]> {
	const found: string[] = []
	for (const node of await masters(client)) {
		let cursor = '0'
		do {
			const [next, batch] = await node.scan(cursor, 'MATCH', pattern, 'COUNT', 1000)
			cursor = next
			found.push(...batch)
		} while (cursor !== '0')
	}
	return found
}

/**
 * Deletes keys of any slots: one DEL per slot group of up to 1,000 keys (a DEL over two
 * slots is CROSSSLOT), all groups sent at once in one pipeline per node.
 */
export async function deleteKeys(client: RedisClient, keyList: string[]): Promise<number> {
	const bySlot = new Map<number, string[]>()
	for (const key of keyList) {
		const slot = client instanceof Cluster ? calculateSlot(key) : 0
		const group = bySlot.get(slot)
		if (group) group.push(key)
		else bySlot.set(slot, [key])
	}
	const dels: string[][] = []
	for (const group of bySlot.values())
		for (let i = 0; i < group.length; i += 1000) dels.push(group.slice(i, i + 1000))
	let deleted = 0
	await Promise.all(
		groupBySlotOwner(client, dels, (keys) => keys[0] as string).map(async (owned) => {
			const pipeline = client.pipeline()
			for (const keys of owned) pipeline.del(...keys)
			for (const n of await execOrThrow(pipeline)) deleted += n as number
		}),
	)
	return deleted
}
