// Group commit: concurrent writes of one kind share ONE transaction. A write that
// arrives while the previous batch is in flight waits for it; the next batch takes
// everything that waited. The works of a batch run concurrently on the transaction's
// connection (porsager sends what they issue together without waiting, Postgres runs it
// in order), so a batch costs about the round trips of one write, one BEGIN and one
// COMMIT, and a row every write of the batch updates (a popular post's counter) is
// locked once per batch instead of once per write: later writes no longer queue on
// each other's commits. Each caller is answered only after its batch has committed.
//
// A batch commits all its works or none. When a work fails, the batch rolls back (the
// failed work may have written before it threw, and a failed statement aborts the
// whole transaction). Then, in arrival order: the works before it commit again as a
// batch, it runs alone in a transaction of its own, exactly as without batching (so it
// gets its own answer: a 404 for a deleted post, say), and the works after it make
// another batch. A batch whose BEGIN or COMMIT fails runs every work alone.
//
// One batch per batcher is in flight at a time: two transactions of a process never
// wait on each other's row locks (the works of a batch lock rows in no fixed order, so
// two concurrent batches could deadlock). Batches of two processes still can: Postgres
// then fails one of them after deadlock_timeout, and its works are retried as above.
import type postgres from 'postgres'
import { beginCollecting, type Hook, transaction } from './db'
import { log } from './log'

/**
 * What the works of one batch read once for all of them: `shared(key, read)` runs `read`
 * for the first work asking for `key` and hands every later one the same answer (a
 * popular post's row, read once per batch instead of once per like).
 */
export type Shared = <T>(key: string, read: () => Promise<T>) => Promise<T>

type Work<T> = (tx: postgres.TransactionSql, shared: Shared) => Promise<T>

function sharing(): Shared {
	const reads = new Map<string, Promise<unknown>>()
	return <T>(key: string, read: () => Promise<T>) => {
		const known = reads.get(key) as Promise<T> | undefined
		if (known) return known
		const fresh = read()
		reads.set(key, fresh)
		return fresh
	}
}

interface Waiting {
	work: Work<unknown>
	resolve(value: unknown): void
	reject(error: unknown): void
}

/** Thrown inside a batch's transaction to roll it back after a work failed. */
const failedWork = new Error('a work of the batch failed')

export interface GroupCommit {
	/** Runs `work` in a transaction shared with the other works waiting; resolves after the commit. */
	run<T>(work: Work<T>): Promise<T>
}

export function groupCommit(maxBatch = 64): GroupCommit {
	const queue: Waiting[] = []
	let draining = false

	async function drain() {
		try {
			while (queue.length > 0) await commitBatch(queue.splice(0, maxBatch))
		} finally {
			draining = false
		}
	}

	async function commitBatch(batch: Waiting[]): Promise<void> {
		if (batch.length === 0) return
		const hooks: Hook[] = []
		let outcomes: PromiseSettledResult<unknown>[] = []
		try {
			await beginCollecting(hooks, async (tx) => {
				const shared = sharing()
				outcomes = await Promise.allSettled(batch.map((w) => w.work(tx, shared)))
				if (outcomes.some((o) => o.status === 'rejected')) throw failedWork
			})
		} catch (error) {
			const failed = error === failedWork ? outcomes.findIndex((o) => o.status === 'rejected') : -1
			// BEGIN or COMMIT failed: nobody can tell which work it was.
			if (failed < 0) return runAlone(batch)
			// In arrival order: those before it as a batch again, it alone, then the rest.
			await commitBatch(batch.slice(0, failed))
			await runAlone(batch.slice(failed, failed + 1))
			return commitBatch(batch.slice(failed + 1))
		}
		// The works of a batch are concurrent requests: their hooks need no order between them.
		// Hooks handle their own errors; one that throws anyway must not keep the others waiting.
		for (const hooked of await Promise.allSettled(hooks.map((hook) => hook())))
			if (hooked.status === 'rejected')
				log.error({ err: hooked.reason }, 'after-commit hook failed')
		batch.forEach((w, i) => {
			const outcome = outcomes[i]
			if (outcome?.status === 'fulfilled') w.resolve(outcome.value)
		})
	}

	/**
	 * Each work in its own transaction, as it would run unbatched, one after another in
	 * arrival order (a like and an unlike of one user stay in the order they came), all
	 * before the next batch starts.
	 */
	async function runAlone(works: Waiting[]) {
		for (const w of works)
			await transaction((tx) => w.work(tx, sharing())).then(w.resolve, w.reject)
	}

	return {
		run<T>(work: Work<T>): Promise<T> {
			return new Promise<T>((resolve, reject) => {
				queue.push({ work, resolve: resolve as (value: unknown) => void, reject })
				if (draining) return
				draining = true
				// On the next turn of the event loop: requests that arrive together share the first batch.
				setImmediate(drain)
			})
		},
	}
}

