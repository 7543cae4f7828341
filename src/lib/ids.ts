// Opaque ids: 24 hex characters, time-ordered like a Mongo ObjectId
// (4 bytes seconds, 5 random bytes per process, 3 bytes counter).
import { randomBytes, randomUUID } from 'node:crypto'

const processPart = randomBytes(5).toString('hex')
let counter = randomBytes(3).readUIntBE(0, 3)

export function newId(): string {
	counter = (counter + 1) % 0xffffff
	const seconds = Math.floor(Date.now() / 1000)
		.toString(16)
		.padStart(8, '0')
	return seconds + processPart + counter.toString(16).padStart(6, '0')
}

/**
 * A version for a cached copy that starts anew (a rebuild, a flush): random, not counted,
 * so a copy kept under a version that vanished can never match one given after it.
 */
export const randomVersion = () => String(Math.floor(Math.random() * 2 ** 48))

export const isId = (value: string) => /^[0-9a-f]{24}$/.test(value)

export const newUuid = () => randomUUID()

export const isUuid = (value: string) =>
	/^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i.test(value)
