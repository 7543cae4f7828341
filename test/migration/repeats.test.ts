// The read's proof that a type repeats no customer id (import/repeats.ts), on which the
// run skips its SQL duplicate check: a repeat anywhere, in any chunk, must be seen.
import { describe, expect, test } from 'bun:test'
import { createRepeatWatch, hashKey } from '../../src/import/repeats'

const hashed = (keys: string[]) => {
	const out = new Uint32Array(2 * keys.length)
	for (const [i, key] of keys.entries()) hashKey(key, out, i)
	return out
}
const ids = (from: number, to: number) =>
	Array.from({ length: to - from }, (_, i) => `p${from + i}`)

describe('repeated customer ids', () => {
	test('distinct ids over many chunks (the tables growing) are proven not to repeat', () => {
		const watch = createRepeatWatch()
		for (let i = 0; i < 50_000; i += 5_000) watch.add('post', hashed(ids(i, i + 5_000)))
		expect(watch.mayRepeat('post')).toBe(false)
		expect(watch.mayRepeat('like')).toBe(false)
	})

	test('an id repeated in a later chunk, or in the same one, is seen; other types are not affected', () => {
		const watch = createRepeatWatch()
		watch.add('post', hashed(ids(0, 20_000)))
		watch.add('comment', hashed(ids(0, 20_000)))
		watch.add('post', hashed([...ids(20_000, 30_000), 'p19999']))
		expect(watch.mayRepeat('post')).toBe(true)
		expect(watch.mayRepeat('comment')).toBe(false)
		const same = createRepeatWatch()
		same.add('user', hashed(['a', 'b', 'a']))
		expect(same.mayRepeat('user')).toBe(true)
	})

	test('past the rows it tracks, every type may repeat (the SQL check runs)', () => {
		const watch = createRepeatWatch()
		for (let i = 0; i < 2_100_000; i += 100_000) watch.add('like', hashed(ids(i, i + 100_000)))
		expect(watch.mayRepeat('like')).toBe(true)
		expect(watch.mayRepeat('user')).toBe(true)
	})
})