/** One input's answer from a batch: its value, or the error it alone gets (having written nothing). */
export type Outcome<O> = { ok: true; value: O } | { ok: false; error: unknown }

export interface BatchCommit<I, O> {
	/** Handles `input` in a transaction shared with the other inputs waiting; resolves after the commit. */
	run(input: I): Promise<O>
}

/**
 * Group commit where ONE function handles the whole batch (set-based statements: one
 * multi-row insert for all its likes, say) instead of each write running its own.
 * Inputs with the same `key` never share a batch and keep their arrival order (a like
 * and an unlike of one user on one post); `together` answers each input, and an input
 * it answers with an error must have written nothing (a 404 found by a read). When
 * `together` throws (a failed statement, a deadlock), the batch rolls back and each of
 * its inputs runs `alone` in a transaction of its own, in arrival order, before the
 * next batch: its answer is then what it would be unbatched.
 */
export function batchCommit<I, O>(options: {
	key: (input: I) => string
	together: (tx: postgres.TransactionSql, inputs: I[]) => Promise<Outcome<O>[]>
	alone: (tx: postgres.TransactionSql, input: I) => Promise<O>
	maxBatch?: number
}): BatchCommit<I, O> {
	const maxBatch = options.maxBatch ?? 64
	type Pending = { input: I; resolve(value: O): void; reject(error: unknown): void }
	let queue: Pending[] = []
	let draining = false

	/** The first waiting inputs of distinct keys; those sharing a key with an earlier one wait. */
	function nextBatch(): Pending[] {
		const keys = new Set<string>()
		const batch: Pending[] = []
		const left: Pending[] = []
		for (const pending of queue) {
			const key = options.key(pending.input)
			if (batch.length < maxBatch && !keys.has(key)) batch.push(pending)
			else left.push(pending)
			keys.add(key)
		}
		queue = left
		return batch
	}

	async function drain() {
		try {
			while (queue.length > 0) await commitBatch(nextBatch())
		} finally {
			draining = false
		}
	}

	async function commitBatch(batch: Pending[]) {
		const hooks: Hook[] = []
		let outcomes: Outcome<O>[]
		try {
			outcomes = await beginCollecting(hooks, (tx) =>
				options.together(
					tx,
					batch.map((p) => p.input),
				),
			)
		} catch (error) {
			log.warn({ err: error, inputs: batch.length }, 'batch rolled back; its writes run alone')
			for (const p of batch)
				await transaction((tx) => options.alone(tx, p.input)).then(p.resolve, p.reject)
			return
		}
		for (const hooked of await Promise.allSettled(hooks.map((hook) => hook())))
			if (hooked.status === 'rejected')
				log.error({ err: hooked.reason }, 'after-commit hook failed')
		batch.forEach((p, i) => {
			const outcome = outcomes[i]
			if (outcome?.ok) p.resolve(outcome.value)
			else p.reject(outcome ? outcome.error : new Error('the batch gave no answer'))
		})
	}

	return {
		run(input: I): Promise<O> {
			return new Promise<O>((resolve, reject) => {
				queue.push({ input, resolve, reject })
				if (draining) return
				draining = true
				setImmediate(drain)
			})
		},
	}
}
