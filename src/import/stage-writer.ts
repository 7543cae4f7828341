// Hands checked rows to Postgres: one buffer per record type, filled with the parsing
// threads' chunks and flushed with a COPY into its staging table when it holds a batch.
// Only one COPY runs on a connection at a time, but the reader does not wait for it:
// the next batches are parsed while Postgres takes this one, and the reader waits only
// when it has a batch to send before the previous COPY is done. Memory stays at one
// batch per type plus the one in flight (and the batches parsing), whatever the file.
import type { Db } from '../lib/db'
import type { StagedChunk } from './parse-worker'
import type { RecordType } from './record-model'
import { stageColumns } from './records'
import { copyIntoStage } from './stage-repo'

const BATCH_ROWS = 5000
const BATCH_CHARS = 4 * 1024 * 1024

export function createStageWriter(db: Db) {
	const buffers = new Map<RecordType, { chunks: string[]; rows: number; chars: number }>()
	let inFlight: Promise<void> = Promise.resolve()

	async function flush(type: RecordType): Promise<void> {
		const buffer = buffers.get(type)
		if (!buffer || buffer.rows === 0) return
		buffers.delete(type)
		// The previous COPY first (its error surfaces here); this one then runs on its own.
		await inFlight
		inFlight = copyIntoStage(db, type, stageColumns[type], buffer.chunks)
		inFlight.catch(() => {})
	}

	return {
		/**
		 * Adds a chunk of rendered rows. Returns a promise only when it completed a batch:
		 * the reader awaits it (backpressure), and it resolves once the previous COPY is done.
		 */
		add(chunk: StagedChunk): Promise<void> | undefined {
			let buffer = buffers.get(chunk.type)
			if (!buffer) {
				buffer = { chunks: [], rows: 0, chars: 0 }
				buffers.set(chunk.type, buffer)
			}
			buffer.chunks.push(chunk.text)
			buffer.rows += chunk.rows
			buffer.chars += chunk.text.length
			if (buffer.rows >= BATCH_ROWS || buffer.chars >= BATCH_CHARS) return flush(chunk.type)
			return undefined
		},
		async end(): Promise<void> {
			for (const type of [...buffers.keys()]) await flush(type)
			await inFlight
		},
	}
}
