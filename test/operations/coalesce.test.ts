// lib/coalesce.ts against real Postgres: calls made together share ONE statement (one
// transaction id for all their rows) and each gets its own answer; a batch whose
// statement fails runs each call alone, so only the bad input fails; calls arriving
// while a batch is in flight make the next batch; maxBatch bounds a batch.
import { beforeAll, describe, expect, test } from 'bun:test'
import { coalesce } from '../../src/lib/coalesce'
import { sql } from '../support/db'

beforeAll(async () => {
	await sql`create table if not exists coalesce_probe (
		seq bigserial primary key, label text not null unique, txid bigint not null)`
})

type Row = { label: string; txid: string }

const insertAll = async (labels: string[]) => {
	const rows = await sql<Row[]>`
		insert into coalesce_probe (label, txid)
		select l, txid_current() from unnest(${labels}::text[]) l
		returning label, txid::text`
	const byLabel = new Map(rows.map((r) => [r.label, r.txid]))
	return labels.map((l) => byLabel.get(l) as string)
}

const probe = (maxBatch?: number) => {
	const statements: string[][] = []
	const batcher = coalesce<string, string>({
		together: (labels) => {
			statements.push(labels)
			return insertAll(labels)
		},
		alone: async (label) => (await insertAll([label]))[0] as string,
		maxBatch,
	})
	return { batcher, statements }
}

describe('coalesce', () => {
	test('calls made together share one statement and each gets its own answer', async () => {
		const { batcher, statements } = probe()
		const labels = Array.from({ length: 10 }, (_, i) => `together-${i}`)
		const txids = await Promise.all(labels.map((l) => batcher.run(l)))
		expect(statements).toEqual([labels])
		expect(new Set(txids).size).toBe(1)
		const stored = await sql<Row[]>`
			select label, txid::text from coalesce_probe where label like 'together-%' order by seq`
		expect(stored.map((r) => r.label)).toEqual(labels)
		expect(stored.every((r) => r.txid === txids[0])).toBe(true)
	})

	test('a failed statement runs each call alone: only the bad input fails', async () => {
		await insertAll(['taken'])
		const { batcher, statements } = probe()
		const results = await Promise.allSettled(
			['alone-a', 'taken', 'alone-b'].map((l) => batcher.run(l)),
		)
		expect(statements).toEqual([['alone-a', 'taken', 'alone-b']])
		expect(results.map((r) => r.status)).toEqual(['fulfilled', 'rejected', 'fulfilled'])
		const [a, , b] = results as PromiseFulfilledResult<string>[]
		expect(a?.value).not.toBe(b?.value)
		const stored = await sql`select label from coalesce_probe where label like 'alone-%'`
		expect(stored).toHaveLength(2)
	})

	test('calls during a batch in flight make the next batch; maxBatch bounds a batch', async () => {
		const { batcher, statements } = probe(4)
		const first = batcher.run('next-0')
		await Bun.sleep(0)
		await new Promise((resolve) => setImmediate(resolve))
		const later = Array.from({ length: 6 }, (_, i) => batcher.run(`next-${i + 1}`))
		await Promise.all([first, ...later])
		expect(statements).toEqual([
			['next-0'],
			['next-1', 'next-2', 'next-3', 'next-4'],
			['next-5', 'next-6'],
		])
	})
})
