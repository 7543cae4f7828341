// lib/group-commit.ts against real Postgres: inputs called together share one
// transaction, written by one set-based statement, and are answered once committed;
// inputs of one key never share a batch and keep their order; an input answered with
// an error writes nothing while the others commit; a failed batch runs each input
// alone, in call order; inputs arriving while a batch is in flight make the next one,
// which does not wait for the first one's after-commit hooks.
import { beforeAll, describe, expect, test } from 'bun:test'
import type postgres from 'postgres'
import { afterCommit, commitNow, type Db, pipelinedTransaction, sql } from '../../src/lib/db'
import { batchCommit, type Outcome } from '../../src/lib/group-commit'

beforeAll(async () => {
	await sql`create table if not exists batch_commit_probe (
		seq bigserial primary key, label text not null unique, txid bigint not null)`
})

interface Input {
	label: string
	key?: string
	refuse?: boolean
}

/** All the labels of the batch in one insert; returns the transaction and each row's place. */
async function writeAll(tx: Db, inputs: Input[]) {
	const rows = await tx<{ label: string; seq: string; txid: string }[]>`
		insert into batch_commit_probe (label, txid)
		select l, txid_current() from unnest(${inputs.filter((i) => !i.refuse).map((i) => i.label)}::text[]) l
		returning label, seq, txid`
	const byLabel = new Map(rows.map((r) => [r.label, { txid: String(r.txid), seq: Number(r.seq) }]))
	return inputs.map(
		(i): Outcome<{ txid: string; seq: number }> =>
			i.refuse
				? { ok: false, error: new Error(`refused ${i.label}`) }
				: { ok: true, value: byLabel.get(i.label) as { txid: string; seq: number } },
	)
}

async function writeOne(tx: postgres.TransactionSql, input: Input) {
	const [row] = await tx<{ seq: string; txid: string }[]>`
		insert into batch_commit_probe (label, txid) values (${input.label}, txid_current())
		returning seq, txid`
	return { txid: String(row?.txid), seq: Number(row?.seq) }
}

const batcher = () =>
	batchCommit<Input, { txid: string; seq: number }>({
		key: (i) => i.key ?? i.label,
		together: writeAll,
		alone: writeOne,
	})

const stored = async (prefix: string) =>
	(
		await sql<{ label: string }[]>`
			select label from batch_commit_probe where label like ${`${prefix}%`} order by seq`
	).map((r) => r.label)

