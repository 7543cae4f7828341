// lib/group-commit.ts against real Postgres: writes called together share one
// transaction and run in the order they were called; a failed write gets its own
// answer and leaves nothing behind while the others commit; writes arriving while a
// batch is in flight make the next batch.
import { beforeAll, describe, expect, test } from 'bun:test'
import type postgres from 'postgres'
import { sql } from '../../src/lib/db'
import { groupCommit } from '../../src/lib/group-commit'

beforeAll(async () => {
	await sql`create table if not exists group_commit_probe (
		seq bigserial primary key, label text not null unique, txid bigint not null)`
})

/** Inserts `label` and returns the transaction it ran in and the row's place in the table's order. */
async function write(tx: postgres.TransactionSql, label: string) {
	const [row] = await tx<{ seq: string; txid: string }[]>`
		insert into group_commit_probe (label, txid) values (${label}, txid_current())
		returning seq, txid`
	return { txid: String(row?.txid), seq: Number(row?.seq) }
}

const stored = async (prefix: string) =>
	(
		await sql<{ label: string }[]>`
			select label from group_commit_probe where label like ${`${prefix}%`} order by seq`
	).map((r) => r.label)

describe('groupCommit', () => {
	test('writes called together share one transaction, run in call order, and are committed when answered', async () => {
		const commits = groupCommit()
		const labels = Array.from({ length: 8 }, (_, i) => `together-${i}`)
		const results = await Promise.all(labels.map((l) => commits.run((tx) => write(tx, l))))
		expect(new Set(results.map((r) => r.txid)).size).toBe(1)
		const seqs = results.map((r) => r.seq)
		expect(seqs).toEqual([...seqs].sort((a, b) => a - b))
		// Read on another connection: committed before any caller was answered.
		expect(await stored('together-')).toEqual(labels)
	})

	test('a write that fails after writing gets its own error and leaves nothing; the others commit once, in order', async () => {
		const commits = groupCommit()
		const broken = new Error('refused after writing')
		const outcomes = await Promise.allSettled([
			commits.run((tx) => write(tx, 'mixed-a')),
			commits.run(async (tx) => {
				await write(tx, 'mixed-broken')
				throw broken
			}),
			commits.run((tx) => write(tx, 'mixed-b')),
		])
		expect(outcomes.map((o) => o.status)).toEqual(['fulfilled', 'rejected', 'fulfilled'])
		expect((outcomes[1] as PromiseRejectedResult).reason).toBe(broken)
		expect(await stored('mixed-')).toEqual(['mixed-a', 'mixed-b'])
	})

	test('a statement error aborts the batch; every write then gets the answer it gets alone, in call order', async () => {
		const commits = groupCommit()
		await sql`insert into group_commit_probe (label, txid) values ('dup-taken', 0)`
		const outcomes = await Promise.allSettled([
			commits.run((tx) => write(tx, 'dup-free-1')),
			commits.run((tx) => write(tx, 'dup-taken')),
			commits.run((tx) => write(tx, 'dup-free-2')),
		])
		expect(outcomes.map((o) => o.status)).toEqual(['fulfilled', 'rejected', 'fulfilled'])
		expect((outcomes[1] as PromiseRejectedResult).reason.code).toBe('23505')
		expect(await stored('dup-')).toEqual(['dup-taken', 'dup-free-1', 'dup-free-2'])
	})

	test('writes arriving while a batch is in flight wait for it and share the next one', async () => {
		const commits = groupCommit()
		let started!: () => void
		const inFlight = new Promise<void>((resolve) => {
			started = resolve
		})
		const first = commits.run(async (tx) => {
			started()
			await tx`select pg_sleep(0.2)`
			return write(tx, 'next-first')
		})
		await inFlight
		const later = await Promise.all(
			['next-2', 'next-3'].map((l) => commits.run((tx) => write(tx, l))),
		)
		const firstDone = await first
		expect(later[0]?.txid).toBe(later[1]?.txid as string)
		expect(later[0]?.txid).not.toBe(firstDone.txid)
		expect(await stored('next-')).toEqual(['next-first', 'next-2', 'next-3'])
	})
})
