// Whether a run's staged rows may repeat a customer id, known by the end of the read:
// the parsing threads hash each good row's id (two 32-bit FNV-1a hashes), the main
// thread keeps the hashes per record type in an open-addressing table, and a type
// whose hashes never repeat has no repeated id — equal ids hash equally — so the
// duplicate check (apply-repo.ts settleDuplicates, a grouping of the whole stage: 0.4 s
// at 1M records, most files repeat nothing) is skipped for it. A repeated hash (a real
// repeat, or two ids that happen to hash alike) only means the check runs as before.
// Memory: 8 bytes a slot, a table between a quarter and half full, so at most 32 bytes a
// row; past MAX_TRACKED rows in a run nothing more is tracked and every type is checked
// in SQL, so a huge file costs no more than 64 MB here.
import type { RecordType } from './record-model'

/** Rows tracked per run before giving up (tables of 64 MB at most by then). */
const MAX_TRACKED = 2_000_000

/** Writes the id's two hashes at `out[2i]`, `out[2i + 1]` (never both zero: zero marks a free slot). */
export function hashKey(key: string, out: Uint32Array, i: number): void {
	let a = 0x811c9dc5
	let b = 0x01000193
	for (let j = 0; j < key.length; j++) {
		const c = key.charCodeAt(j)
		a = Math.imul(a ^ c, 0x01000193)
		b = Math.imul(b ^ c, 0x5bd1e995)
	}
	out[2 * i] = a
	out[2 * i + 1] = b === 0 && a === 0 ? 1 : b
}

interface Table {
	slots: Uint32Array
	size: number
}

function insert(table: Table, a: number, b: number): boolean {
	const mask = table.slots.length / 2 - 1
	for (let i = (a ^ Math.imul(b, 0x9e3779b1)) & mask; ; i = (i + 1) & mask) {
		const x = table.slots[2 * i] as number
		const y = table.slots[2 * i + 1] as number
		if (x === 0 && y === 0) {
			table.slots[2 * i] = a
			table.slots[2 * i + 1] = b
			table.size++
			return true
		}
		if (x === a && y === b) return false
	}
}

function grow(table: Table): void {
	const old = table.slots
	table.slots = new Uint32Array(old.length * 2)
	table.size = 0
	for (let i = 0; i < old.length; i += 2)
		if (old[i] !== 0 || old[i + 1] !== 0) insert(table, old[i] as number, old[i + 1] as number)
}

export interface RepeatWatch {
	/** The hashes of a chunk of staged rows of `type` (pairs, from hashKey). */
	add(type: RecordType, hashes: Uint32Array): void
	/** False only when the type's staged rows are proven to repeat no customer id. */
	mayRepeat(type: RecordType): boolean
}

export function createRepeatWatch(): RepeatWatch {
	const tables = new Map<RecordType, Table>()
	const repeated = new Set<RecordType>()
	let tracked = 0
	let gaveUp = false
	return {
		add(type, hashes) {
			if (gaveUp || repeated.has(type)) return
			tracked += hashes.length / 2
			if (tracked > MAX_TRACKED) {
				gaveUp = true
				tables.clear()
				return
			}
			let table = tables.get(type)
			if (!table) {
				table = { slots: new Uint32Array(2 * 1024), size: 0 }
				tables.set(type, table)
			}
			for (let i = 0; i < hashes.length; i += 2) {
				if (2 * (table.size + 1) > table.slots.length / 2) grow(table)
				if (!insert(table, hashes[i] as number, hashes[i + 1] as number)) {
					repeated.add(type)
					tables.delete(type)
					return
				}
			}
		},
		mayRepeat: (type) => gaveUp || repeated.has(type),
	}
}
