// Coalescing: concurrent calls of one kind share ONE call of `together` — one
// statement for all of them (a multi-row insert, a lookup by `= any(...)`), where
// lib/group-commit.ts shares a transaction of several statements. A write that is one
// statement commits on its own, so there is no BEGIN and COMMIT to wait for: a batch
// costs one round trip and one commit, however many callers it answers.
//
// Calls that arrive while a batch is running wait; the next batch takes up to
// `maxBatch` of them, in arrival order (one batch at a time: the waiting calls make one
// larger statement, which beat two smaller ones in flight, docs/feeds.md). With `group`,
// only calls of one group share a batch (a community's, so that the statement runs on one
// Citus shard, DESIGN §21), and one batch per group runs at a time. When
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
	maxBatch?: number
	/** Calls of different groups never share a batch; batches of different groups run side by side. */
	group?: (input: I) => unknown
}): Coalesced<I, O> {
	const alone =
		options.alone ?? ((input: I) => options.together([input]).then(([answer]) => answer as O))
	const maxBatch = options.maxBatch ?? 64
	const groupOf = options.group ?? (() => undefined)
	type Pending = { input: I; group: unknown; resolve(value: O): void; reject(error: unknown): void }
	let queue: Pending[] = []
	let scheduled = false
	/** The groups whose batch is running. */
	const running = new Set<unknown>()

	function pump() {
		scheduled = false
		for (;;) {
			const first = queue.find((p) => !running.has(p.group))
			if (!first) return
			const batch: Pending[] = []
			const rest: Pending[] = []
			for (const p of queue)
				(p.group === first.group && batch.length < maxBatch ? batch : rest).push(p)
			queue = rest
			running.add(first.group)
			runBatch(batch).finally(() => {
				running.delete(first.group)
				pump()
			})
		}
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
				const group = groupOf(input)
				queue.push({ input, group, resolve, reject })
				if (scheduled || running.has(group)) return
				scheduled = true
				// On the next turn of the event loop: requests that arrive together share a batch.
				setImmediate(pump)
			})
		},
	}
}
