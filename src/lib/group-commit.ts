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
// Reads a batch needs but that need no transaction (`prepare`) go out on the pool with
// BEGIN, so the batch's statements need not wait a round trip for them. A batcher may
// open its transactions with lib/db.ts pipelinedTransaction (`open`), whose BEGIN and
// COMMIT ride with the batch's first and last statements.
//
// `inFlight` batches of a batcher run at once (one by default): while one waits on its
// round trips and its commit, the next is written. A batch holds its place only until
// its transaction is over: its after-commit hooks (Redis) and answers follow while the
// next batch's transaction runs, its keys busy until its callers are answered. Batches
// in flight never share a key (the same like row), and their writer must take its row
// locks in one fixed order (a batch of likes first locks its posts, sorted), or two of
// them could deadlock — Postgres would then fail one after deadlock_timeout, and its
// writes run alone.
import type postgres from 'postgres'
import { beginCollecting, type Hook, transaction } from './db'
import { log } from './log'

/** How a batch's transaction is opened: beginCollecting, or lib/db.ts pipelinedTransaction. */
type Open<T> = <R>(hooks: Hook[], work: (tx: T) => Promise<R>) => Promise<R>

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
 * the batch runs `alone`, as it would unbatched: by default as a batch of one, in a
 * transaction of its own.
 */
export function batchCommit<I, O, P = never, T = postgres.TransactionSql>(options: {
	key: (input: I) => string
	/**
	 * Reads a batch needs that need no transaction (the authors of new posts, say), sent
	 * on the pool together with BEGIN rather than after it: `together` gets the promise.
	 * When it fails, so does the batch (each input then runs alone, without it).
	 */
	prepare?: (inputs: I[]) => Promise<P>
	together: (tx: T, inputs: I[], prepared?: Promise<P>) => Promise<Outcome<O>[]>
	/** Opens a batch's transaction (beginCollecting by default); the inputs run alone in sql.begin. */
	open?: Open<T>
	alone?: (tx: postgres.TransactionSql, input: I) => Promise<O>
	/**
	 * Inputs of different groups never share a batch (a batch of one community's writes:
	 * its statements each name that community, so Citus runs each on one shard).
	 */
	group?: (input: I) => unknown
	maxBatch?: number
	inFlight?: number
}): BatchCommit<I, O> {
	const maxBatch = options.maxBatch ?? 64
	const inFlight = options.inFlight ?? 1
	const open = options.open ?? (beginCollecting as Open<T>)
	// A transaction of sql.begin serves `together` too (its writers take any Db).
	const alone =
		options.alone ??
		(async (tx: postgres.TransactionSql, input: I) => {
			const [outcome] = await options.together(tx as unknown as T, [input])
			if (!outcome?.ok) throw outcome ? outcome.error : new Error('the batch gave no answer')
			return outcome.value
		})
	type Pending = { input: I; key: string; resolve(value: O): void; reject(error: unknown): void }
	let queue: Pending[] = []
	let scheduled = false
	let running = 0
	/** Keys of the batches in flight: their inputs wait for them. */
	const busy = new Set<string>()

	/**
	 * The first waiting inputs of distinct keys not in flight, of the first one's group;
	 * the others keep waiting, in order.
	 */
	function nextBatch(): Pending[] {
		const seen = new Set<string>()
		const batch: Pending[] = []
		const left: Pending[] = []
		const groupOf = options.group ?? (() => undefined)
		let group: unknown
		for (const pending of queue) {
			const free = !seen.has(pending.key) && !busy.has(pending.key)
			if (
				batch.length < maxBatch &&
				free &&
				(batch.length === 0 || groupOf(pending.input) === group)
			) {
				group = groupOf(pending.input)
				batch.push(pending)
			} else left.push(pending)
			seen.add(pending.key)
		}
		queue = left
		return batch
	}

	function pump() {
		scheduled = false
		while (running < inFlight) {
			const batch = nextBatch()
			if (batch.length === 0) return
			running++
			for (const p of batch) busy.add(p.key)
			const over = commitBatch(batch)
			// The next batch's transaction need not wait for this one's after-commit hooks
			// (a Redis round trip); its keys stay busy until their callers are answered.
			over.finally(() => {
				running--
				pump()
			})
			over
				.then(({ answered }) => answered)
				.finally(() => {
					for (const p of batch) busy.delete(p.key)
					pump()
				})
		}
	}

	/** Resolves when the batch's transaction is over, with the promise of its answers. */
	async function commitBatch(batch: Pending[]): Promise<{ answered: Promise<void> }> {
		const hooks: Hook[] = []
		let outcomes: Outcome<O>[]
		const inputs = batch.map((p) => p.input)
		try {
			const prepared = options.prepare?.(inputs)
			prepared?.catch(() => {}) // together's to handle (a batch failed before it never looks)
			outcomes = await open(hooks, (tx) => options.together(tx, inputs, prepared))
		} catch (error) {
			log.warn({ err: error, inputs: batch.length }, 'batch rolled back; its writes run alone')
			for (const p of batch) await transaction((tx) => alone(tx, p.input)).then(p.resolve, p.reject)
			return { answered: Promise.resolve() }
		}
		return { answered: answerAfterHooks(batch, hooks, outcomes) }
	}

	async function answerAfterHooks(batch: Pending[], hooks: Hook[], outcomes: Outcome<O>[]) {
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
				queue.push({ input, key: options.key(input), resolve, reject })
				if (scheduled || running >= inFlight) return
				scheduled = true
				// On the next turn of the event loop: requests that arrive together share a batch.
				setImmediate(pump)
			})
		},
	}
}
