// Folds the topic count deltas (migrations/0105) into topics.post_count every few
// seconds, so a read adds only a few seconds' deltas to the stored count. Reads are
// exact whether or not this ran; it only keeps their sums short.
import { transaction } from '../lib/db'
import { flushTopicCounts } from '../modules/topics/repo'

export const topicCountsJob = {
	name: 'topic-counts',
	pattern: '*/2 * * * * *',
	async run() {
		await transaction((tx) => flushTopicCounts(tx))
	},
}
