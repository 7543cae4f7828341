// Coalescing: concurrent calls of one kind share ONE call of `together` — one
// statement for all of them (a multi-row insert, a lookup by `= any(...)`), where
// lib/group-commit.ts shares a transaction of several statements. A write that is one
// statement commits on its own, so there is no BEGIN and COMMIT to wait for: a batch
// costs one round trip and one commit, however many callers it answers.
//
// Calls that arrive while a batch is running wait; the next batch takes up to
// `maxBatch` of them, in arrival order (one batch at a time: the waiting calls make one
// larger statement, which beat two smaller ones in flight, docs/feeds.md). When
// `together` throws (the statement failed and wrote nothing), each call of the batch
// runs `alone` (by default as a batch of one), so one bad input gets its own error and
// the others their answers, exactly as without coalescing.
import { log } from './log'

export interface Coalesced<I, O> {
	/** Answers `input` from a batch shared with the other calls waiting. */
	run(input: I): Promise<O>
}

export function coalesce<I, O>(options: {
	/** One answer per input, in the order of `inputs`. */
	together: (inputs: I[]) => Promise<O[]>
	alone?: (input: I) => Promise<O>
	/**
	 * Inputs of different groups never share a batch (one community's: its statement
	 * names that community, so Citus runs it on one shard); a batch takes the first
	 * waiting input's group.
	 */
	group?: (input: I) => unknown
	maxBatch?: number
}): Coalesced<I, O> {
	const alone =
		options.alone ?? ((input: I) => options.together([input]).then(([answer]) => answer as O))
	const maxBatch = options.maxBatch ?? 64
	type Pending = { input: I; resolve(value: O): void; reject(error: unknown): void }
	let queue: Pending[] = []
	let scheduled = false
	let running = false

	function pump() {
		scheduled = false
		if (running || queue.length === 0) return
		const groupOf = options.group ?? (() => undefined)
		const group = groupOf((queue[0] as Pending).input)
		const batch: Pending[] = []
		const left: Pending[] = []
		for (const p of queue)
			if (batch.length < maxBatch && groupOf(p.input) === group) batch.push(p)
			else left.push(p)
		queue = left
		running = true
		runBatch(batch).finally(() => {
			running = false
			pump()
		})
	}

	async function runBatch(batch: Pending[]) {
		let answers: O[]
		try {
			answers = await options.together(batch.map((p) => p.input))
		} catch (error) {
			if (batch.length === 1) return batch[0]?.reject(error)
			log.warn({ err: error, inputs: batch.length }, 'coalesced batch failed; its calls run alone')
			await Promise.all(batch.map((p) => alone(p.input).then(p.resolve, p.reject)))
			return
		}
		batch.forEach((p, i) => {
			p.resolve(answers[i] as O)
		})
	}

	return {
		run(input: I): Promise<O> {
			return new Promise<O>((resolve, reject) => {
				queue.push({ input, resolve, reject })
				if (scheduled || running) return
				scheduled = true
				// On the next turn of the event loop: requests that arrive together share a batch.
				setImmediate(pump)
			})
		},
	}
}
