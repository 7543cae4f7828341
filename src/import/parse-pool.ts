// Parsing threads for an import's read phase (parse-worker.ts). Batches go to the
// threads in turn and come back in the order they were sent, so rejects are reported
// and rows staged in line order whatever thread parsed them.
import { availableParallelism } from 'node:os'
import type { BatchRequest, BatchResult } from './parse-worker'

/** One thread per core, at most four: the main thread and Postgres need little beside them. */
const THREADS = Math.min(4, Math.max(1, availableParallelism()))

export interface ParsePool {
	/** Parses a batch of lines whose first is line number `first`. */
	parse(lines: string[], first: number): Promise<BatchResult>
	close(): void
}

export function createParsePool(now: number, keepRaw: boolean): ParsePool {
	const pending = new Map<
		number,
		{ resolve: (r: BatchResult) => void; reject: (e: Error) => void }
	>()
	let failure: Error | null = null
	const fail = (error: Error) => {
		failure = error
		for (const waiter of pending.values()) waiter.reject(error)
		pending.clear()
	}
	const workers = Array.from({ length: THREADS }, () => {
		const worker = new Worker(new URL('./parse-worker.ts', import.meta.url).href)
		worker.onmessage = (event: MessageEvent<BatchResult>) => {
			const waiter = pending.get(event.data.id)
			pending.delete(event.data.id)
			waiter?.resolve(event.data)
		}
		worker.onerror = (event) => fail(new Error(`import parser failed: ${event.message}`))
		return worker
	})
	let sent = 0
	return {
		parse(lines, first) {
			if (failure) return Promise.reject(failure)
			const id = sent++
			const request: BatchRequest = { id, text: lines.join('\n'), first, now, keepRaw }
			return new Promise((resolve, reject) => {
				pending.set(id, { resolve, reject })
				workers[id % workers.length]?.postMessage(request)
			})
		},
		close() {
			for (const worker of workers) worker.terminate()
		},
	}
}
