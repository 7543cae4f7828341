// NDJSON lines from a byte stream (a file, stdin, or the HTTP job's stored upload),
// counting bytes as they are read so progress can show how far through the input is.
// A generator, so the stream only starts flowing when the reader asks for the first
// line (readline drops lines that arrive before its iterator exists).
import { createInterface } from 'node:readline'
import { Readable } from 'node:stream'

export async function* linesOf(
	input: Readable,
	onBytes?: (bytes: number) => void,
): AsyncGenerator<string> {
	if (onBytes) {
		let bytes = 0
		input.on('data', (chunk: Buffer) => {
			bytes += chunk.length
			onBytes(bytes)
		})
	}
	yield* createInterface({ input, crlfDelay: Number.POSITIVE_INFINITY })
}

/** Lines of an async sequence of byte chunks (e.g. rows read from Postgres). */
export function linesOfChunks(chunks: AsyncIterable<Uint8Array>): AsyncGenerator<string> {
	return linesOf(Readable.from(chunks))
}
