// Whether the counters the content steps wrote from the stage's predictions are exact,
// so the recount (content-repo.ts recountTouched) can be skipped.
// A new post's likes_count and comments_count, and a new comment's likes_count and
// comments_count (replies), are the child rows staged for it when it was inserted.
// Every child row placed later comes from one of those staged rows, so each prediction
// is an upper bound of the truth. Summed over the new parents, predicted == placed then
// means every prediction is exact — provided every placed child points at a new parent
// (a child of a row that existed before this run raises a counter nobody predicted) and
// no child was skipped by `on conflict` (a row a concurrent writer placed first).
// The steps report both; one doubt, or one sum that differs, and the recount runs.

/** One counter of new parents: what the stage predicted, and the child rows placed. */
interface Sums {
	predicted: number
	placed: number
}

export type CounterKind = 'postLikes' | 'postComments' | 'commentLikes' | 'commentReplies'

export interface CounterTally {
	/** Predicted counters written with new parent rows (the sum of one column over them). */
	predict(kind: CounterKind, n: number): void
	/** Child rows placed under new parents. */
	place(kind: CounterKind, n: number): void
	/** A child placed under a parent that existed before, or skipped by `on conflict`. */
	doubt(): void
	/** Whether every counter written from a prediction is the count of its rows. */
	exact(): boolean
}

export function counterTally(): CounterTally {
	const sums: Record<CounterKind, Sums> = {
		postLikes: { predicted: 0, placed: 0 },
		postComments: { predicted: 0, placed: 0 },
		commentLikes: { predicted: 0, placed: 0 },
		commentReplies: { predicted: 0, placed: 0 },
	}
	let doubted = false
	return {
		predict: (kind, n) => {
			sums[kind].predicted += n
		},
		place: (kind, n) => {
			sums[kind].placed += n
		},
		doubt: () => {
			doubted = true
		},
		exact: () => !doubted && Object.values(sums).every((s) => s.predicted === s.placed),
	}
}
