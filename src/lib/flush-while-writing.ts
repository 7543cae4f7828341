// Flush while writing: items (outcomes, settlements) that arrive while a write is in
// flight wait and join the next write, so under load one statement or one Redis call
// covers many of them, and when idle an item is written at once (on the next
// microtask, with whatever else arrived in the same turn). One write at a time; a
// write takes at most `maxBatch` waiting items, in arrival order, and the next write
// starts as soon as it is over if more are waiting. Each caller is answered with its
// item's answer, or rejected with the write's error.
//
// The outbox engine's settler (lib/outbox/engine.ts) and the webhook and push outcome
// recorders (webhooks/recorder.ts, push/engine.ts) run on it. lib/coalesce.ts is the
// request-path cousin: it waits a turn of the event loop before a batch and retries a
// failed batch's inputs one by one.

/**
 * `write` handles one batch and answers each item, in the order of `batch` (or answers
 * nothing, when the callers wait only for the write to be over).
 */
export function flushWhileWriting<I, O = void>(
	// biome-ignore lint/suspicious/noConfusingVoidType: a write whose callers wait only for it to be over returns nothing
	write: (batch: I[]) => Promise<O[] | void>,
	maxBatch = Number.POSITIVE_INFINITY,
): (item: I) => Promise<O> {
	let queue: { item: I; resolve: (answer: O) => void; reject: (error: unknown) => void }[] = []
	let writing = false

	async function flush() {
		if (writing || queue.length === 0) return
		writing = true
		const batch = queue.slice(0, maxBatch)
		queue = queue.slice(batch.length)
		try {
			const answers = (await write(batch.map((w) => w.item))) as O[] | undefined
			batch.forEach((w, i) => {
				w.resolve(answers?.[i] as O)
			})
		} catch (error) {
			for (const w of batch) w.reject(error)
		} finally {
			writing = false
			if (queue.length > 0) void flush()
		}
	}

	return (item: I) =>
		new Promise<O>((resolve, reject) => {
			queue.push({ item, resolve, reject })
			queueMicrotask(() => void flush())
		})
}
