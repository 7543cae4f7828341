// Hands checked rows to Postgres: one buffer per record type, each flushed with a COPY
// into its staging table when it holds a batch. Only one COPY runs on a connection at
// a time, so buffers take turns; memory stays at one batch per type whatever the file.
import type { Db } from '../../../lib/db'
import type { RecordType } from './record-model'
import { stageColumns } from './records'
import { copyIntoStage } from './stage-repo'

const BATCH_ROWS = 5000
const BATCH_CHARS = 4 * 1024 * 1024

export function createStageWriter(db: Db) {
	const buffers = new Map<RecordType, { rows: string[]; chars: number }>()

	async function flush(type: RecordType): Promise<void> {
		const buffer = buffers.get(type)
		if (!buffer || buffer.rows.length === 0) return
		buffers.delete(type)
		await copyIntoStage(db, type, stageColumns[type], buffer.rows)
	}

	return {
		/** Adds a rendered row; resolves once any COPY it triggered is done (backpressure for the reader). */
		async add(type: RecordType, copyLine: string): Promise<void> {
			let buffer = buffers.get(type)
			if (!buffer) {
				buffer = { rows: [], chars: 0 }
				buffers.set(type, buffer)
			}
			buffer.rows.push(copyLine)
			buffer.chars += copyLine.length
			if (buffer.rows.length >= BATCH_ROWS || buffer.chars >= BATCH_CHARS) await flush(type)
		},
		async end(): Promise<void> {
			for (const type of [...buffers.keys()]) await flush(type)
		},
	}
}
