// Feed metrics on the shared registry. Only reads off the hot path are counted (a kept
// page served as it is costs no counter): how often a shared page of the universal feed
// was computed, and how often a reader that found its kept page changed took one another
// reader had computed or was computing instead. Many computations per write mean the
// readers of a write do not share them.
import { Counter } from 'prom-client'
import { registry } from '../lib/metrics'

const sharedPagesRead = new Counter({
	name: 'feed_shared_pages_total',
	help: 'Universal feed pages found changed, by outcome (computed = computed by this reader, joined = taken from another reader)',
	labelNames: ['outcome'],
	registers: [registry],
})

export const sharedPageComputed = sharedPagesRead.labels('computed')
export const sharedPageJoined = sharedPagesRead.labels('joined')
