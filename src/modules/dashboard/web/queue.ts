// The review queue's open counts as a page shows them: from REST first, then from each
// live `queue` event (absolute counts, web/live.ts), unless a refetch started after it.
import { useRef, useState } from 'preact/hooks'
import { useLive } from './live'

export interface QueueCounts {
	open_reports: number
	pending_posts: number
}

/**
 * The counts to show: the latest `queue` event's, unless a refetch started after it
 * (events are numbered as they come; a refetch remembers the number it started at, so
 * call `refetching` when one starts). `onEvent` hears every event, `queue` included.
 */
export function useLiveQueue(rest: QueueCounts | undefined, onEvent: (type: string) => void) {
	const [live, setLive] = useState<{ counts: QueueCounts; seq: number }>()
	const seq = useRef(0)
	const started = useRef(0)
	const rested = useRef<{ rest?: QueueCounts; seq: number }>({ rest, seq: 0 })
	useLive((event) => {
		if (event.type === 'queue') {
			seq.current += 1
			setLive({ counts: event.data as unknown as QueueCounts, seq: seq.current })
		}
		onEvent(event.type)
	})
	// New REST counts stand for the events numbered up to the start of their fetch.
	if (rest !== rested.current.rest) rested.current = { rest, seq: started.current }
	const shown = live && live.seq > rested.current.seq ? live.counts : rest
	return {
		shown,
		refetching: () => {
			started.current = seq.current
		},
	}
}

const plural = (n: number, one: string, many: string) => `${n} ${n === 1 ? one : many}`

/** "3 open reports · 1 post awaiting approval" */
export const describeQueue = (counts: QueueCounts) =>
	`${plural(counts.open_reports, 'open report', 'open reports')} · ${plural(counts.pending_posts, 'post', 'posts')} awaiting approval`
