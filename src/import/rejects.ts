// Where rejected lines go: `{"line", "reason", "record"}` per line. The CLI writes them
// to FILE.rejects.ndjson; the HTTP job keeps the first 1,000 for its status answer.
import { createWriteStream } from 'node:fs'
import type { RejectSink } from './run'

export interface RejectLine {
	line: number
	reason: string
	record: string
}

/** `record` is the line as read: kept as JSON when it parses, else as the string. */
export function rejectLine(line: number, reason: string, raw: string): string {
	let record: unknown = raw
	try {
		record = JSON.parse(raw)
	} catch {}
	return `${JSON.stringify({ line, reason, record })}\n`
}

export function fileRejects(path: string): RejectSink & { close(): Promise<void> } {
	const out = createWriteStream(path)
	return {
		async add(line, reason, raw) {
			if (!out.write(rejectLine(line, reason, raw)))
				await new Promise((resolve) => out.once('drain', resolve))
		},
		close: () =>
			new Promise((resolve, reject) =>
				out.end((error?: Error | null) => (error ? reject(error) : resolve())),
			),
	}
}

/** Keeps the first `limit` rejects (the job's status shows those); counts all. */
export function collectedRejects(limit: number): RejectSink & { kept: unknown[] } {
	const kept: unknown[] = []
	return {
		kept,
		add(line, reason, raw) {
			if (kept.length < limit) kept.push(JSON.parse(rejectLine(line, reason, raw)))
		},
	}
}
