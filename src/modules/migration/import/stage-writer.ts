// Hands checked rows to Postgres: one buffer per record type, each flushed with a COPY
// into its staging table when it holds a batch. Only one COPY runs on a connection at
// a time, but the reader does not wait for it: it parses the next batch while Postgres
// takes this one (the two share the machine's cores), and waits only when it has a
// batch to send before the previous COPY is done. Memory stays at one batch per type
// plus the one in flight, whatever the file.
import type { Db } from '../../../lib/db'
import type { RecordType } from './record-model'
import { stageColumns } from './records'
import { copyIntoStage } from './stage-repo'

const BATCH_ROWS = 5000
const BATCH_CHARS = 4 * 1024 * 1024

export function createStageWriter(db: Db) {
	const buffers = new Map<RecordType, { rows: string[]; chars: number }>()
	let inFlight: Promise<void> = Promise.resolve()

	async function flush(type: RecordType): Promise<void> {
		const buffer = buffers.get(type)
		if (!buffer || buffer.rows.length === 0) return
		buffers.delete(type)
		// The previous COPY first (its error surfaces here); this one then runs on its own.
		await inFlight
		inFlight = copyIntoStage(db, type, stageColumns[type], buffer.rows)
		inFlight.catch(() => {})
	}

	return {
		/**
		 * Adds a rendered row. Returns a promise only when the row completed a batch: the
		 * reader awaits it (backpressure), and it resolves once the previous COPY is done.
		 */
		add(type: RecordType, copyLine: string): Promise<void> | undefined {
			let buffer = buffers.get(type)
			if (!buffer) {
				buffer = { rows: [], chars: 0 }
				buffers.set(type, buffer)
			}
			buffer.rows.push(copyLine)
			buffer.chars += copyLine.length
			if (buffer.rows.length >= BATCH_ROWS || buffer.chars >= BATCH_CHARS) return flush(type)
			return undefined
		},
		async end(): Promise<void> {
			for (const type of [...buffers.keys()]) await flush(type)
			await inFlight
		},
	}
}