describe('batchCommit', () => {
	test('inputs called together share one transaction and are committed when answered', async () => {
		const commits = batcher()
		const labels = Array.from({ length: 8 }, (_, i) => `together-${i}`)
		const results = await Promise.all(labels.map((label) => commits.run({ label })))
		expect(new Set(results.map((r) => r.txid)).size).toBe(1)
		// Read on another connection: committed before any caller was answered.
		expect((await stored('together-')).sort()).toEqual(labels.sort())
	})

	test('inputs of one key never share a batch and keep their order; other keys join the first batch', async () => {
		const commits = batcher()
		const [a1, a2, b, a3] = await Promise.all([
			commits.run({ label: 'keyed-a1', key: 'a' }),
			commits.run({ label: 'keyed-a2', key: 'a' }),
			commits.run({ label: 'keyed-b', key: 'b' }),
			commits.run({ label: 'keyed-a3', key: 'a' }),
		])
		expect(b?.txid).toBe(a1?.txid as string)
		expect(new Set([a1?.txid, a2?.txid, a3?.txid]).size).toBe(3)
		expect((await stored('keyed-a')).filter((l) => l !== 'keyed-b')).toEqual([
			'keyed-a1',
			'keyed-a2',
			'keyed-a3',
		])
	})

	test('an input answered with an error gets it and writes nothing; the others commit', async () => {
		const commits = batcher()
		const outcomes = await Promise.allSettled([
			commits.run({ label: 'mixed-a' }),
			commits.run({ label: 'mixed-refused', refuse: true }),
			commits.run({ label: 'mixed-b' }),
		])
		expect(outcomes.map((o) => o.status)).toEqual(['fulfilled', 'rejected', 'fulfilled'])
		expect((outcomes[1] as PromiseRejectedResult).reason.message).toBe('refused mixed-refused')
		expect((await stored('mixed-')).sort()).toEqual(['mixed-a', 'mixed-b'])
	})

	test('a statement error fails the batch; every input then gets the answer it gets alone, in call order', async () => {
		const commits = batcher()
		await sql`insert into batch_commit_probe (label, txid) values ('dup-taken', 0)`
		const outcomes = await Promise.allSettled([
			commits.run({ label: 'dup-free-1' }),
			commits.run({ label: 'dup-taken' }),
			commits.run({ label: 'dup-free-2' }),
		])
		expect(outcomes.map((o) => o.status)).toEqual(['fulfilled', 'rejected', 'fulfilled'])
		expect((outcomes[1] as PromiseRejectedResult).reason.code).toBe('23505')
		const [one, two] = [outcomes[0], outcomes[2]].map(
			(o) => (o as PromiseFulfilledResult<{ txid: string }>).value.txid,
		)
		expect(one).not.toBe(two as string)
		expect(await stored('dup-')).toEqual(['dup-taken', 'dup-free-1', 'dup-free-2'])
	})

	test('inputs arriving while a batch is in flight wait for it and share the next one', async () => {
		const { promise: inFlight, resolve: started } = Promise.withResolvers<void>()
		const commits = batchCommit<Input, { txid: string; seq: number }>({
			key: (i) => i.label,
			together: async (tx, inputs) => {
				if (inputs.some((i) => i.label === 'next-first')) {
					started()
					await tx`select pg_sleep(0.2)`
				}
				return writeAll(tx, inputs)
			},
			alone: writeOne,
		})
		const first = commits.run({ label: 'next-first' })
		await inFlight
		const later = await Promise.all(['next-2', 'next-3'].map((label) => commits.run({ label })))
		const firstDone = await first
		expect(later[0]?.txid).toBe(later[1]?.txid as string)
		expect(later[0]?.txid).not.toBe(firstDone.txid)
		expect((await stored('next-'))[0]).toBe('next-first')
	})

	test('with two in flight, the next batch commits while the first waits; an input of a key in flight waits for it', async () => {
		const { promise: inFlight, resolve: started } = Promise.withResolvers<void>()
		const commits = batchCommit<Input, { txid: string; seq: number }>({
			key: (i) => i.key ?? i.label,
			together: async (tx, inputs) => {
				if (inputs.some((i) => i.label === 'two-slow')) {
					started()
					await tx`select pg_sleep(0.3)`
				}
				return writeAll(tx, inputs)
			},
			alone: writeOne,
			inFlight: 2,
		})
		const slow = commits.run({ label: 'two-slow', key: 'k' })
		await inFlight
		const [fast, sameKey] = await Promise.all([
			commits.run({ label: 'two-fast' }),
			commits.run({ label: 'two-same-key', key: 'k' }),
		])
		await slow
		expect(fast.txid).not.toBe(sameKey.txid)
		expect(await stored('two-')).toEqual(['two-fast', 'two-slow', 'two-same-key'])
	})

	test("the next batch commits while the last one's after-commit hooks run; an input of its keys waits for its answer", async () => {
		const { promise: inHook, resolve: hookStarted } = Promise.withResolvers<void>()
		const { promise: hookGate, resolve: releaseHook } = Promise.withResolvers<void>()
		const commits = batchCommit<Input, { txid: string; seq: number }>({
			key: (i) => i.key ?? i.label,
			together: async (tx, inputs) => {
				if (inputs.some((i) => i.label === 'hooked-slow'))
					afterCommit(tx, () => {
						hookStarted()
						return hookGate
					})
				return writeAll(tx, inputs)
			},
			alone: writeOne,
		})
		const slow = commits.run({ label: 'hooked-slow', key: 'k' })
		await inHook
		let sameKeyAnswered = false
		const sameKey = commits.run({ label: 'hooked-same-key', key: 'k' }).then((r) => {
			sameKeyAnswered = true
			return r
		})
		// Had the next batch waited for the hook, this would time out: the gate is still shut.
		const next = await Promise.race([
			commits.run({ label: 'hooked-next' }),
			Bun.sleep(3000).then(() => null),
		])
		expect(next).not.toBeNull()
		expect(sameKeyAnswered).toBe(false)
		releaseHook()
		const [slowDone, sameDone] = await Promise.all([slow, sameKey])
		expect(new Set([slowDone.txid, next?.txid, sameDone.txid]).size).toBe(3)
		expect(await stored('hooked-')).toEqual(['hooked-slow', 'hooked-next', 'hooked-same-key'])
	})

	test('prepare runs on the pool beside BEGIN and its answer reaches together; when it fails, each input runs alone', async () => {
		const prepared: string[][] = []
		const commits = (fail: boolean) =>
			batchCommit<Input, { txid: string; seq: number }, { backend: number }>({
				key: (i) => i.label,
				prepare: async (inputs) => {
					prepared.push(inputs.map((i) => i.label))
					if (fail) throw new Error('prepare failed')
					const [row] = await sql<{ backend: number }[]>`select pg_backend_pid() as backend`
					return row as { backend: number }
				},
				together: async (tx, inputs, ahead) => {
					const [own] = await tx<{ backend: number }[]>`select pg_backend_pid() as backend`
					// Another connection than the transaction's: it did not wait for BEGIN's turn.
					expect((await ahead)?.backend).not.toBe(own?.backend)
					return writeAll(tx, inputs)
				},
				alone: writeOne,
			})
		const ok = commits(false)
		const shared = await Promise.all(['prep-1', 'prep-2'].map((label) => ok.run({ label })))
		expect(shared[0]?.txid).toBe(shared[1]?.txid as string)
		expect(prepared).toEqual([['prep-1', 'prep-2']])
		const failing = commits(true)
		const alone = await Promise.all(['prep-3', 'prep-4'].map((label) => failing.run({ label })))
		expect(alone[0]?.txid).not.toBe(alone[1]?.txid as string)
		expect(await stored('prep-')).toEqual(['prep-1', 'prep-2', 'prep-3', 'prep-4'])
	})

	test('pipelined: BEGIN, the statements and COMMIT go out together as one transaction; a statement failing ahead of the COMMIT rolls the batch back, and each input runs alone', async () => {
		const commits = batchCommit<Input, { txid: string; seq: number }, never, postgres.ReservedSql>({
			key: (i) => i.label,
			open: pipelinedTransaction,
			together: async (tx, inputs) => {
				// Two statements and the COMMIT sent before any answer.
				const first = writeAll(tx, inputs.slice(0, 1))
				const rest = writeAll(tx, inputs.slice(1))
				commitNow(tx)
				return [...(await first), ...(await rest)]
			},
			alone: writeOne,
		})
		const shared = await Promise.all(['pipe-1', 'pipe-2'].map((label) => commits.run({ label })))
		expect(shared[0]?.txid).toBe(shared[1]?.txid as string)

		await sql`insert into batch_commit_probe (label, txid) values ('pipe-taken', 0)`
		const outcomes = await Promise.allSettled(
			['pipe-free-1', 'pipe-taken', 'pipe-free-2'].map((label) => commits.run({ label })),
		)
		// Had the first statement committed with the batch, pipe-free-1 alone would be a duplicate.
		expect(outcomes.map((o) => o.status)).toEqual(['fulfilled', 'rejected', 'fulfilled'])
		expect((outcomes[1] as PromiseRejectedResult).reason.code).toBe('23505')
		expect(await stored('pipe-')).toEqual([
			'pipe-1',
			'pipe-2',
			'pipe-taken',
			'pipe-free-1',
			'pipe-free-2',
		])
	})
})
