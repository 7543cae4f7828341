// NDJSON lines from a byte stream (a file, stdin, or the HTTP job's stored upload),
// counting bytes as they are read so progress can show how far through the input is.
// Lines come in batches, one per chunk read: a million lines one by one through an
// async iterator (readline's) cost more than parsing them. A generator, so the stream
// only starts flowing when the reader asks for the first batch.
import { Readable } from 'node:stream'

/** A line without its `\r` (CRLF files). */
const trimCr = (line: string) => (line.endsWith('\r') ? line.slice(0, -1) : line)

export async function* linesOf(
	input: Readable,
	onBytes?: (bytes: number) => void,
): AsyncGenerator<string[]> {
	// Splitting after decoding is safe: '\n' is never part of a multi-byte UTF-8 character,
	// and the streaming decoder keeps a character cut between chunks for the next one.
	const decoder = new TextDecoder()
	let bytes = 0
	let rest = ''
	for await (const chunk of input as AsyncIterable<Buffer | string>) {
		const buffer = typeof chunk === 'string' ? Buffer.from(chunk) : chunk
		bytes += buffer.length
		onBytes?.(bytes)
		const text = rest + decoder.decode(buffer, { stream: true })
		const batch: string[] = []
		let start = 0
		for (let end = text.indexOf('\n'); end !== -1; end = text.indexOf('\n', start)) {
			batch.push(trimCr(text.slice(start, end)))
			start = end + 1
		}
		rest = text.slice(start)
		if (batch.length > 0) yield batch
	}
	rest += decoder.decode()
	if (rest !== '') yield [trimCr(rest)]
}

/** Lines of an async sequence of byte chunks (e.g. rows read from Postgres). */
export function linesOfChunks(chunks: AsyncIterable<Uint8Array>): AsyncGenerator<string[]> {
	return linesOf(Readable.from(chunks))
}
