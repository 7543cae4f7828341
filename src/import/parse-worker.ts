// A parsing thread of an import's read phase (parse-pool.ts): checks a batch of lines
// and renders the good ones to COPY text, joined per record type, so the main thread
// only splits the input, forwards rows and writes the rejects. Parsing is most of the
// read phase's CPU; with a thread per core it runs beside Postgres taking the COPYs.
import type { RecordType } from './record-model'
import { parseLine } from './records'
import { hashKey } from './repeats'

export interface BatchRequest {
	id: number
	/** The batch's lines joined with '\n' (one string crosses threads far cheaper than many). */
	text: string
	/** Line number of lines[0] (1-based). */
	first: number
	now: number
	keepRaw: boolean
}

export interface StagedChunk {
	type: RecordType
	/** COPY text rows, newline-terminated, joined. */
	text: string
	rows: number
	/** The rows' customer ids hashed (repeats.ts), two numbers a row. */
	hashes: Uint32Array
}

export interface BatchResult {
	id: number
	staged: StagedChunk[]
	/** [line, reason, raw], in line order. */
	rejects: [number, string, string][]
}

export function parseBatch(request: BatchRequest): BatchResult {
	const rows = new Map<RecordType, { copyLines: string[]; keys: string[] }>()
	const rejects: [number, string, string][] = []
	const lines = request.text.split('\n')
	for (let i = 0; i < lines.length; i++) {
		const raw = lines[i] as string
		if (raw.trim() === '') continue
		const line = request.first + i
		const parsed = parseLine(raw, line, request.now, request.keepRaw)
		if (!parsed.ok) rejects.push([line, parsed.reason, raw])
		else {
			let list = rows.get(parsed.type)
			if (!list) {
				list = { copyLines: [], keys: [] }
				rows.set(parsed.type, list)
			}
			list.copyLines.push(parsed.copyLine)
			list.keys.push(parsed.key)
		}
	}
	const staged = [...rows].map(([type, { copyLines, keys }]) => {
		const hashes = new Uint32Array(2 * keys.length)
		for (let i = 0; i < keys.length; i++) hashKey(keys[i] as string, hashes, i)
		return { type, text: copyLines.join(''), rows: copyLines.length, hashes }
	})
	return { id: request.id, staged, rejects }
}

declare const self: Worker
self.onmessage = (event: MessageEvent<BatchRequest>) => {
	const result = parseBatch(event.data)
	// The hashes move to the main thread instead of being copied.
	self.postMessage(
		result,
		result.staged.map((chunk) => chunk.hashes.buffer as ArrayBuffer),
	)
}
