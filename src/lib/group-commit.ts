// Group commit: concurrent writes of one kind share ONE transaction. A write that
// arrives while the previous batch is in flight waits for it; the next batch takes
// everything that waited. ONE function handles the whole batch with set-based
// statements (one multi-row insert for all its likes, say), so a batch costs about the
// statements and round trips of one write plus one BEGIN and one COMMIT, and a row
// every write of the batch updates (a popular post's counter) is locked once per batch
// instead of once per write: later writes no longer queue on each other's commits.
// Each caller is answered only after its batch has committed.
//
// A batch commits all its writes or none. When it fails (a failed statement aborts the
// whole transaction; a deadlock), it rolls back and each of its writes runs alone in a
// transaction of its own, in arrival order, exactly as without batching (so it gets its
// own answer), before the next batch.
//
// One batch per batcher is in flight at a time: two transactions of a process never
// wait on each other's row locks (a batch locks rows in no fixed order, so two
// concurrent batches could deadlock). Batches of two processes still can: Postgres
// then fails one of them after deadlock_timeout, and its writes are retried as above.
import type postgres from 'postgres'
import { beginCollecting, type Hook, transaction } from './db'
import { log } from './log'

/** One input's answer from a batch: its value, or the error it alone gets (having written nothing). */
export type Outcome<O> = { ok: true; value: O } | { ok: false; error: unknown }

export interface BatchCommit<I, O> {
	/** Handles `input` in a transaction shared with the other inputs waiting; resolves after the commit. */
	run(input: I): Promise<O>
}

/**
 * Inputs with the same `key` never share a batch and keep their arrival order (a like
 * and an unlike of one user on one post: set-based statements need distinct rows);
 * `together` answers each input of a batch, and an input it answers with an error must
 * have written nothing (a 404 found by a read). When `together` throws, each input of
 * the batch runs `alone`, as it would unbatched.
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
				// On the next turn of the event loop: requests that arrive together share the first batch.
				setImmediate(drain)
			})
		},
	}
}
